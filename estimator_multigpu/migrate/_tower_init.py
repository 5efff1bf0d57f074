"""Initializers in a module whose tower loop was rewritten also cover local variables.

`emg.towers` makes the variables a later tower creates for itself (an
`ExponentialMovingAverage.apply` of the tower's losses, made in every
tower) LOCAL variables, so checkpoints move between device
counts. A script that initializes with `tf.global_variables_initializer()` in
a plain Session would leave them uninitialized; the rewrite makes that
initializer `tf.group(<it>, tf.local_variables_initializer())`.
"""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import _aliases, _astutil
from estimator_multigpu.migrate._edits import Edit, Offsets

_GLOBAL = ("tf.global_variables_initializer", "tf.initialize_all_variables")
_LOCAL = ("tf.local_variables_initializer", "tf.initialize_local_variables")


def _calls(tree: ast.AST, table: _aliases.AliasTable, names) -> list[ast.Call]:
    """The argument-free calls in `tree` of the TensorFlow functions `names`."""
    return [
        node
        for node in _astutil.nodes(tree, ast.Call)
        if not node.args and not node.keywords and table.resolve_tf(node.func) in names
    ]


def edits(
    tree: ast.Module, table: _aliases.AliasTable, off: Offsets, prior
) -> list[Edit]:
    """The edits that group each global initializer with the local one.

    None when the module already initializes local variables itself, or for
    a call another edit already rewrites.

    Args:
      tree: the module (its tower loop rewritten by `prior`).
      table: its aliases.
      off: positions in its source.
      prior: the edits already made.
    """
    if _calls(tree, table, _LOCAL):
        return []
    out = []
    for call in _calls(tree, table, _GLOBAL):
        start, end = off.span(call)
        if any(start < p.end and p.start < end for p in prior):
            continue
        func = call.func
        tf = off.text(func.value) if isinstance(func, ast.Attribute) else "tf"
        text = f"{tf}.group({off.text(call)}, {tf}.local_variables_initializer())"
        out.append(Edit(start, end, text))
    return out
