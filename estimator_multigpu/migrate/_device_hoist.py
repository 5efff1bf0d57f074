"""The `emg.devices.resolve(num_gpus=n)` a rewrite writes, hoisted to a statement of its own.

`resolve` simulates the missing devices on a machine with fewer (a TF1 tower
loop ran there through `allow_soft_placement`), but only before TensorFlow
starts its runtime; written inside the rewritten tower code it runs after
the input pipeline was built, too late. So the rewrite assigns it to a name
as early as its argument allows: the first statement of the function (after
its docstring) when the argument reads only parameters and globals, else
right after the last statement, on the way to the rewritten code, that
assigns a name it reads (or first in the body of the `for`/`with` that
binds it). The rewritten call then passes `devices=<name>`.
"""

from __future__ import annotations

import ast
import dataclasses

from estimator_multigpu.migrate import _astutil as astutil
from estimator_multigpu.migrate._edits import Edit, Offsets

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)


@dataclasses.dataclass
class Hoist:
    """The name the resolved devices are assigned to, and the edit that does it."""

    name: str
    edit: Edit


def _child_blocks(stmt: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists directly inside `stmt` (not nested functions)."""
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return []
    out = []
    for field in ("body", "orelse", "finalbody"):
        value = getattr(stmt, field, None)
        if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
            out.append(value)
    for handler in getattr(stmt, "handlers", []):
        out.append(handler.body)
    for case in getattr(stmt, "cases", []):
        out.append(case.body)
    return out


def _path(block: list[ast.stmt], node: ast.AST) -> list[tuple[list, int]] | None:
    """(block, index) pairs from `block` down to the statement holding `node`."""
    for index, stmt in enumerate(block):
        if not any(n is node for n in ast.walk(stmt)):
            continue
        for child in _child_blocks(stmt):
            deeper = _path(child, node)
            if deeper is not None:
                return [(block, index)] + deeper
        return [(block, index)]
    return None


def _scope_of(tree: ast.Module, node: ast.AST):
    """The innermost function (or the module) whose own statements hold `node`;
    None when a class body, lambda or comprehension sits between them."""
    found = tree
    for scope in ast.walk(tree):
        if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef) and any(
            n is node for n in ast.walk(scope)
        ):
            if scope.lineno >= getattr(found, "lineno", 0):
                found = scope
    for mid in astutil.walk_scope(found.body):
        if isinstance(mid, ast.ClassDef | ast.Lambda) and any(
            n is node for n in ast.walk(mid)
        ):
            return None
    return found


def _after(off: Offsets, stmt: ast.stmt) -> int | None:
    """Where a line after `stmt` goes; None if `stmt` shares its last line."""
    rest = off.lines[stmt.end_lineno - 1].encode()[stmt.end_col_offset :].strip()
    if rest and not rest.startswith(b"#"):
        return None
    return off.line_end(stmt.end_lineno)


def _before(off: Offsets, stmt: ast.stmt) -> int | None:
    """Where a line before `stmt` goes; None if `stmt` does not start its line."""
    if off.lines[stmt.lineno - 1].encode()[: stmt.col_offset].strip():
        return None
    return off.line_start(stmt.lineno)


def _module_floor(tree: ast.Module, path) -> int:
    """Index in the module body after which a module-level line may go: after
    the imports (the `import estimator_multigpu` goes after the last one)."""
    top = path[0][1]
    imports = [
        i
        for i, s in enumerate(tree.body[:top])
        if isinstance(s, ast.Import | ast.ImportFrom)
    ]
    return imports[-1] if imports else -1


def _header_writes(stmt: ast.stmt) -> set[str]:
    """The names a compound statement binds before its body runs."""
    if isinstance(stmt, ast.For | ast.AsyncFor):
        return astutil.writes(stmt.target)
    if isinstance(stmt, ast.With | ast.AsyncWith):
        bound = [i.optional_vars for i in stmt.items if i.optional_vars is not None]
        return set().union(*(astutil.writes(b) for b in bound))
    return set()


def _place(scope, path, names: set[str]):
    """(statement, True) to write after, or (statement, False) to write before."""
    for depth, (block, index) in reversed(list(enumerate(path))):
        writers = [i for i, s in enumerate(block[:index]) if astutil.writes(s) & names]
        if isinstance(scope, ast.Module) and depth == 0:
            writers.append(_module_floor(scope, path))
        if writers and max(writers) >= 0:
            return block[max(writers)], True
        if depth and _header_writes(path[depth - 1][0][path[depth - 1][1]]) & names:
            return block[0], False
    first, body = scope.body[0], scope.body
    docstring = (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    )
    if docstring and len(body) > 1:
        return first, True
    return first, False


def _inside(pos: int, edits: list[Edit]) -> bool:
    return any(e.start < pos < e.end for e in edits)


def hoist(
    tree: ast.Module,
    node: ast.AST,
    count: str,
    off: Offsets,
    emg: str,
    taken: set[str],
    prior: list[Edit] = (),
) -> Hoist | None:
    """`<name> = emg.devices.resolve(num_gpus=<count>)`, early in `node`'s function.

    Args:
      tree: the module.
      node: where the rewrite writes the devices (a statement or an expression).
      count: the `num_gpus` argument's text (a Python expression).
      off: positions in the module's source.
      emg: how the module spells `estimator_multigpu`.
      taken: the module's names; the new name avoids them (and is added).
      prior: the edits already made (the line goes in none of them).

    Returns:
      The name and the inserting edit, or None where no line can be placed
      (a statement sharing its line, a class body, a lambda): then the call
      stays where the rewrite writes it.
    """
    scope = _scope_of(tree, node)
    path = _path(scope.body, node) if scope is not None else None
    if not path:
        return None
    names = set(astutil.reads(ast.parse(count, mode="eval")))
    anchor, after = _place(scope, path, names)
    pos = _after(off, anchor) if after else _before(off, anchor)
    if pos is None or _inside(pos, list(prior)):
        return None
    indent = " " * off.column(anchor)
    name = astutil.unique("devices", taken)
    text = f"{indent}{name} = {emg}.devices.resolve(num_gpus={count})"
    return Hoist(name, Edit(pos, pos, text + off.newline))
