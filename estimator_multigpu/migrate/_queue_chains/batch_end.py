"""Recognises the statement that ends a queue chain: one or more batcher calls."""

from __future__ import annotations

import ast
import dataclasses

from estimator_multigpu.migrate import (
    _aliases,
    _astutil,
    _rules,
)
from estimator_multigpu.migrate._calls import SINGLE_BATCHERS, call_arg, tf_name
from estimator_multigpu.migrate._dataflow import NotAChain
from estimator_multigpu.migrate._queue_chains import batch_helpers

# Position of `keep_input` in the maybe_* batchers.
KEEP_INPUT = {"maybe_batch": 1, "maybe_shuffle_batch": 4}
_SIMPLE = (ast.Assign, ast.AnnAssign, ast.Expr, ast.Return)
# Compound statements whose branches may each batch the same examples.
_COMPOUND = (ast.If, ast.With)


@dataclasses.dataclass
class BatchEnd:
    """The batching statement of a chain.

    Attributes:
      calls: the batcher calls (or batch-helper calls) in it, e.g. the
        `shuffle_batch` and the `batch` of an `if shuffle: ... else: ...`.
      batchers: their names (None for batch-helper calls).
      tensors: per call, the per-example structure it batches (for a helper
        call, a tuple of the per-example arguments).
      others: every other argument of those calls (they stay where they are).
      helper: the `batch_helpers.BatchHelper` the calls call, else None.
      keeps: the `keep_input` arguments of maybe_* batchers (they become
        functions of the example, so they may read its values).
    """

    calls: list[ast.Call]
    batchers: list[str | None]
    tensors: list[ast.expr]
    others: list[ast.expr]
    helper: batch_helpers.BatchHelper | None = None
    keeps: list[ast.expr] = dataclasses.field(default_factory=list)


def _tuple_of(args: list[ast.expr]) -> ast.Tuple:
    """A tuple node spanning `args` in the source (for their text and names)."""
    node = ast.Tuple(elts=args, ctx=ast.Load())
    ast.copy_location(node, args[0])
    node.end_lineno, node.end_col_offset = args[-1].end_lineno, args[-1].end_col_offset
    return node


def _same(nodes: list[ast.expr], what: str) -> None:
    if any(ast.dump(n) != ast.dump(nodes[0]) for n in nodes):
        raise NotAChain(f"the {what} calls in this statement batch different tensors")


def _helper_end(calls: list[ast.Call], found: dict) -> BatchEnd:
    helper = found[calls[0].func.id]
    if any(c.func.id != helper.func.name for c in calls):
        raise NotAChain("this statement calls several batch helpers")
    tensors, others = [], []
    for call in calls:
        args = batch_helpers.example_args(call, helper)
        tensors.append(_tuple_of(args))
        others += [a for a in call.args if a not in args]
        others += [k.value for k in call.keywords if k.value not in args]
    _same(tensors, "batch helper")
    return BatchEnd(calls, [None] * len(calls), tensors, others, helper)


def _batcher_end(calls: list[ast.Call], table: _aliases.AliasTable) -> BatchEnd:
    batchers = [tf_name(table, c, SINGLE_BATCHERS) for c in calls]
    if None in batchers:
        raise NotAChain("`*_join` batchers combine several readers; rewrite by hand")
    tensors = [call_arg(c, 0, "tensors") for c in calls]
    if None in tensors:
        raise NotAChain("a batcher is called without tensors")
    _same(tensors, "batcher")
    others, keeps = [], []
    for call, batcher in zip(calls, batchers):
        keep = keep_input(call, batcher)
        keeps += [keep] if keep is not None else []
        args = call.args[1:] + [k.value for k in call.keywords if k.arg != "tensors"]
        others += [a for a in args if a is not keep]
    return BatchEnd(calls, batchers, tensors, others, keeps=keeps)


def keep_input(call: ast.Call, batcher: str) -> ast.expr | None:
    """The `keep_input` argument of a maybe_* batcher call, else None."""
    index = KEEP_INPUT.get(batcher)
    return call_arg(call, index, "keep_input") if index is not None else None


def batching_calls(stmt: ast.stmt, table, found: dict) -> list[ast.Call]:
    """The batcher and batch-helper calls in `stmt` (not in nested defs)."""
    if not isinstance(stmt, _SIMPLE + _COMPOUND):
        return []
    return [
        n
        for n in _astutil.walk_scope([stmt])
        if tf_name(table, n, _rules.BATCHERS)
        or (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Name)
            and n.func.id in found
        )
    ]


def batch_end(stmt: ast.stmt, table: _aliases.AliasTable, found: dict) -> BatchEnd:
    """Returns the BatchEnd of `stmt`.

    Args:
      stmt: a statement with batching calls (see `batching_calls`).
      table: the module's aliases.
      found: the module's batch helpers by name.

    Raises:
      NotAChain: if the calls cannot be rewritten together.
    """
    calls = sorted(
        batching_calls(stmt, table, found), key=lambda c: (c.lineno, c.col_offset)
    )
    helper_calls = [
        c for c in calls if isinstance(c.func, ast.Name) and c.func.id in found
    ]
    if helper_calls and len(helper_calls) != len(calls):
        raise NotAChain("this statement mixes batchers and batch helpers")
    return _helper_end(calls, found) if helper_calls else _batcher_end(calls, table)
