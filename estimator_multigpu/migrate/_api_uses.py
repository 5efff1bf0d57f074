"""The one visitor: every use of a name the API spec's tables list, matched in one walk.

`uses(m)` walks the module once (`_astutil.walk`'s order), resolves each
name and attribute chain through the module's alias table (imports,
`x = tf.compat.v1`, the TF names of a star import), and matches it against
every table of `_api_spec.SPEC` at once, and each import against the
tables of module paths and symbols. The rule that owns a table reads its
matches (`Uses`) for its findings and edits; none walks the tree for them.
The matches are kept on the tree, as `_engine.Module.table` keeps the
aliases, so a scan and the rewrite of the same tree share them.
"""

from __future__ import annotations

import ast
import dataclasses

from estimator_multigpu.migrate import _aliases, _astutil, _rules
from estimator_multigpu.migrate._api_spec import SPEC


@dataclasses.dataclass(frozen=True)
class SymbolUse:
    """A read of a `symbols` row: the outermost node of its name chain, its
    canonical API, the row's key (`prefix`) and the row."""

    node: ast.expr
    api: str
    prefix: str
    rule: _rules.Rule


@dataclasses.dataclass(frozen=True)
class SymbolImport:
    """An import of a `symbols` row: the statement, the canonical API, the
    row and the name the statement binds (`'*'` for a star import)."""

    node: ast.Import | ast.ImportFrom
    api: str
    rule: _rules.Rule
    name: str


@dataclasses.dataclass(frozen=True)
class V1Use:
    """The outermost name chain of a read that reaches TensorFlow other than
    through `tf.compat` (`tf.train.AdamOptimizer(...)`), with its matches of
    the compat.v1 tables: the `v1_only` prefix, the `v2_only` prefix (looked
    up when there is no `v1_only` one), and whether the call around it
    passes TF 1.x's arguments (`v1_signatures`, when there is no `v1_only`
    prefix)."""

    node: ast.Attribute
    api: str
    v1: str | None
    v2: str | None
    v1_call: bool


@dataclasses.dataclass
class Uses:
    """What one module uses of each table, each list in walk order.

    Attributes:
      symbols: the reads of a `symbols` row; the names inside a matched
        chain are not matched again (`tf.estimator.ModeKeys.TRAIN` is one).
      symbol_imports: the names an import binds to a `symbols` row.
      tf0: (attribute, API) for each read of a `tf0_renames` row.
      numpy: each `np.<removed name>` read, its base a name bound to numpy.
      numpy_imports: (import, name) for each removed name imported from numpy.
      numpy_assigned: the removed names the module assigns on numpy itself.
      contrib_imports: the imports of a `contrib_modules` path (or its names).
      scipy: each read of a `scipy_paths` path (a name or attribute chain).
      scipy_imports: the imports of a `scipy_paths` path (or from one).
      python2: (node, module) for each `import X` alias and `from X import`
        of a `python2_modules` row.
      private: (node, API) for each read of a private-path row
        (`private_names`, `private_unexported`): every name or attribute
        chain, the outer and the inner both when both are rows.
      stored: the names a `Name` node assigns or deletes.
      v1: each outermost bare TensorFlow chain a compat.v1 table matches.
    """

    symbols: list[SymbolUse] = dataclasses.field(default_factory=list)
    symbol_imports: list[SymbolImport] = dataclasses.field(default_factory=list)
    tf0: list[tuple[ast.Attribute, str]] = dataclasses.field(default_factory=list)
    numpy: list[ast.Attribute] = dataclasses.field(default_factory=list)
    numpy_imports: list[tuple[ast.ImportFrom, str]] = dataclasses.field(
        default_factory=list
    )
    numpy_assigned: set[str] = dataclasses.field(default_factory=set)
    contrib_imports: list[ast.stmt] = dataclasses.field(default_factory=list)
    scipy: list[ast.expr] = dataclasses.field(default_factory=list)
    scipy_imports: list[ast.stmt] = dataclasses.field(default_factory=list)
    python2: list[tuple[ast.AST, str]] = dataclasses.field(default_factory=list)
    private: list[tuple[ast.expr, str]] = dataclasses.field(default_factory=list)
    stored: set[str] = dataclasses.field(default_factory=set)
    v1: list[V1Use] = dataclasses.field(default_factory=list)
    _paths: dict[int, str | None] = dataclasses.field(default_factory=dict)
    _outer: dict[int, ast.expr] = dataclasses.field(default_factory=dict)

    def path(self, node: ast.AST) -> str | None:
        """The full dotted path `node` names (`AliasTable.resolve`), found once."""
        return self._paths.get(id(node))

    def outer(self, node: ast.AST) -> ast.expr | None:
        """The expression `node` heads: the attribute or subscript whose value
        it is, the call whose function it is, or the power whose base it is."""
        return self._outer.get(id(node))

    def call(self, node: ast.AST) -> ast.Call | None:
        """The call whose function is `node`, if any."""
        found = self._outer.get(id(node))
        return found if type(found) is ast.Call else None

    def attribute(self, node: ast.AST) -> ast.Attribute | None:
        """The attribute read whose value is `node`, if any."""
        found = self._outer.get(id(node))
        return found if type(found) is ast.Attribute else None


def uses(tree: ast.Module, table: _aliases.AliasTable) -> Uses:
    """The module's matches of every table (one walk per tree, kept on it).

    Args:
      tree: the module (never changed in place: rewrites are text edits).
      table: its aliases (`_engine.Module.table`).
    """
    found = tree.__dict__.get(_USES)
    if found is None:
        found = _Visitor(table).visit(tree)
        setattr(tree, _USES, found)
    return found


_USES = "_emg_api_uses"
_PRIVATE = ("tf.python.", "tf.core.")  # the private-path tables' roots
_BARE, _COMPAT = "tensorflow.", "tensorflow.compat"  # the compat.v1 tables' reads


class _Visitor:
    """One walk: each node matched against every table that keys its kind."""

    def __init__(self, table: _aliases.AliasTable):
        self.bindings = table.bindings
        self.assigned = table.assigned
        self.out = Uses()
        self.inside: set[int] = set()  # the names inside a matched symbol chain
        self.chained: set[int] = set()  # the names inside a bare TF chain

    def visit(self, tree: ast.Module) -> Uses:
        for node in _astutil.walk(tree):
            kind = type(node)
            if kind is ast.Attribute:
                self._outer(node.value, node)
                self._attribute(node)
            elif kind is ast.Name:
                self._name(node)
            elif kind is ast.Call:
                self._outer(node.func, node)
            elif kind is ast.Subscript:
                self._outer(node.value, node)
            elif kind is ast.BinOp and type(node.op) is ast.Pow:
                self._outer(node.left, node)
            elif kind is ast.Import or kind is ast.ImportFrom:
                self._import(node)
        return self.out

    def _outer(self, node: ast.expr, outer: ast.expr) -> None:
        self.out._outer[id(node)] = outer

    def _path(self, node: ast.AST) -> str | None:
        paths = self.out._paths
        key = id(node)
        if key not in paths:
            kind = type(node)
            if kind is ast.Name:
                paths[key] = self.bindings.get(node.id)
            elif kind is ast.Attribute:
                base = self._path(node.value)
                paths[key] = f"{base}.{node.attr}" if base else None
            else:
                paths[key] = None
        return paths[key]

    def _name(self, node: ast.Name) -> None:
        load = type(node.ctx) is ast.Load
        if not load:
            self.out.stored.add(node.id)
        path = self._path(node)
        if path is None:
            return
        if load and id(node) not in self.inside:
            self._symbol(node, path)
        if load and path in SPEC.scipy_paths:
            self.out.scipy.append(node)
        if load:
            self._private(node, path)

    def _attribute(self, node: ast.Attribute) -> None:
        load = type(node.ctx) is ast.Load
        self._numpy(node, load)
        path = self._path(node)
        if path is None:
            return
        if id(node) in self.inside:
            self.inside.add(id(node.value))
        elif load and self._symbol(node, path):
            self.inside.add(id(node.value))
        if load:
            api = _aliases.canonical(path)
            if api in SPEC.tf0_renames:
                self.out.tf0.append((node, api))
            if path in SPEC.scipy_paths:
                self.out.scipy.append(node)
            self._private(node, path)
            if path.startswith(_BARE) and not path.startswith(_COMPAT):
                self._bare(node, api)

    def _bare(self, node: ast.Attribute, api: str) -> None:
        """Matches the outermost chain of a bare TensorFlow read against the
        compat.v1 tables (the names inside it are prefixes: no other match)."""
        self.chained.add(id(node.value))
        if id(node) in self.chained:
            return
        v1 = SPEC.v1_prefix(api)
        v2 = None if v1 else SPEC.v2_prefix(api)
        call = None if v1 else self.out.call(node)
        v1_call = call is not None and SPEC.v1_call(api, call)
        if v1 or v2 or v1_call:
            self.out.v1.append(V1Use(node, api, v1, v2, v1_call))

    def _private(self, node: ast.expr, path: str) -> None:
        api = _aliases.canonical(path)
        if api and api.startswith(_PRIVATE) and SPEC.private(api):
            self.out.private.append((node, api))

    def _symbol(self, node: ast.expr, path: str) -> bool:
        """Records a read of a `symbols` row; True when `node` is one."""
        api = _aliases.canonical(path)
        hit = _rules.lookup(api) if api else None
        if hit is None:
            return False
        self.out.symbols.append(SymbolUse(node, api, *hit))
        return True

    def _numpy(self, node: ast.Attribute, load: bool) -> None:
        base = node.value
        if type(base) is not ast.Name or self.bindings.get(base.id) != "numpy":
            return
        if not load:
            self.out.numpy_assigned.add(node.attr)
        elif SPEC.numpy_removed(node.attr):
            self.out.numpy.append(node)

    def _import(self, node: ast.Import | ast.ImportFrom) -> None:
        for path, name in _import_pairs(node):
            api = _aliases.canonical(path)
            hit = _rules.lookup(api) if api else None
            if hit:
                self.out.symbol_imports.append(SymbolImport(node, api, hit[1], name))
        if _contrib_module(node):
            self.out.contrib_imports.append(node)
        if _scipy_module(node):
            self.out.scipy_imports.append(node)
        if type(node) is ast.Import:
            self.out.python2 += [
                (a, a.name) for a in node.names if a.name in SPEC.python2_modules
            ]
            return
        if node.level == 0 and node.module in SPEC.python2_modules:
            self.out.python2.append((node, node.module))
        if node.module == "numpy" and node.level == 0:
            self.out.numpy_imports += [
                (node, a.name) for a in node.names if SPEC.numpy_removed(a.name)
            ]


def _import_pairs(node: ast.Import | ast.ImportFrom) -> list[tuple[str, str]]:
    """(imported path, local name) for each name an import binds ('*': all)."""
    if isinstance(node, ast.ImportFrom) and node.module and not node.level:
        pairs = [(f"{node.module}.{a.name}", a.asname or a.name) for a in node.names]
        return [(node.module, "*") if name == "*" else (p, name) for p, name in pairs]
    if isinstance(node, ast.Import):
        return [(a.name, a.asname or a.name.split(".")[0]) for a in node.names]
    return []


def _contrib_module(stmt: ast.Import | ast.ImportFrom) -> bool:
    """True for an import of a `contrib_modules` path (or of its names)."""
    modules = SPEC.contrib_modules
    if isinstance(stmt, ast.Import):
        return any(a.name in modules for a in stmt.names)
    return not stmt.level and (
        stmt.module in modules
        or any(f"{stmt.module}.{a.name}" in modules for a in stmt.names)
    )


def _scipy_module(stmt: ast.Import | ast.ImportFrom) -> bool:
    """True for an import of a `scipy_paths` path (or from one)."""
    paths = SPEC.scipy_paths
    if isinstance(stmt, ast.Import):
        return any(a.name in paths for a in stmt.names)
    return (
        stmt.level == 0
        and bool(stmt.module)
        and (
            stmt.module in paths
            or any(f"{stmt.module}.{a.name}" in paths for a in stmt.names)
        )
    )
