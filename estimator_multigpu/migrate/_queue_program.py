"""One run over several files: queue-runner starters stay while any file keeps a queue.

An eval script starts the queue runners (`for qr in tf.get_collection(
QUEUE_RUNNERS): qr.create_threads(...)`) of a queue that another file makes.
Rewriting the script alone would drop the loop while that queue is left, and
the program would block forever on its first dequeue; so the files given to
one run are one program, and its starters go only when none of its files
keeps a queue.
"""

from __future__ import annotations

import ast
import dataclasses

from estimator_multigpu.migrate import (
    _engine,
    _flag_devices,
    _keras_input_shape_fix,
    _queue_loops,
    _runner,
)


def process_all(
    paths: list[str],
    ignored: frozenset = frozenset(),
    upgraded: dict | None = None,
) -> list[_runner.FileResult]:
    """`runner.process` on each path, as one program.

    Args:
      paths: the program's files.
      ignored: rule ids not to report.
      upgraded: path -> tf_upgrade_v2's text (`--upgrade-v2`), else None.

    Returns:
      One result per path, in order. When a queue is left in any file, the
      files that would lose a starter are processed again with it kept, and
      every starter finding names that queue. A Keras first layer keeps its
      declared shape where another file reads the built model.
    """
    upgraded = upgraded or {}

    def again(i: int, ctx: _engine.ProgramContext) -> None:
        path = results[i].path
        results[i] = _runner.process_in(path, ignored, upgraded.get(path), ctx)

    alone = _engine.ProgramContext()
    results = [_runner.process_in(p, ignored, upgraded.get(p), alone) for p in paths]
    why = _queue_loops.reason([f for r in results for f in r.queues])
    ctxs = {i: alone for i in range(len(results))}
    for i in _flag_devices_files(results):
        ctxs[i] = dataclasses.replace(ctxs[i], device_flags=_device_counts(results, i))
        again(i, ctxs[i])
    if why is not None:
        for i, result in enumerate(results):
            if any(f.fixed and f.api == _queue_loops.API for f in result.findings):
                ctxs[i] = dataclasses.replace(ctxs[i], keep_runners=why)
                again(i, ctxs[i])
            _queue_loops.keep(results[i].findings, why)
    for i, shape_why in _keras_input_shape_fix.program_reasons(results).items():
        again(i, dataclasses.replace(ctxs[i], keep_input_shape=shape_why))
        if why is not None:
            _queue_loops.keep(results[i].findings, why)
    return results


def _device_counts(results, i: int) -> tuple[str, ...]:
    """The counts the program's other files resolve devices from (after --fix)."""
    names = set()
    for j, result in enumerate(results):
        if j != i:
            names |= _flag_devices.resolved_counts(result.rewritten)
    return tuple(sorted(names))


def _flag_devices_files(results) -> list[int]:
    """The files with a flag named like a count another file resolves, which
    resolve nothing themselves (`_flag_devices`)."""
    if not any(_flag_devices.resolved_counts(r.rewritten) for r in results):
        return []
    out = []
    for i, result in enumerate(results):
        counts = set(_device_counts(results, i))
        text = result.rewritten or result.original
        if not counts or not text or _flag_devices.resolved_counts(text):
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        if _flag_devices.flags(tree) & counts:
            out.append(i)
    return out
