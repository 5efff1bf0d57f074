"""Record objects (`result = ImageRecord(); result.label = ...; return result`) flattened to names.

A TF1 reader helper of this shape returns an empty-class instance whose attributes
hold the decoded fields. Flattened, the reader returns the fields its callers
read and the callers unpack them, which is the reader-helper shape that the
queue-chain rewrite already takes over.
"""

from __future__ import annotations

import ast
import dataclasses

from estimator_multigpu.migrate import _astutil
from estimator_multigpu.migrate._edits import Edit, Offsets
from estimator_multigpu.migrate._kept_comments import apply_keeping_comments


class NotARecord(Exception):
    """The function or one of its callers does not have the plain shape."""


@dataclasses.dataclass
class Record:
    """A reader function returning a record object, and its callers.

    Attributes:
      func: the function.
      cls: the empty local class.
      make: `result = Cls()`.
      name: the record's name in `func` (`result`).
      fields: the attributes the callers read, in the order `func` sets them.
      attrs: the `name.attr` nodes in `func`.
      callers: (`read_input = func(...)`, the name, its attribute nodes).
    """

    func: ast.FunctionDef
    cls: ast.ClassDef
    make: ast.Assign
    name: str
    fields: list[str]
    attrs: list[ast.Attribute]
    callers: list


def _empty_class(stmt: ast.stmt) -> bool:
    body = [
        s
        for s in getattr(stmt, "body", [])
        if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
    ]
    return isinstance(stmt, ast.ClassDef) and all(isinstance(s, ast.Pass) for s in body)


def _name_call(stmt) -> tuple[str, str] | None:
    """`(target, callee)` for `target = callee(...)`, both plain names; else None."""
    if (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
        and isinstance(stmt.value, ast.Call)
        and isinstance(stmt.value.func, ast.Name)
    ):
        return stmt.targets[0].id, stmt.value.func.id
    return None


def _made(func: ast.FunctionDef) -> tuple[ast.ClassDef, ast.Assign, str]:
    classes = {s.name: s for s in func.body if _empty_class(s)}
    for stmt in func.body:
        found = _name_call(stmt)
        if (
            found
            and found[1] in classes
            and not stmt.value.args
            and not stmt.value.keywords
        ):
            return classes[found[1]], stmt, found[0]
    raise NotARecord(f"`{func.name}` makes no empty-class record")


def _name_uses(nodes) -> dict[str, tuple[list, list]]:
    """Per name under `nodes`: its `name.attr` nodes and its `Name` nodes, in walk order."""
    uses: dict[str, tuple[list, list]] = {}
    for node in _astutil.walk_scope(nodes):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            uses.setdefault(node.value.id, ([], []))[0].append(node)
        elif isinstance(node, ast.Name):
            uses.setdefault(node.id, ([], []))[1].append(node)
    return uses


def _attributes(uses: dict, name: str, allowed: set[int]) -> list[ast.Attribute]:
    """The `name.attr` nodes in `uses`; any other use of `name` is refused."""
    attrs, names = uses.get(name, ([], []))
    inside = {id(a.value) for a in attrs}
    for node in names:
        if id(node) not in inside and id(node) not in allowed:
            raise NotARecord(f"line {node.lineno} uses `{name}` as a whole")
    return attrs


class _Calls:
    """The module's `target = callee(...)` statements by callee, indexed once.

    Each record candidate looks its callers up here instead of walking the
    whole module again (which made the scan quadratic in the functions).
    """

    def __init__(self, tree: ast.Module):
        self._tree = tree
        self._by_callee: dict[str, list] | None = None
        self._uses: dict[int, dict] = {}
        self.reads = None

    def of(self, callee: str) -> list:
        """(scope, statement) for each `target = callee(...)`, in scan order."""
        if self._by_callee is None:
            self._by_callee = {}
            self.reads = _astutil.reads(self._tree)
            for scope in _astutil.scopes(self._tree):
                for block in _astutil.blocks(scope):
                    self._add(scope, block)
        return self._by_callee.get(callee, [])

    def _add(self, scope: ast.AST, block: list[ast.stmt]) -> None:
        for stmt in block:
            found = _name_call(stmt)
            if found:
                self._by_callee.setdefault(found[1], []).append((scope, stmt))

    def uses(self, scope: ast.AST) -> dict:
        """`_name_uses` of `scope`'s body, computed once per scope."""
        if id(scope) not in self._uses:
            self._uses[id(scope)] = _name_uses(scope.body)
        return self._uses[id(scope)]


def _callers(calls: _Calls, func: ast.FunctionDef) -> list:
    out = []
    for scope, stmt in calls.of(func.name):
        name = stmt.targets[0].id
        allowed = {id(stmt.targets[0])}
        out.append((stmt, name, _attributes(calls.uses(scope), name, allowed)))
    if not out or calls.reads[func.name] != len(out):
        raise NotARecord(f"`{func.name}` is also called in other ways")
    return out


def recognise(tree: ast.Module, func: ast.FunctionDef, calls=None) -> Record:
    """The record function `func` is.

    `calls` is the module's `_Calls` index (built here if not given).

    Raises:
      NotARecord: if it (or a caller) is not the plain shape.
    """
    cls, make, name = _made(func)
    ret = func.body[-1]
    if not (isinstance(ret, ast.Return) and isinstance(ret.value, ast.Name)):
        raise NotARecord(f"`{func.name}` does not end in `return {name}`")
    if ret.value.id != name:
        raise NotARecord(f"`{func.name}` does not end in `return {name}`")
    allowed = {id(make.targets[0]), id(ret.value)}
    attrs = _attributes(_name_uses(func.body), name, allowed)
    order = [a.attr for a in attrs if isinstance(a.ctx, ast.Store)]
    callers = _callers(calls or _Calls(tree), func)
    read = {a.attr for _, _, found in callers for a in found}
    if not read <= set(order):
        raise NotARecord(f"callers read fields `{func.name}` never sets")
    fields = [f for i, f in enumerate(order) if f in read and f not in order[:i]]
    if not fields:
        raise NotARecord(f"no caller reads a field of `{func.name}`'s record")
    return Record(func, cls, make, name, fields, attrs, callers)


def find(tree: ast.Module) -> list[Record]:
    """The record functions at module level that flatten safely."""
    out, calls = [], _Calls(tree)
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef):
            try:
                out.append(recognise(tree, stmt, calls))
            except NotARecord:
                continue
    return out


def _flat(name: str, attr: str, taken: set[str], chosen: dict) -> str:
    key = (name, attr)
    if key not in chosen:
        chosen[key] = _astutil.unique(f"{name}_{attr}", taken)
    return chosen[key]


def _pack(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names)


def edits(tree: ast.Module, off: Offsets, record: Record, taken: set[str]) -> list:
    """Text edits that flatten `record` and its callers."""
    chosen: dict = {}
    end = record.cls.end_lineno
    while end < record.make.lineno - 1 and not off.lines[end].strip():
        end += 1  # the blank lines after the class go with it
    out = [
        Edit(off.line_start(record.cls.lineno), off.line_end(end), ""),
        Edit(
            off.line_start(record.make.lineno), off.line_end(record.make.end_lineno), ""
        ),
    ]
    for attr in record.attrs:
        out.append(off.replace(attr, _flat(record.name, attr.attr, taken, chosen)))
    fields = [_flat(record.name, f, taken, chosen) for f in record.fields]
    out.append(off.replace(record.func.body[-1].value, _pack(fields)))
    for stmt, name, attrs in record.callers:
        names = [_flat(name, f, taken, chosen) for f in record.fields]
        out.append(off.replace(stmt.targets[0], _pack(names)))
        out += [off.replace(a, _flat(name, a.attr, taken, chosen)) for a in attrs]
    return out


def flatten(source: str, tree: ast.Module) -> str | None:
    """`source` with every record object flattened, or None if there is none."""
    found = find(tree)
    if not found:
        return None
    off = Offsets(source)
    taken = _astutil.writes(tree) | set(_astutil.reads(tree))
    out = []
    for record in found:
        if all(_alone(off, s) for s in (record.cls, record.make)):
            out += edits(tree, off, record, taken)
    return apply_keeping_comments(source, out) if out else None


def _alone(off: Offsets, stmt: ast.stmt) -> bool:
    before = off.lines[stmt.lineno - 1].encode()[: stmt.col_offset]
    after = off.lines[stmt.end_lineno - 1].encode()[stmt.end_col_offset :].strip()
    return not before.strip() and (not after or after.startswith(b"#"))
