"""Recognises hand-written multi-GPU tower loops and gradient-averaging helpers."""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import _aliases, _astutil
from estimator_multigpu.migrate._astutil import call_target, walk_scope

_GRADIENT_CALLS = ("compute_gradients", "gradients", "gradient")
_REUSE_CALLS = ("reuse_variables",)
_SCOPES = ("tf.name_scope", "tf.variable_scope")


def _with_calls(body: list[ast.stmt], table: _aliases.AliasTable, names) -> list:
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
        for arg in _astutil.walk(call):
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                if "tower" in arg.value.lower():
                    return True
    return False


def names_in(node: ast.AST) -> set[str]:
    return {n.id for n in _astutil.nodes(node, ast.Name)}


def tainted_names(loop: ast.For) -> set[str]:
    """Names in the loop whose value depends on the loop variable."""
    tainted = names_in(loop.target)
    assigns = [n for n in walk_scope(loop.body) if isinstance(n, ast.Assign)]
    grew = True
    while grew:
        grew = False
        for node in assigns:
            if names_in(node.value) & tainted:
                new = set().union(*(names_in(t) for t in node.targets)) - tainted
                tainted |= new
                grew = grew or bool(new)
    return tainted


def appended(loop: ast.For) -> set[str]:
    """The lists the loop body appends to (`tower_grads.append(grads)`)."""
    out = set()
    for node in walk_scope(loop.body):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "append"
            and isinstance(node.func.value, ast.Name)
        ):
            out.add(node.func.value.id)
    return out


def _colocates(call: ast.Call) -> bool:
    """True for `tf.device(var.device)`: work placed beside a variable, not a tower."""
    return bool(call.args) and (
        isinstance(call.args[0], ast.Attribute) and call.args[0].attr == "device"
    )


def is_tower_loop(loop: ast.For, table: _aliases.AliasTable) -> bool:
    """True if `loop` places per-device copies of a model, tf1-tutorial style.

    A tower loop opens `tf.device(...)` on a device that depends on the loop
    variable (however the name is built: `'/gpu:%d' % i`, `.format`, an
    f-string, a variable, a device setter, a helper) and, in the same body,
    computes gradients, reuses variables, opens a scope named "tower", or
    collects per-iteration values (losses, gradients) in a list. A loop that
    only places work beside variables (`tf.device(var.device)`) is not one.
    """
    devices = [
        c for c in _with_calls(loop.body, table, ("tf.device",)) if not _colocates(c)
    ]
    tainted = tainted_names(loop)
    if not any(names_in(call) & tainted for call in devices):
        return False
    called = {call_target(n) for n in walk_scope(loop.body) if isinstance(n, ast.Call)}
    if called & set(_GRADIENT_CALLS + _REUSE_CALLS) or appended(loop):
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
    for node in _astutil.walk(func):
        if isinstance(node, ast.Call) and call_target(node) == "zip":
            if any(isinstance(a, ast.Starred) for a in node.args):
                return True
    return False


def _starred_over(node: ast.AST, names: set[str]) -> bool:
    """True for `zip(*tower_grads)` / `itertools.chain(*tower_grads)`."""
    return isinstance(node, ast.Call) and any(
        isinstance(a, ast.Starred) and names_in(a.value) & names for a in node.args
    )


def _inline_averaging(tree: ast.AST, collected: set[str]) -> list[ast.AST]:
    """Loops and comprehensions that walk the towers' lists side by side."""
    found = []
    for node in _astutil.walk(tree):
        if isinstance(node, ast.For) and _starred_over(node.iter, collected):
            found.append(node)
        elif isinstance(node, ast.comprehension) and _starred_over(
            node.iter, collected
        ):
            found.append(node.iter)
    return found


def find(tree: ast.AST, table: _aliases.AliasTable) -> list[tuple[ast.AST, bool]]:
    """Returns (node, is_loop) for the tower loops and gradient averaging in `tree`.

    Averaging is an `average_gradients`-style helper, or a loop or
    comprehension over `zip(*L)` / `chain(*L)` of a list `L` a tower loop fills.
    """
    found, collected = [], set()
    for node in _astutil.walk(tree):
        if isinstance(node, ast.For) and is_tower_loop(node, table):
            found.append((node, True))
            collected |= appended(node)
        elif isinstance(node, ast.FunctionDef) and is_averaging_helper(node):
            found.append((node, False))
    inside = {id(n) for f, _ in found for n in _astutil.walk(f) if n is not f}
    inline = _inline_averaging(tree, collected)
    return found + [(n, False) for n in inline if id(n) not in inside]
