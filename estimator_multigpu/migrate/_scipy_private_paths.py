"""SciPy's private module paths, onto the public namespace that holds the
same objects.

TF 1.x-era code imported SciPy's functions from the modules that defined
them: `from scipy.sparse.linalg.eigen.arpack import eigsh`,
`scipy.ndimage.filters.gaussian_filter`, `from scipy.signal.signaltools
import convolve`, `from scipy.ndimage import morphology`. SciPy 1.8 made
those modules private: the `scipy.sparse.linalg` sub-packages are gone
(ModuleNotFoundError at the import) and the other paths are stubs that warn
and go in SciPy 2.0. `_scipy_private_table.PATHS` (the spec's
`scipy_paths`, matched by the one visitor, `_api_uses`) names, per private path,
its public namespace and the names the two share (the same objects), and
each spelling is written onto the public path:

- `from P import a, b as c` -> `from PUBLIC import a, b as c` (a name the
  public namespace lacks stays on `from P import ...`, on a line of its own);
- `import P as x` and `from PARENT import p as x` -> `import PUBLIC as x`,
  when every read of `x` is `x.<a shared name>`;
- `scipy.ndimage.filters.gaussian_filter` -> `scipy.ndimage.gaussian_filter`
  (and through any name bound to a module above the public one), and
  `import P` -> `import PUBLIC` once every read through it was rewritten.

What cannot be (a name no public namespace holds, a private module used as
a value, `from P import *`) is reported with the public path.
"""

from __future__ import annotations

import ast
import dataclasses
import re

from estimator_multigpu.migrate import _astutil
from estimator_multigpu.migrate._api_spec import SPEC
from estimator_multigpu.migrate._edits import Edit, place
from estimator_multigpu.migrate._engine import Module, ProgramContext
from estimator_multigpu.migrate._finding import Finding, at
from estimator_multigpu.migrate._guide_rules import rule

RULE_ID = "scipy-private-paths"
ANCHOR = "scipy-private-paths"


def public(path: str) -> str:
    """The public namespace of the private module `path`."""
    return SPEC.scipy_paths[path][0]


def shared(path: str, name: str) -> bool:
    """Whether `name` of the private module `path` is its public namespace's."""
    return path in SPEC.scipy_paths and name in SPEC.scipy_paths[path][1]


def _rule(path: str, name: str, why: str):
    where = public(path)
    if not why:
        return rule(
            RULE_ID,
            f"{path} is a private SciPy module (gone, or a stub SciPy 2.0 "
            "removes; the import fails or warns)",
            f"{where}.{name} (the same object; emg-migrate --fix writes it)"
            if name
            else f"{where} (the same objects; emg-migrate --fix writes it)",
            ANCHOR,
            fixable=True,
        )
    return rule(
        RULE_ID,
        f"{path} is a private SciPy module (gone, or a stub SciPy 2.0 removes)",
        f"import from {where} by hand ({why})",
        ANCHOR,
        fixable=False,
    )


@dataclasses.dataclass
class _Use:
    """A read of a private module: the node to rewrite, the node naming the
    module, its path, the name it reads (None: the module used as a value),
    the text it becomes and why it cannot be rewritten here ('' when it can)."""

    node: ast.AST
    base: ast.AST
    path: str
    name: str | None
    text: str = ""
    why: str = ""

    @property
    def via_alias(self) -> bool:
        """Whether it reads a name bound to the private module itself (its
        import's finding covers it)."""
        return isinstance(self.base, ast.Name)


class _Scan:
    """The module's private SciPy paths: its reads and its imports."""

    def __init__(self, m: Module):
        self.m = m
        self.table = m.table
        self.found = m.uses
        self.uses = [u for n in self.found.scipy if (u := self._use(n))]

    def _use(self, node: ast.expr) -> _Use | None:
        """The read `node` (of a private path, the visitor's match) makes."""
        path = self.found.path(node)
        parent = self.found.attribute(node)
        if parent is None:
            return _Use(node, node, path, None, why="the module itself read as a value")
        if (
            self.found.path(parent) in SPEC.scipy_paths
        ):  # the longer private path is the use
            return None
        if not shared(path, parent.attr):
            return _Use(parent, node, path, parent.attr, why=_lacks(parent.attr))
        if isinstance(node, ast.Name):  # its import is bound to the public one
            return _Use(parent, node, path, parent.attr)
        text = self._spelled(node, path)
        why = "" if text else "read through a name bound to no module above it"
        return _Use(parent, node, path, parent.attr, text, why)

    def _spelled(self, node: ast.AST, path: str) -> str:
        """`<root>.<public path past it>.` for a chain read through a name
        bound to a module the public one is in ('' otherwise)."""
        root = node
        while isinstance(root, ast.Attribute):
            root = root.value
        bound, where = self.table.bindings[root.id], public(path)
        if where != bound and not where.startswith(bound + "."):
            return ""
        return root.id + where[len(bound) :] + "."

    def rebindable(self, name: str) -> str:
        """Why the name bound to a private module cannot be bound to its
        public namespace instead ('' when it can)."""
        if name in self.found.stored:
            return f"{name} is assigned"
        reads = _astutil.reads(self.m.tree)[name]
        through = [
            u
            for u in self.uses
            if isinstance(u.base, ast.Name) and u.base.id == name and not u.why
        ]
        if len(through) != reads:
            return f"{name} is read other than by a name its public module has"
        return ""

    def left(self, path: str) -> bool:
        """Whether a read of `path` (or a path under it) through `scipy`
        stays as it is."""
        return any(
            not u.text
            and not u.via_alias
            and (u.path == path or u.path.startswith(path + "."))
            for u in self.uses
        )


def _finding(m: Module, node: ast.AST, path: str, name: str, why: str) -> Finding:
    api = f"{path}.{name}" if name else path
    return at(m, node, api, m.off.segment(node) or api, _rule(path, name, why))


def _from_findings(m: Module, scan: _Scan, stmt: ast.ImportFrom) -> list[Finding]:
    out = []
    for alias in stmt.names:
        bound = f"{stmt.module}.{alias.name}"
        if bound in SPEC.scipy_paths:  # from scipy.ndimage import filters
            why = scan.rebindable(alias.asname or alias.name)
            out.append(_finding(m, alias, bound, "", why))
        elif stmt.module in SPEC.scipy_paths:
            why = "" if shared(stmt.module, alias.name) else _lacks(alias.name)
            out.append(_finding(m, alias, stmt.module, alias.name, why))
    return out


def _lacks(name: str) -> str:
    if name == "*":
        return "a star import: import each name the file uses"
    return f"the public namespace has no {name} of the same object"


def _import_findings(m: Module, scan: _Scan, stmt: ast.Import) -> list[Finding]:
    out = []
    for alias in stmt.names:
        if alias.name not in SPEC.scipy_paths:
            continue
        if alias.asname:
            why = scan.rebindable(alias.asname)
        else:
            why = "a read through it stays" if scan.left(alias.name) else ""
        out.append(_finding(m, alias, alias.name, "", why))
    return out


def _use_findings(m: Module, scan: _Scan) -> list[Finding]:
    """A finding per chain read through `scipy` (or a module above)."""
    out = []
    for u in scan.uses:
        if u.via_alias:
            continue
        out.append(_finding(m, u.node, u.path, u.name or "", u.why))
    return out


def find(m: Module, ctx: ProgramContext) -> list:
    """The findings so far plus one per private SciPy path imported or read."""
    del ctx
    out = list(m.findings)
    if not m.uses.scipy and not m.uses.scipy_imports:
        return out
    scan = _Scan(m)
    for node in m.uses.scipy_imports:
        if isinstance(node, ast.ImportFrom):
            out.extend(_from_findings(m, scan, node))
        else:
            out.extend(_import_findings(m, scan, node))
    out.extend(_use_findings(m, scan))
    return out


def _alone(m: Module, stmt: ast.stmt) -> bool:
    """Whether `stmt` has its lines to itself (a comment may follow it)."""
    start, end = m.off.span(stmt)
    before = m.off.source[m.off.line_start(stmt.lineno) : start]
    after = m.off.source[end : m.off.line_end(stmt.end_lineno)].strip()
    return not before.strip() and (not after or after.startswith("#"))


def _from_lines(stmt: ast.ImportFrom, fixed: set[int]) -> list[str]:
    """`stmt` written again with its fixed aliases on the public paths."""
    kept, moved, lines = [], [], []
    for alias in stmt.names:
        bound = f"{stmt.module}.{alias.name}"
        if id(alias) not in fixed:
            kept.append(alias)
        elif bound in SPEC.scipy_paths:
            name = alias.asname or alias.name
            lines.append(f"import {public(bound)} as {name}")
        else:
            moved.append(alias)
    head = [ast.ImportFrom(module=stmt.module, names=kept, level=0)] if kept else []
    if moved:
        head.append(ast.ImportFrom(module=public(stmt.module), names=moved, level=0))
    return [ast.unparse(n) for n in head] + lines


def _from_edit(m: Module, stmt: ast.ImportFrom, fixed: set[int]) -> Edit | None:
    if all(id(a) in fixed for a in stmt.names) and not any(
        f"{stmt.module}.{a.name}" in SPEC.scipy_paths for a in stmt.names
    ):  # the module path alone changes: the statement may share its line
        start, end = m.off.span(stmt)
        match = re.match(r"from\s+([\w.\s\\]+?)\s+import\b", m.off.source[start:end])
        if match is None:
            return None
        return Edit(start + match.start(1), start + match.end(1), public(stmt.module))
    start, end = m.off.span(stmt)
    if not _alone(m, stmt) or "#" in m.off.source[start:end]:
        return None  # written again whole, it would lose a comment inside it
    indent = m.off.lines[stmt.lineno - 1][: stmt.col_offset]
    text = (m.off.newline + indent).join(_from_lines(stmt, fixed))
    return m.off.replace(stmt, text)


def _alias_edit(m: Module, alias: ast.alias) -> Edit:
    new = public(alias.name)
    return m.off.replace(alias, f"{new} as {alias.asname}" if alias.asname else new)


def _ours(m: Module) -> list[Finding]:
    return [
        f
        for f in m.findings
        if f.rule.rule_id == RULE_ID and f.rule.fixable and not f.fixed
    ]


def _from_plans(m: Module, by_node: dict) -> list[tuple[Edit | None, list]]:
    """Each `from ... import` statement's rewrite, with its findings."""
    plans = []
    for node in m.uses.scipy_imports:
        if isinstance(node, ast.ImportFrom):
            fs = [by_node[id(a)] for a in node.names if id(a) in by_node]
            if fs:
                plans.append((_from_edit(m, node, {id(f.node) for f in fs}), fs))
    return plans


def _planned(m: Module, ours: list[Finding]) -> list[tuple[Edit, list[Finding]]]:
    """Each edit with the findings it resolves: an import statement's
    rewrite, an `import` alias's, a chain read's."""
    by_node = {id(f.node): f for f in ours}
    texts = {id(u.node): u.text + u.name for u in _Scan(m).uses if u.text}
    plans = _from_plans(m, by_node)
    in_from = {id(f.node) for _, fs in plans for f in fs}
    for f in ours:
        if isinstance(f.node, ast.alias) and id(f.node) not in in_from:
            plans.append((_alias_edit(m, f.node), [f]))
        elif id(f.node) in texts:
            plans.append((m.off.replace(f.node, texts[id(f.node)]), [f]))
    return [(e, fs) for e, fs in plans if e is not None]


def edits(m: Module, ctx: ProgramContext) -> list[Edit]:
    """The edits so far plus each fixable finding's rewrite onto the public
    path (one that overlaps an edit made before is left)."""
    del ctx
    ours = _ours(m)
    return place(m.edits, _planned(m, ours) if ours else [])
