"""Recognises hand-written multi-GPU tower loops and gradient-averaging helpers."""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import aliases
from estimator_multigpu.migrate.astutil import call_target, walk_scope

_GRADIENT_CALLS = ("compute_gradients", "gradients", "gradient")
_REUSE_CALLS = ("reuse_variables",)
_SCOPES = ("tf.name_scope", "tf.variable_scope")


def _with_calls(body: list[ast.stmt], table: aliases.AliasTable, names) -> list:
    """Returns the context-manager calls in `body` that resolve to `names`."""
    found = []
    for node in walk_scope(body):
        if isinstance(node, ast.With):
            for item in node.items:
                expr = item.context_expr
                if isinstance(expr, ast.Call) and table.resolve_tf(expr.func) in names:
                    found.append(expr)
    return found


def _mentions_tower(calls: list[ast.Call]) -> bool:
    for call in calls:
        for arg in ast.walk(call):
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                if "tower" in arg.value.lower():
                    return True
    return False


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def is_tower_loop(loop: ast.For, table: aliases.AliasTable) -> bool:
    """True if `loop` places per-device copies of a model, tf1-tutorial style.

    A tower loop opens `tf.device(...)` on a device named from the loop
    variable and, in the same body, computes gradients, reuses variables, or
    opens a scope named "tower".
    """
    devices = _with_calls(loop.body, table, ("tf.device",))
    if not any(_names(call) & _names(loop.target) for call in devices):
        return False
    called = {call_target(n) for n in walk_scope(loop.body) if isinstance(n, ast.Call)}
    if called & set(_GRADIENT_CALLS + _REUSE_CALLS):
        return True
    scopes = _with_calls(loop.body, table, _SCOPES)
    if any(k.arg == "reuse" for call in scopes for k in call.keywords):
        return True
    return _mentions_tower(scopes)


def is_averaging_helper(func: ast.FunctionDef) -> bool:
    """True for the classic `average_gradients(tower_grads)` helper."""
    name = func.name.lower()
    if "grad" not in name or not ("average" in name or "mean" in name):
        return False
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and call_target(node) == "zip":
            if any(isinstance(a, ast.Starred) for a in node.args):
                return True
    return False


def find(tree: ast.AST, table: aliases.AliasTable) -> list[tuple[ast.stmt, bool]]:
    """Returns (node, is_loop) for the tower loops and averaging helpers in `tree`."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.For) and is_tower_loop(node, table):
            found.append((node, True))
        elif isinstance(node, ast.FunctionDef) and is_averaging_helper(node):
            found.append((node, False))
    return found
