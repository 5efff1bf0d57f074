"""Renders batcher calls on emg.inputs.queues, and rewrites batch helpers."""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import _astutil
from estimator_multigpu.migrate._astutil import unique
from estimator_multigpu.migrate._edits import Edit, Offsets
from estimator_multigpu.migrate._queue_chains.batch_end import keep_input
from estimator_multigpu.migrate._queue_chains.batch_helpers import BatchHelper


def _batcher_args(off, call: ast.Call, batcher: str, dataset: str, params) -> list[str]:
    keep = keep_input(call, batcher)
    args = [dataset]
    for arg in call.args[1:]:
        args.append(_keep(off, arg, params) if arg is keep else off.text(arg))
    for kw in call.keywords:
        if kw.arg == "tensors":
            continue
        value = _keep(off, kw.value, params) if kw.value is keep else off.text(kw.value)
        args.append(f"{kw.arg}={value}" if kw.arg else f"**{value}")
    return args


def _keep(off: Offsets, node: ast.expr, params: list[str] | None) -> str:
    """`keep_input` as the function of the example that emg's maybe_* take."""
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return off.text(node)
    return f"lambda {', '.join(params) if params else '*_'}: ({off.text(node)})"


def batch_call(
    off: Offsets, call: ast.Call, batcher: str, q: str, dataset: str, params=None
) -> str:
    """`q.get_next(q.<batcher>(dataset, ...))` for `call`, wrapped if long.

    Args:
      off: positions in the module's source.
      call: the queue batcher call; its arguments after `tensors` are kept.
      batcher: its name, e.g. `'shuffle_batch'`.
      q: how the module spells emg.inputs.queues.
      dataset: the expression for the Dataset of examples.
      params: the example's names, for a `keep_input` that reads them (None:
        it does not).
    """
    args = _batcher_args(off, call, batcher, dataset, params)
    flat = f"{q}.get_next({q}.{batcher}({', '.join(args)}))"
    line = off.lines[call.lineno - 1]
    indent = line[: len(line) - len(line.lstrip())]
    column = len(line.encode()[: call.col_offset])
    if column + len(flat) <= 88 and "\n" not in flat:
        return flat
    nl = off.newline
    inner = "".join(f"{indent}        {a},{nl}" for a in args)
    return (
        f"{q}.get_next({nl}{indent}    {q}.{batcher}({nl}{inner}"
        f"{indent}    ){nl}{indent})"
    )


def helper_edits(helper: BatchHelper, off: Offsets, q: str) -> list[Edit]:
    """Edits that make a batch helper take one Dataset for its example parameters.

    `def make_batch(image, label, n)` becomes `def make_batch(examples, n)`
    and each `tf.train.batch([image, label], n)` in it becomes
    `q.get_next(q.batch(examples, n))`.
    """
    local = _astutil.writes(helper.func) | set(_astutil.reads(helper.func))
    name = unique("examples", local - set(helper.names))
    params = helper.func.args.posonlyargs + helper.func.args.args
    first, last = params[helper.first], params[helper.first + len(helper.names) - 1]
    edits = [Edit(off.span(first)[0], off.span(last)[1], name)]
    for call, batcher in helper.calls:
        edits.append(off.replace(call, batch_call(off, call, batcher, q, name)))
    return edits
