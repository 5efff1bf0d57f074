"""Recognises reader helpers: `def read_and_decode(filename_queue): ... reader.read(filename_queue) ...`."""

from __future__ import annotations

import ast
import dataclasses

from estimator_multigpu.migrate import (
    _aliases,
    _astutil,
    _dataflow,
    _rules,
    _sources,
)
from estimator_multigpu.migrate._calls import tf_name


class NotAReader(_dataflow.NotAChain):
    """Raised for a function that reads no parameter with `reader.read`."""


@dataclasses.dataclass
class ReaderHelper:
    """A module-level function that reads and decodes one record from a queue.

    `--fix` turns it into a function that returns a Dataset of decoded
    examples (`queues.read(queue, reader).map(decode)`), so its callers treat
    it as the source of their chain.

    Attributes:
      func: the function.
      queue_param: the parameter that receives the filename queue.
      queue_index: its position (for positional calls).
      read_stmt: `key, value = reader.read(queue_param)`.
      reader: the reader expression (a name or an inline constructor call).
      params: the decode function's parameters (the read targets).
      renames: (node, new name): the reader constructor.
      moved: statements after the read that decode the record.
      kept: statements after the read that do not depend on it.
      ret: the final `return`.
      literal: the tuple/list/dict display returned, or None if opaque.
    """

    func: ast.FunctionDef
    queue_param: str
    queue_index: int
    read_stmt: ast.Assign
    reader: ast.expr
    params: list[str]
    renames: list
    moved: list[ast.stmt]
    kept: list[ast.stmt]
    ret: ast.Return
    literal: ast.expr | None


def _read_index(func: ast.FunctionDef, names: list[str]) -> int:
    for index, stmt in enumerate(func.body):
        value = getattr(stmt, "value", None)
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and value.func.attr == "read"
            and len(value.args) == 1
            and not value.keywords
            and isinstance(value.args[0], ast.Name)
            and value.args[0].id in names
        ):
            return index
    raise NotAReader(f"`{func.name}` reads no parameter with `reader.read`")


def _returned_literal(ret: ast.expr, moved: list[ast.stmt]) -> ast.expr | None:
    try:
        return _dataflow.literal_of(ret, moved)
    except _dataflow.NotAChain:
        return None


def recognise(func: ast.FunctionDef, table: _aliases.AliasTable) -> ReaderHelper:
    """Returns the helper `func` is.

    Raises:
      dataflow.NotAChain: if `func` is not a straight-line reader helper.
    """
    names = [a.arg for a in func.args.posonlyargs + func.args.args]
    ret = func.body[-1]
    returns = [n for n in _astutil.walk_scope(func.body) if isinstance(n, ast.Return)]
    if func.decorator_list or not isinstance(ret, ast.Return) or ret.value is None:
        raise _dataflow.NotAChain(f"`{func.name}` does not end in `return <value>`")
    if returns != [ret]:
        raise _dataflow.NotAChain(f"`{func.name}` returns from more than one place")
    index = _read_index(func, names)
    stmt = func.body[index]
    queue = stmt.value.args[0].id
    _sources.only_use(func, queue)
    reader_expr = stmt.value.func.value
    reader = _sources.from_block(
        func.body, index, reader_expr, table, func, _rules.READERS
    )
    params = _sources.params_of(stmt.targets[0], star=True)
    moved, kept, _ = _dataflow.split(func.body[index + 1 : -1], params)
    _dataflow.check_mappable(moved + [ret.value], params, table)
    renames = [(reader.func, tf_name(table, reader, _rules.READERS))]
    literal = _returned_literal(ret.value, moved)
    return ReaderHelper(
        func,
        queue,
        names.index(queue),
        stmt,
        reader_expr,
        params,
        renames,
        moved,
        kept,
        ret,
        literal,
    )


def find(tree: ast.Module, table: _aliases.AliasTable):
    """Returns (helpers, failed): reader helpers by name, and for functions
    that read a queue parameter but cannot be rewritten, the reason."""
    out, failed = {}, {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            try:
                out[node.name] = recognise(node, table)
            except NotAReader:
                continue  # not a reader helper at all: nothing to report
            except _dataflow.NotAChain as reason:
                failed[node.name] = str(reason)
    return out, failed
