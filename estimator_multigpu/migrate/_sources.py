"""Recognises where a chain's examples come from: `reader.read(queue)`, a producer, a reader helper."""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import (
    _aliases,
    _astutil,
    _rules,
)
from estimator_multigpu.migrate._calls import call_arg, tf_name
from estimator_multigpu.migrate._dataflow import NotAChain

# Producers whose result is the per-example value itself (no reader).
_TENSOR_SOURCES = ("slice_input_producer", "limit_epochs")


def _assigned_value(block, upto: int, name: str) -> tuple[int, ast.expr]:
    """Returns (index, value) of the last `name = value` in block[:upto]."""
    for index in range(upto - 1, -1, -1):
        stmt = block[index]
        if name in _astutil.writes(stmt):
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                if isinstance(stmt.targets[0], ast.Name):
                    return index, stmt.value
            break
    raise NotAChain(
        f"`{name}` is not made by a simple assignment in this block "
        "(the chain crosses functions?)"
    )


def _is_source(value: ast.expr, table: _aliases.AliasTable, helpers) -> bool:
    if not isinstance(value, ast.Call):
        return False
    if isinstance(value.func, ast.Name) and value.func.id in helpers:
        return True
    if tf_name(table, value, _TENSOR_SOURCES):
        return True
    func = value.func
    if isinstance(func, ast.Attribute) and func.attr == "read":
        return len(value.args) == 1 and not value.keywords
    return isinstance(func, ast.Attribute) and func.attr == "dequeue"


def find_source(block: list[ast.stmt], index: int, table, helpers, failed=None) -> int:
    """Returns the index of the statement the chain's examples come from.

    Args:
      block, index: the statements, and the position of the batching one.
      table: the module's aliases.
      helpers: reader helpers by name.
      failed: functions that read a queue but are no helpers, with the reason.

    Raises:
      NotAChain: if there is none (the reason names a failed helper called).
    """
    for s_idx in range(index - 1, -1, -1):
        stmt = block[s_idx]
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            if _is_source(stmt.value, table, helpers):
                return s_idx
    for stmt in block[:index]:
        value = getattr(stmt, "value", None)
        name = getattr(getattr(value, "func", None), "id", None)
        if isinstance(value, ast.Call) and name in (failed or {}):
            raise NotAChain(
                f"`{name}` reads the queue but cannot become a source: {failed[name]}"
            )
    raise NotAChain(
        "no `reader.read(queue)` or tensor producer before the batcher in this "
        "function (a chain split over several functions is rewritten by hand)"
    )


def params_of(target: ast.expr, star: bool) -> list[str]:
    if isinstance(target, ast.Name):
        return [("*" if star else "") + target.id]
    if not isinstance(target, ast.Tuple | ast.List) or not all(
        isinstance(e, ast.Name) for e in target.elts
    ):
        raise NotAChain(
            "the records are unpacked into something other than names "
            "(attributes or items)"
        )
    names = []
    for i, elt in enumerate(target.elts):
        names.append(elt.id if elt.id not in names else f"_unused{i}")
    return names


def only_use(scope: ast.AST, name: str) -> None:
    if _astutil.reads(scope)[name] != 1:
        raise NotAChain(f"`{name}` is used elsewhere, not only by this chain")


def from_block(block, s_idx, expr, table, scope, names) -> ast.Call:
    """Returns the call that made `expr`: inline, or `name = call` earlier."""
    if isinstance(expr, ast.Name):
        only_use(scope, expr.id)
        _, expr = _assigned_value(block, s_idx, expr.id)
    if not tf_name(table, expr, names):
        raise NotAChain(
            f"`{ast.unparse(expr)}` is not one of {', '.join(names)} made in this block"
        )
    return expr


def read_parts(block, s_idx, table, scope):
    call = block[s_idx].value
    reader = from_block(block, s_idx, call.func.value, table, scope, _rules.READERS)
    queue = from_block(block, s_idx, call.args[0], table, scope, _rules.PRODUCERS)
    renames = [(reader.func, tf_name(table, reader, _rules.READERS))]
    renames.append((queue.func, tf_name(table, queue, _rules.PRODUCERS)))
    return ("read", call.args[0], call.func.value), renames


def _helper_parts(block, s_idx, table, scope, helper):
    """The source is `x, y = read_and_decode(queue, ...)`, a reader helper."""
    stmt = block[s_idx]
    queue = call_arg(stmt.value, helper.queue_index, helper.queue_param)
    if queue is None:
        raise NotAChain(f"`{helper.func.name}` is called without its queue")
    producer = from_block(block, s_idx, queue, table, scope, _rules.PRODUCERS)
    renames = [(producer.func, tf_name(table, producer, _rules.PRODUCERS))]
    target = stmt.targets[0]
    unpacked = isinstance(target, ast.Tuple | ast.List)
    if isinstance(helper.literal, ast.Dict) and unpacked:
        raise NotAChain(f"the dict that `{helper.func.name}` returns is unpacked")
    form = "tuple" if unpacked or helper.literal else "as_is"
    params = params_of(target, star=form == "tuple")
    return params, ("helper", stmt.value, helper, form), renames


def source_parts(block, s_idx, table, scope, helpers):
    """Returns (params, dataset_parts, renames) for the source statement."""
    stmt = block[s_idx]
    value = stmt.value
    if isinstance(value.func, ast.Name) and value.func.id in helpers:
        return _helper_parts(block, s_idx, table, scope, helpers[value.func.id])
    if tf_name(table, value, _TENSOR_SOURCES):
        name = tf_name(table, value, _TENSOR_SOURCES)
        params = params_of(stmt.targets[0], star=name == "slice_input_producer")
        return params, ("dataset", value), [(value.func, name)]
    if value.func.attr == "read":
        parts, renames = read_parts(block, s_idx, table, scope)
        return params_of(stmt.targets[0], star=True), parts, renames
    if value.args or value.keywords:
        raise NotAChain("`dequeue` is called with arguments")
    base = from_block(block, s_idx, value.func.value, table, scope, _rules.PRODUCERS)
    renames = [(base.func, tf_name(table, base, _rules.PRODUCERS))]
    return (
        params_of(stmt.targets[0], star=False),
        ("dataset", value.func.value),
        renames,
    )
