"""One run over several files: queue-runner starters stay while any file keeps a queue.

An eval script starts the queue runners (`for qr in tf.get_collection(
QUEUE_RUNNERS): qr.create_threads(...)`) of a queue that another file makes.
Rewriting the script alone would drop the loop while that queue is left, and
the program would block forever on its first dequeue; so the files given to
one run are one program, and its starters go only when none of its files
keeps a queue.
"""

from __future__ import annotations

from estimator_multigpu.migrate import _engine, _runner
from estimator_multigpu.migrate._registry import REGISTRY


def process_all(
    paths: list[str],
    ignored: frozenset = frozenset(),
    upgraded: dict | None = None,
) -> list[_runner.FileResult]:
    """`runner.process` on each path, as one program.

    Each file is processed alone, then the registry's `'program'` rules
    give the facts about the whole run (`ProgramContext`) that some files
    need, and those files are processed again with them.

    Args:
      paths: the program's files.
      ignored: rule ids not to report.
      upgraded: path -> tf_upgrade_v2's text (`--upgrade-v2`), else None.

    Returns:
      One result per path, in order. When a queue is left in any file, the
      files that would lose a starter are processed again with it kept, and
      every starter finding names that queue. A Keras first layer keeps its
      declared shape where another file reads the built model. A file whose
      flag another file's towers resolve their devices from resolves them
      where it parses its flags.
    """
    upgraded = upgraded or {}

    def again(i: int, ctx: _engine.ProgramContext) -> _runner.FileResult:
        path = results[i].path
        return _runner.process_in(path, ignored, upgraded.get(path), ctx)

    alone = _engine.ProgramContext()
    results = [_runner.process_in(p, ignored, upgraded.get(p), alone) for p in paths]
    _engine.program(REGISTRY, results, again)
    return results
