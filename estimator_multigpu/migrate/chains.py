"""Recognises whole queue input chains: producer -> reader.read -> per-example code -> batcher."""

from __future__ import annotations

import ast
import dataclasses

from estimator_multigpu.migrate import aliases, astutil, rules

# Producers whose result is the per-example value itself (no reader).
_TENSOR_SOURCES = ("slice_input_producer", "limit_epochs")
# Calls that cannot move into a tf.data map function.
_UNMAPPABLE = (
    "tf.summary",
    "tf.get_variable",
    "tf.Variable",
    "tf.train",
    "tf.add_to_collection",
)
_BATCHERS = tuple(b for b in rules.BATCHERS if not b.endswith("_join"))


class NotAChain(Exception):
    """Raised with the reason a batcher's chain cannot be rewritten safely."""


@dataclasses.dataclass
class Chain:
    """A queue chain that `--fix` can rewrite into emg.inputs.queues.

    Attributes:
      batch_stmt: the statement that calls the batcher.
      batch_call: the batcher call, e.g. `tf.train.shuffle_batch([image, label], ...)`.
      batcher: its name, e.g. `'shuffle_batch'`.
      tensors: the per-example structure passed to the batcher.
      literal: the list/tuple/dict display `tensors` is (or names).
      source_stmt: `key, value = reader.read(queue)` (or a producer of tensors).
      params: the per-example function's parameters (from the source targets).
      dataset_parts: ('read', queue_expr, reader_expr) or ('dataset', expr).
      renames: (node, new name) pairs: producer and reader constructors.
      moved: statements between source and batcher that become the function.
      kept: the statements between them that do not depend on the records.
    """

    batch_stmt: ast.stmt
    batch_call: ast.Call
    batcher: str
    tensors: ast.expr
    literal: ast.expr
    source_stmt: ast.Assign
    params: list[str]
    dataset_parts: tuple
    renames: list[tuple[ast.AST, str]]
    moved: list[ast.stmt]
    kept: list[ast.stmt]


def _tf_name(table: aliases.AliasTable, call: ast.AST, names) -> str | None:
    """Returns `x` if `call` calls `tf.train.x` / `tf.x` with x in `names`."""
    if not isinstance(call, ast.Call):
        return None
    path = table.resolve_tf(call.func) or ""
    last = path.rsplit(".", 1)[-1]
    if last in names and path in (f"tf.train.{last}", f"tf.{last}", f"tf.io.{last}"):
        return last
    return None


def _arg(call: ast.Call, index: int, keyword: str) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == keyword:
            return kw.value
    return call.args[index] if len(call.args) > index else None


def _assigned_value(block, upto: int, name: str) -> tuple[int, ast.expr]:
    """Returns (index, value) of the last `name = value` in block[:upto]."""
    for index in range(upto - 1, -1, -1):
        stmt = block[index]
        if name in astutil.writes(stmt):
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                if isinstance(stmt.targets[0], ast.Name):
                    return index, stmt.value
            break
    raise NotAChain(
        f"`{name}` is not made by a simple assignment in this block "
        "(the chain crosses functions?)"
    )


def batcher_call(stmt: ast.stmt, table: aliases.AliasTable) -> ast.Call | None:
    """Returns the one queue batcher call in a simple statement, if any."""
    if not isinstance(stmt, ast.Assign | ast.AnnAssign | ast.Expr | ast.Return):
        return None
    calls = [
        n for n in astutil.walk_scope([stmt]) if _tf_name(table, n, rules.BATCHERS)
    ]
    return calls[0] if len(calls) == 1 else None


def _is_source(value: ast.expr, table: aliases.AliasTable) -> bool:
    if not isinstance(value, ast.Call):
        return False
    if _tf_name(table, value, _TENSOR_SOURCES):
        return True
    func = value.func
    if isinstance(func, ast.Attribute) and func.attr == "read":
        return len(value.args) == 1 and not value.keywords
    return isinstance(func, ast.Attribute) and func.attr == "dequeue"


def _find_source(block: list[ast.stmt], index: int, table) -> int:
    for s_idx in range(index - 1, -1, -1):
        stmt = block[s_idx]
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            if _is_source(stmt.value, table):
                return s_idx
    raise NotAChain(
        "no `reader.read(queue)` or tensor producer before the batcher in this "
        "function (a chain split over several functions is rewritten by hand)"
    )


def _params(target: ast.expr, star: bool) -> list[str]:
    if isinstance(target, ast.Name):
        return [("*" if star else "") + target.id]
    if not isinstance(target, ast.Tuple | ast.List) or not all(
        isinstance(e, ast.Name) for e in target.elts
    ):
        raise NotAChain("the source is unpacked into something other than names")
    names = []
    for i, elt in enumerate(target.elts):
        names.append(elt.id if elt.id not in names else f"_unused{i}")
    return names


def _only_use(scope: ast.AST, name: str) -> None:
    if astutil.reads(scope)[name] != 1:
        raise NotAChain(f"`{name}` is used elsewhere, not only by this chain")


def _from_block(block, s_idx, expr, table, scope, names) -> ast.Call:
    """Returns the call that made `expr`: inline, or `name = call` earlier."""
    if isinstance(expr, ast.Name):
        _only_use(scope, expr.id)
        _, expr = _assigned_value(block, s_idx, expr.id)
    if not _tf_name(table, expr, names):
        raise NotAChain(
            f"`{ast.unparse(expr)}` is not one of {', '.join(names)} made in this block"
        )
    return expr


def _read_parts(block, s_idx, table, scope):
    call = block[s_idx].value
    reader = _from_block(block, s_idx, call.func.value, table, scope, rules.READERS)
    queue = _from_block(block, s_idx, call.args[0], table, scope, rules.PRODUCERS)
    renames = [(reader.func, _tf_name(table, reader, rules.READERS))]
    renames.append((queue.func, _tf_name(table, queue, rules.PRODUCERS)))
    return ("read", call.args[0], call.func.value), renames


def _source_parts(block, s_idx, table, scope):
    """Returns (params, dataset_parts, renames) for the source statement."""
    stmt = block[s_idx]
    value = stmt.value
    if _tf_name(table, value, _TENSOR_SOURCES):
        name = _tf_name(table, value, _TENSOR_SOURCES)
        params = _params(stmt.targets[0], star=name == "slice_input_producer")
        return params, ("dataset", value), [(value.func, name)]
    if value.func.attr == "read":
        parts, renames = _read_parts(block, s_idx, table, scope)
        return _params(stmt.targets[0], star=True), parts, renames
    if value.args or value.keywords:
        raise NotAChain("`dequeue` is called with arguments")
    base = _from_block(block, s_idx, value.func.value, table, scope, rules.PRODUCERS)
    renames = [(base.func, _tf_name(table, base, rules.PRODUCERS))]
    return _params(stmt.targets[0], star=False), ("dataset", value.func.value), renames


def _split(stmts: list[ast.stmt], params: list[str]):
    """Splits `stmts` into those that depend on the records and the rest."""
    tainted = {p.lstrip("*") for p in params}
    moved, kept, read = [], [], set()
    for stmt in stmts:
        if (set(astutil.reads(stmt)) | astutil.writes(stmt)) & tainted:
            moved.append(stmt)
            tainted |= astutil.writes(stmt)
            read |= set(astutil.reads(stmt))
        elif astutil.writes(stmt) & read:
            name = sorted(astutil.writes(stmt) & read)[0]
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


def _check_mappable(nodes: list[ast.AST], params: list[str], table) -> None:
    """Raises NotAChain if `nodes` cannot run as the body of a map function."""
    local = {p.lstrip("*") for p in params}
    assigned = set().union(*(astutil.writes(n) for n in nodes))
    for stmt in nodes:
        for node in ast.walk(stmt):
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
        early = set(astutil.reads(stmt)) & (assigned - local)
        if early:
            raise NotAChain(
                f"line {stmt.lineno}: `{sorted(early)[0]}` is read before the per-example code assigns it"
            )
        local |= astutil.writes(stmt)


def _check_escapes(scope, moved, tensors, call, tainted) -> None:
    """Raises NotAChain if a per-example name is used outside the chain."""
    inside = astutil.reads(tensors)
    for stmt in moved:
        inside.update(astutil.reads(stmt))
    total = astutil.reads(scope)
    for name in sorted(tainted):
        if total[name] > inside[name]:
            raise NotAChain(f"`{name}` is also used outside the per-example code")
    others = [a for a in call.args[1:]] + [
        k.value for k in call.keywords if k.arg != "tensors"
    ]
    for arg in others:
        if set(astutil.reads(arg)) & tainted:
            raise NotAChain(
                f"batcher argument `{ast.unparse(arg)}` depends on the example"
            )


def recognise(block, index, scope, table: aliases.AliasTable) -> Chain:
    """Returns the chain ending in the batcher call of `block[index]`.

    Raises:
      NotAChain: with the reason, if it cannot be rewritten safely.
    """
    stmt = block[index]
    call = batcher_call(stmt, table)
    batcher = _tf_name(table, call, _BATCHERS)
    if batcher is None:
        raise NotAChain("`*_join` batchers combine several readers; rewrite by hand")
    tensors = _arg(call, 0, "tensors")
    s_idx = _find_source(block, index, table)
    params, parts, renames = _source_parts(block, s_idx, table, scope)
    moved, kept, tainted = _split(block[s_idx + 1 : index], params)
    _check_mappable(moved + [tensors], params, table)
    _check_escapes(scope, moved, tensors, call, tainted)
    literal = _literal(tensors, moved)
    return Chain(
        stmt,
        call,
        batcher,
        tensors,
        literal,
        block[s_idx],
        params,
        parts,
        renames,
        moved,
        kept,
    )


def _literal(tensors: ast.expr | None, moved: list[ast.stmt]) -> ast.expr:
    """Returns the list/tuple/dict display that `tensors` is (or is a name for)."""
    if isinstance(tensors, ast.Name):
        for stmt in reversed(moved):
            if tensors.id in astutil.writes(stmt):
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                    tensors = (
                        stmt.value if isinstance(stmt.targets[0], ast.Name) else None
                    )
                break
    if not isinstance(tensors, ast.List | ast.Tuple | ast.Dict):
        raise NotAChain("the batched tensors are not a list, tuple or dict display")
    return tensors


def find(tree: ast.Module, table: aliases.AliasTable):
    """Returns (chains, refusals): refusals are (batcher call, reason) pairs."""
    chains, refusals = [], []
    for scope in astutil.scopes(tree):
        for block in astutil.blocks(scope):
            for index, stmt in enumerate(block):
                call = batcher_call(stmt, table)
                if call is None:
                    continue
                try:
                    chains.append(recognise(block, index, scope, table))
                except NotAChain as reason:
                    refusals.append((call, str(reason)))
    return chains, refusals
