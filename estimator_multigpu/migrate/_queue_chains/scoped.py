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
and only the batching call after the block changes. The block read through is
the nearest one before the batcher that holds the source, so other scope
blocks may sit between it and the batcher. Per-example code after the block
(statements, or whole scope blocks, at the batcher's level) moves into the
function, one level deeper than the block's body; the statements between that
do not read the example move into the block, before the function:

    with tf.name_scope('load'):
        paths, contents = reader.read(queue)
        image = tf.image.decode_jpeg(contents)
    seed = random.randint(0, 2**31 - 1)
    with tf.name_scope('crop'):
        image = tf.image.random_crop(image, [8, 8, 3], seed=seed)
    batch = tf.train.batch([paths, image], batch_size)
"""

from __future__ import annotations

import ast
import dataclasses

from estimator_multigpu.migrate import _aliases, _astutil
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


def through(block, index: int, table: _aliases.AliasTable):
    """Each reading of the statements before `block[index]` through one scope
    block before it, the nearest block first."""
    for w in range(index - 1, -1, -1):
        if is_scope(block[w], table):
            scope = block[w]
            flat = block[:w] + scope.body + block[w + 1 : index + 1]
            ids = {id(s) for s in scope.body}
            yield Through(flat, len(flat) - 1, ids, scope)


def check(view: Through, moved: list[ast.stmt], kept: list[ast.stmt]) -> None:
    """Raises NotAChain if statements after the scope block cannot move one
    level deeper: a multi-line string would change (the per-example ones are
    refused by the map-function check)."""
    for stmt in after(view, moved, kept):
        for node in _astutil.walk(stmt):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if node.lineno != node.end_lineno:
                    what = ", ".join(ast.unparse(item) for item in view.scope.items)
                    raise NotAChain(
                        f"line {node.lineno}: a multi-line string after the "
                        f"`with {what}:` block would change when moved into it"
                    )


def after(view: Through, moved: list[ast.stmt], kept: list[ast.stmt]) -> list:
    """The statements of `kept` and `moved` after the scope block, up to the
    last per-example one (those after it stay where they are)."""
    outside = [s for s in moved if id(s) not in view.body]
    if not outside:
        return []
    last = max(s.end_lineno for s in outside)
    return [
        s
        for s in moved + kept
        if id(s) not in view.body
        and s.lineno > view.scope.end_lineno
        and s.end_lineno <= last
    ]


def inside(view: Through, moved, kept: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of `kept` in the region the rewrite replaces: those in
    the scope block's body, and those after it up to the last per-example
    statement."""
    region = {id(s) for s in after(view, moved, kept)} | view.body
    return [s for s in kept if id(s) in region]
