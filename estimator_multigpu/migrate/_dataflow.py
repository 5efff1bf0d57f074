"""Data flow checks that decide whether per-example code can move into a map function."""

from __future__ import annotations

import ast
from collections import Counter

from estimator_multigpu.migrate import _astutil

# Calls that cannot move into a tf.data map function.
_UNMAPPABLE = (
    "tf.summary",
    "tf.get_variable",
    "tf.Variable",
    "tf.train",
    "tf.add_to_collection",
)


class NotAChain(Exception):
    """Raised with the reason a batcher's chain cannot be rewritten safely."""


def split(stmts: list[ast.stmt], params: list[str]):
    """Splits `stmts` into those that depend on the records and the rest."""
    tainted = {p.lstrip("*") for p in params}
    moved, kept, read = [], [], set()
    for stmt in stmts:
        if (set(_astutil.reads(stmt)) | _astutil.writes(stmt)) & tainted:
            moved.append(stmt)
            tainted |= _astutil.writes(stmt)
            read |= set(_astutil.reads(stmt))
        elif _astutil.writes(stmt) & read:
            name = sorted(_astutil.writes(stmt) & read)[0]
            raise NotAChain(
                f"line {stmt.lineno}: `{name}` changes after the per-example code reads it"
            )
        else:
            kept.append(stmt)
    return moved, kept, tainted


_FORBIDDEN = (
    ast.Return,
    ast.Yield,
    ast.YieldFrom,
    ast.Await,
    ast.Global,
    ast.Nonlocal,
    ast.Import,
    ast.ImportFrom,
)


def _root_name(node: ast.AST) -> str | None:
    """`a` of `a.b[c].d`, if the chain starts at a name."""
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _made_here(nodes: list[ast.AST]) -> set[str]:
    """Names the code binds to an object it makes (a call's result, a display,
    a comprehension), not to one that exists outside it (`a = outside`)."""
    aliases = ast.Name | ast.Attribute | ast.Subscript | ast.Starred
    made = set()
    for node in nodes:
        if isinstance(node, ast.Assign) and not isinstance(node.value, aliases):
            made |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return made


def _side_effect(node: ast.AST, local: set[str], table, made=frozenset()) -> str | None:
    """Describes a store or mutation that would not survive the move, if any.

    A store into an object the code made itself (`columns[4] = ...` after
    `columns = tf.decode_csv(...)`) moves with it: the object is made anew
    each time the function runs.
    """
    targets = []
    if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Delete):
        targets = (
            node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
        )
    for target in targets:
        for sub in _astutil.walk(target):
            if (
                isinstance(sub, ast.Attribute | ast.Subscript)
                and isinstance(sub.ctx, ast.Store | ast.Del)
                and _root_name(sub) not in made
            ):
                return f"stores into `{ast.unparse(sub)}`"
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        func = node.value.func
        base = func.value if isinstance(func, ast.Attribute) else None
        if (
            isinstance(base, ast.Name)
            and base.id not in local
            and base.id not in table.bindings
        ):
            return f"calls `{ast.unparse(func)}` on an outside object"
    return None


def check_mappable(nodes: list[ast.AST], params: list[str], table) -> None:
    """Raises NotAChain if `nodes` cannot run as the body of a map function.

    Refused: returns, yields, imports, `global`; summaries, variables and
    collections; multi-line strings (re-indenting would change them); stores
    into attributes or items of objects the code did not make and method
    calls on outside objects (their effect would happen once, at tracing);
    names read before the code assigns them.
    """
    local = {p.lstrip("*") for p in params}
    assigned = set().union(*(_astutil.writes(n) for n in nodes))
    made = _made_here(nodes)
    for stmt in nodes:
        effect = (
            _side_effect(stmt, local | assigned, table, made)
            if isinstance(stmt, ast.stmt)
            else None
        )
        if effect:
            raise NotAChain(f"line {stmt.lineno}: the per-example code {effect}")
        for node in _astutil.walk(stmt):
            if isinstance(node, _FORBIDDEN):
                raise NotAChain(
                    f"line {node.lineno}: `{type(node).__name__}` in the per-example code"
                )
            path = table.resolve_tf(node.func) if isinstance(node, ast.Call) else None
            if path and path.startswith(_UNMAPPABLE):
                raise NotAChain(
                    f"line {node.lineno}: `{path}` cannot run inside a tf.data map function"
                )
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if node.lineno != node.end_lineno:
                    raise NotAChain(
                        f"line {node.lineno}: multi-line string in the per-example code"
                    )
        _check_order(stmt, local, assigned)
        local |= _astutil.writes(stmt)


def _check_order(stmt: ast.AST, local: set[str], assigned: set[str]) -> None:
    """Raises NotAChain if `stmt` reads a name of `assigned` before it is
    bound (in the function the name is local throughout, so the read would
    fail). An `if`'s branches and a `with`'s body are followed statement by
    statement; any other statement counts as one read before its writes."""
    if isinstance(stmt, ast.If | ast.With):
        heads = [stmt.test] if isinstance(stmt, ast.If) else stmt.items
        for head in heads:
            _check_order(getattr(head, "context_expr", head), local, assigned)
        for branch in (stmt.body, getattr(stmt, "orelse", [])):
            bound = set(local) | set().union(*map(_astutil.writes, heads))
            for inner in branch:
                _check_order(inner, bound, assigned)
                bound |= _astutil.writes(inner)
        return
    early = set(_astutil.reads(stmt)) & (assigned - local)
    if early:
        raise NotAChain(
            f"line {stmt.lineno}: `{sorted(early)[0]}` is read before the "
            "per-example code assigns it"
        )


def _earlier_reads(scope, source: ast.stmt | None) -> Counter:
    """The names read in `scope` before `source` starts, where no loop of the
    scope holds `source`: such a read sees an earlier binding of the name
    (a Python counter the producer's targets later reuse), never an example.
    Reads in nested functions are not counted (they may run later)."""
    found = Counter()
    if source is None:
        return found
    body = getattr(scope, "body", [])
    loops = (ast.For, ast.AsyncFor, ast.While)
    for node in _astutil.walk_scope(body):
        if isinstance(node, loops) and node.lineno < source.lineno <= node.end_lineno:
            return Counter()
    start = (source.lineno, source.col_offset)
    for node in _astutil.walk_scope(body):
        if isinstance(node, ast.Name) and (node.lineno, node.col_offset) < start:
            found.update(_astutil.reads(node))
        elif isinstance(node, ast.AugAssign) and (node.lineno, node.col_offset) < start:
            found.update(_astutil.writes(node.target))
    return found


def check_escapes(
    scope, moved, tensors: list, others, tainted, source: ast.stmt | None = None
) -> None:
    """Raises NotAChain if a per-example name is used outside the chain.

    Args:
      scope: the function (or module) around the chain.
      moved: the statements that become the per-example function.
      tensors: the per-example structure each batching call receives.
      others: the batcher's other arguments (they stay outside).
      tainted: the names that hold per-example values.
      source: the producer's statement; reads before it, outside any loop
        around it, read an earlier value of the name and are not uses.
    """
    inside = Counter()
    for stmt in moved + tensors:
        inside.update(_astutil.reads(stmt))
    total = _astutil.reads(scope) - _earlier_reads(scope, source)
    for name in sorted(tainted):
        if total[name] > inside[name]:
            raise NotAChain(f"`{name}` is also used outside the per-example code")
    for arg in others:
        if set(_astutil.reads(arg)) & tainted:
            raise NotAChain(
                f"batcher argument `{ast.unparse(arg)}` depends on the example"
            )


def literal_of(tensors: ast.expr | None, moved: list[ast.stmt]) -> ast.expr:
    """Returns the list/tuple/dict display that `tensors` is (or is a name for)."""
    if isinstance(tensors, ast.Name):
        for stmt in reversed(moved):
            if tensors.id in _astutil.writes(stmt):
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                    tensors = (
                        stmt.value if isinstance(stmt.targets[0], ast.Name) else None
                    )
                break
    if not isinstance(tensors, ast.List | ast.Tuple | ast.Dict):
        raise NotAChain("the batched tensors are not a list, tuple or dict display")
    return tensors
