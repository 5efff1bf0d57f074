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

Where the count is read from a TensorFlow value (a tensor's shape, a session
run), or the line goes after a statement that may start TensorFlow
(`_runtime_start`), it is still written, but its edit says why it is late:
the rewrite then leaves its finding unfixed with that reason.
"""

from __future__ import annotations

import ast
import bisect
import dataclasses
from collections import Counter

from estimator_multigpu.migrate import _astutil, _runtime_start
from estimator_multigpu.migrate._edits import Edit, EditSet, Offsets

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)


_FIX = (
    "so emg.devices.resolve cannot simulate missing devices there (the "
    "rewritten towers run where the devices exist); write the count as a flag "
    "or constant read before any TensorFlow call, e.g. "
    "`devices = emg.devices.resolve(num_gpus=FLAGS.num_gpus)` at the top of main"
)


@dataclasses.dataclass(frozen=True)
class HoistEdit(Edit):
    """The inserting edit, and why its line may run after TensorFlow started
    ("" when it runs before)."""

    late: str = ""


@dataclasses.dataclass
class Hoist:
    """The name the resolved devices are assigned to, and the edit that does it."""

    name: str
    edit: HoistEdit


def late(edits) -> str:
    """Why the hoisted line among `edits` may run after TensorFlow started, else ""."""
    return next((e.late for e in edits if getattr(e, "late", "")), "")


def keep_unfixed(finding, why: str) -> None:
    """Leaves `finding` unfixed, its replacement saying `why`."""
    finding.fixed = False
    finding.rule = dataclasses.replace(finding.rule, replacement=why)


def _late(tree: ast.Module, scope, count: ast.AST, limit: int) -> tuple[str, bool]:
    """(why the line after line `limit` is late or "", whether the count is
    read from a TensorFlow value)."""
    source = _runtime_start.count_source(tree, scope, count, limit)
    if source is not None:
        why = (
            f"the device count is read from `{ast.unparse(source)}` at line "
            f"{source.lineno}, after TensorFlow may have started, {_FIX}"
        )
        return why, True
    start = _runtime_start.starter(tree, scope, limit)
    if start is None:
        return "", False
    why = (
        f"the device count is read at line {limit + 1}, after TensorFlow may "
        f"have started (`{ast.unparse(start)}` at line {start.lineno}), {_FIX}"
    )
    return why, False


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


def _start(node: ast.AST) -> tuple[int, int]:
    """Where `node`'s text starts, its decorators included."""
    first = min(
        [node, *getattr(node, "decorator_list", [])],
        key=lambda n: (n.lineno, n.col_offset),
    )
    return first.lineno, first.col_offset


def _spans(stmt: ast.stmt, node: ast.AST) -> bool:
    """Whether `node`'s text lies within `stmt`'s (so `stmt` may hold it)."""
    end = (stmt.end_lineno, stmt.end_col_offset)
    return (
        _start(stmt) <= _start(node) and (node.end_lineno, node.end_col_offset) <= end
    )


def _statements(tree: ast.Module, node: ast.AST) -> list[tuple[list, int]] | None:
    """(block, index) pairs from the module body down to the innermost
    statement holding `node`, through compound statements, functions and
    classes alike; None if no statement holds it.

    Sibling statements do not overlap, so the position of `node` picks one
    statement per level and each call costs the depth of `node`, not the size
    of the module; the statement found is then checked to hold `node` itself.
    """
    if getattr(node, "end_lineno", None) is None:
        return None
    out, block = [], tree.body
    while block:
        index = _holder(block, node)
        if index is None:
            break
        out.append((block, index))
        stmt = block[index]
        block = next((b for b in _def_blocks(stmt) if _spans_any(b, node)), None)
    if not out or not any(n is node for n in _astutil.walk(out[-1][0][out[-1][1]])):
        return None
    return out


def _holder(block: list[ast.stmt], node: ast.AST) -> int | None:
    """The index of the statement in `block` whose text holds `node`'s, found
    by bisection (a block's statements are in source order), else None."""
    index = bisect.bisect_right(block, _start(node), key=_start) - 1
    return index if index >= 0 and _spans(block[index], node) else None


def _spans_any(block: list[ast.stmt], node: ast.AST) -> bool:
    return _holder(block, node) is not None


def _def_blocks(stmt: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists inside `stmt`, a function's or class's body included."""
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [stmt.body]
    return _child_blocks(stmt)


def _scope_path(tree: ast.Module, node: ast.AST):
    """(scope, path): the innermost function (or the module) whose own
    statements hold `node`, and the (block, index) pairs from its body down to
    the statement holding `node`; (None, None) when a class body or a lambda
    sits between them, or no statement holds `node`."""
    path = _statements(tree, node)
    if path is None:
        return None, None
    funcs = [
        depth
        for depth, (block, index) in enumerate(path)
        if isinstance(block[index], ast.FunctionDef | ast.AsyncFunctionDef)
        and depth < len(path) - 1
    ]
    top = funcs[-1] + 1 if funcs else 0
    scope = path[top - 1][0][path[top - 1][1]] if funcs else tree
    inner = path[top:]
    if any(isinstance(b[i], ast.ClassDef) for b, i in inner[:-1]):
        return None, None
    last = inner[-1][0][inner[-1][1]]
    if any(
        isinstance(n, ast.Lambda) and n is not node and _holds(n, node)
        for n in _astutil.walk(last)
    ):
        return None, None
    return scope, inner


def _holds(parent: ast.AST, node: ast.AST) -> bool:
    return any(n is node for n in _astutil.walk(parent))


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
        return _astutil.writes(stmt.target)
    if isinstance(stmt, ast.With | ast.AsyncWith):
        bound = [i.optional_vars for i in stmt.items if i.optional_vars is not None]
        return set().union(*(_astutil.writes(b) for b in bound))
    return set()


def _last_writer(block: list[ast.stmt], index: int, names: set[str]) -> int:
    """The index of the last statement before `block[index]` that assigns one
    of `names`, else -1 (scanned backwards: it stops at the first found)."""
    if names:
        for i in range(index - 1, -1, -1):
            if _astutil.writes(block[i]) & names:
                return i
    return -1


def _place(scope, path, names: set[str]):
    """(statement, True) to write after, or (statement, False) to write before."""
    for depth, (block, index) in reversed(list(enumerate(path))):
        writers = [_last_writer(block, index, names)]
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


def _int(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int


def _fixed_in_code(tree: ast.Module, count: ast.AST) -> bool:
    """Whether `count` is written in the code, not chosen at run time: an int
    literal, or a name bound once in the module, at its top level, to one
    (`num_gpus = 2`), and never a parameter."""
    if not isinstance(count, ast.Name):
        return _int(count)
    stores, top = _bindings(tree)
    values = top.get(count.id, [])
    return stores[count.id] == 1 and len(values) == 1 and _int(values[0])


def _bindings(tree: ast.Module) -> tuple[Counter, dict[str, list[ast.expr]]]:
    """(how many times each name is bound, by assignment, loop, import or
    parameter; {name: the values of the module's top-level assignments to it
    alone}), found once per tree (kept on it): a module has one hoist per
    tower loop or clone."""
    found = tree.__dict__.get(_BINDINGS)
    if found is None:
        stores = Counter(
            n.id if isinstance(n, ast.Name) else n.arg
            for n in _astutil.nodes(tree, ast.Name, ast.arg)
            if not isinstance(getattr(n, "ctx", None), ast.Load)
        )
        top: dict[str, list[ast.expr]] = {}
        for s in tree.body:
            if not isinstance(s, ast.Assign):
                continue
            written = [_astutil.writes(t) for t in s.targets]
            if len(written) == 1 and len(written[0]) == 1:
                top.setdefault(next(iter(written[0])), []).append(s.value)
        found = (stores, top)
        setattr(tree, _BINDINGS, found)
    return found


_BINDINGS = "_emg_hoist_bindings"


def _inside(pos: int, edits) -> bool:
    """Whether `pos` falls strictly inside one of `edits` (a list or an `EditSet`)."""
    if isinstance(edits, EditSet):
        return edits.overlaps(Edit(pos, pos, ""))
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
      prior: the edits already made, a list or an `EditSet` (the line goes in
        none of them).

    Returns:
      The name and the inserting edit, or None where no line can be placed
      (a statement sharing its line, a class body, a lambda): then the call
      stays where the rewrite writes it. The edit's `late` says why the line
      may run after TensorFlow started, if it may (see `late`).
    """
    scope, path = _scope_path(tree, node)
    if not path:
        return None
    expr = ast.parse(count, mode="eval").body
    anchor, after = _place(scope, path, set(_astutil.reads(expr)))
    pos = _after(off, anchor) if after else _before(off, anchor)
    if pos is None or _inside(pos, prior):
        return None
    why, from_tf = _late(
        tree, scope, expr, anchor.end_lineno if after else anchor.lineno - 1
    )
    if from_tf and _astutil.call_target(expr) != "int":
        count = f"int({count})"  # a shape's Dimension, a session's numpy int
    elif _fixed_in_code(tree, expr):
        count = f"{emg}.devices.env_num_gpus({count})"
    indent = " " * off.column(anchor)
    name = _astutil.unique("devices", taken)
    text = f"{indent}{name} = {emg}.devices.resolve(num_gpus={count})"
    return Hoist(name, HoistEdit(pos, pos, text + off.newline, why))
