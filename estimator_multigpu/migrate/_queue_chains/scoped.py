"""Chains that cross a `with tf.name_scope(...):` block.

The shape: the producer, reader and per-example code sit
in the scope, the batcher (or batch-helper) call comes after it:

    with tf.name_scope('data_augmentation'):
        filename_queue = tf.train.string_input_producer(filenames)
        read_input = read_records(filename_queue)
        ...
    return _generate_image_and_label_batch(float_image, read_input.label, ...)

The chain is read through the block as one statement list; the rewrite stays
inside the block (the per-example function and the Dataset are made there),
and only the batching call after the block changes.
"""

from __future__ import annotations

import ast
import dataclasses

from estimator_multigpu.migrate import _aliases
from estimator_multigpu.migrate._dataflow import NotAChain

# Context managers that only name or place ops: reading through them keeps
# what the statements compute.
SCOPES = ("tf.name_scope", "tf.variable_scope", "tf.device")


@dataclasses.dataclass
class Through:
    """A statement list read through one scope block.

    Attributes:
      block: the outer statements before the block, the block's body, then
        the outer statements after it up to the batching statement.
      index: the batching statement's position in `block`.
      body: the ids of the statements of the scope block's body.
      scope: the `with` statement.
    """

    block: list[ast.stmt]
    index: int
    body: set[int]
    scope: ast.With


def is_scope(stmt: ast.stmt, table: _aliases.AliasTable) -> bool:
    """True for `with tf.name_scope(...)` (or variable_scope, device) blocks."""
    return isinstance(stmt, ast.With) and all(
        isinstance(item.context_expr, ast.Call)
        and table.resolve_tf(item.context_expr.func) in SCOPES
        for item in stmt.items
    )


def through(block, index: int, table: _aliases.AliasTable) -> Through | None:
    """The statements before `block[index]` read through the nearest scope
    block before it; None when there is no such block."""
    for w in range(index - 1, -1, -1):
        if is_scope(block[w], table):
            scope = block[w]
            flat = block[:w] + scope.body + block[w + 1 : index + 1]
            ids = {id(s) for s in scope.body}
            return Through(flat, len(flat) - 1, ids, scope)
    return None


def check(view: Through, moved: list[ast.stmt]) -> None:
    """Raises NotAChain unless the per-example code is all in the scope block
    (the rewrite then stays inside it)."""
    outside = [s for s in moved if id(s) not in view.body]
    if outside:
        what = ", ".join(ast.unparse(item) for item in view.scope.items)
        raise NotAChain(
            f"line {outside[0].lineno}: per-example code after the `with {what}:` "
            f"block at line {view.scope.lineno}; move it into the block"
        )


def inside(view: Through, stmts: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of `stmts` that are in the scope block's body."""
    return [s for s in stmts if id(s) in view.body]
