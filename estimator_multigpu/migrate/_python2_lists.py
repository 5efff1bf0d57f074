"""Python 2's `map`, `filter` and `zip` used as the lists they returned there.

Under Python 2 the three builtins returned lists; under Python 3 they return
iterators, which have no `len()` and no `[i]` (TypeError when the line
runs). Code of the era took the length of a `map` or indexed it: a Caffe
converter's layer writes `shape = map(lambda v: v.value, x.get_shape())`,
then `len(shape)` and `shape[1]`. `--fix` wraps the call in `list(...)`, what
2to3's `map`/`filter`/`zip` fixers write and what Python 2 returned, where
the call itself is measured or indexed, or is bound, once in its function
(or the module), to a name that is. A module that binds the builtin's name
itself (`from six.moves import map`, `from itertools import imap as map`)
keeps its calls; a call only iterated (a for loop, `list(...)`) is left too:
Python 3's iterator does that the same.
"""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import _astutil, _python2_builtins
from estimator_multigpu.migrate._edits import Edit
from estimator_multigpu.migrate._engine import Module, ProgramContext, finding_edits
from estimator_multigpu.migrate._finding import at
from estimator_multigpu.migrate._guide_rules import rule

RULE_ID = _python2_builtins.RULE_ID
BUILTINS = ("map", "filter", "zip")


def _rule(name: str):
    return rule(
        RULE_ID,
        f"{name}(...) returned a list on Python 2 and an iterator on Python 3, "
        "which has no len() or [i] (TypeError when the line runs)",
        f"list({name}(...)) (the list Python 2 returned; emg-migrate --fix writes it)",
        _python2_builtins.ANCHOR,
        fixable=True,
    )


def _builtin_call(node: ast.AST, bound: set[str]) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in BUILTINS
        and node.func.id not in bound
    )


def _as_list(scope_nodes: list[ast.AST]) -> tuple[set[int], set[str]]:
    """(ids of the values measured or indexed, names measured or indexed)."""
    values, names = set(), set()
    for node in scope_nodes:
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            used = node.value
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "len"
            and len(node.args) == 1
        ):
            used = node.args[0]
        else:
            continue
        values.add(id(used))
        if isinstance(used, ast.Name):
            names.add(used.id)
    return values, names


def _bound_once(nodes: list[ast.AST]) -> set[str]:
    """The names `nodes` bind exactly once."""
    stores: dict[str, int] = {}
    for node in nodes:
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            stores[node.id] = stores.get(node.id, 0) + 1
    return {name for name, count in stores.items() if count == 1}


def _assigned_call(node: ast.AST, names: set[str], bound: set[str]):
    """The builtin call of `name = CALL` when `name` is one of `names`."""
    if (
        isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and node.targets[0].id in names
        and _builtin_call(node.value, bound)
    ):
        return node.value
    return None


def _calls_used_as_lists(scope: ast.AST, bound: set[str]):
    """Each builtin call of `scope` (not of its nested scopes) used as a list."""
    body = [s for s in scope.body if not isinstance(s, _astutil.SCOPES)]
    nodes = list(_astutil.walk_scope(body))
    values, names = _as_list(nodes)
    names &= _bound_once(nodes)
    if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
        names -= _astutil.writes(scope.args)
    for node in nodes:
        if _builtin_call(node, bound) and id(node) in values:
            yield node
        else:
            call = _assigned_call(node, names, bound)
            if call is not None:
                yield call


def find(m: Module, ctx: ProgramContext) -> list:
    """The findings so far plus one per map/filter/zip call used as a list."""
    del ctx
    bound = _astutil.writes(m.tree)
    out = list(m.findings)
    for scope in _astutil.scopes(m.tree):
        for call in _calls_used_as_lists(scope, bound):
            out.append(
                at(
                    m,
                    call,
                    call.func.id,
                    m.off.segment(call) or call.func.id,
                    _rule(call.func.id),
                )
            )
    return out


def edits(m: Module, ctx: ProgramContext) -> list[Edit]:
    """The edits so far plus `list(` and `)` around each finding's call."""
    del ctx

    def wrap(f):
        if f.api not in BUILTINS:
            return None
        start, end = m.off.span(f.node)
        return [Edit(start, start, "list("), Edit(end, end, ")")]

    return finding_edits(m, RULE_ID, wrap)
