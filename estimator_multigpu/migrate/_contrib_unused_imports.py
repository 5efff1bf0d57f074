"""Drops the imports of tf.contrib modules and names that the module never reads.

`from tensorflow.contrib.framework.python.ops import variables` left over
from an edit fails on TF 2.x by itself (there is no tensorflow.contrib), and
from estimator_multigpu.migrate import _astutil
with no use of the name there is nothing to replace: the import goes. A name
the module exports (listed in `__all__`) counts as read.
"""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import _aliases, _astutil
from estimator_multigpu.migrate._edits import Edit, EditSet
from estimator_multigpu.migrate._engine import Module, ProgramContext
from estimator_multigpu.migrate._guide_rules import GuideRule, rule

_CONTRIB = "tf.contrib"


def exported(tree: ast.Module) -> set[str]:
    """The string names a top-level `__all__ = [...]` lists."""
    out = set()
    for stmt in tree.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else []
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            out |= {
                e.value
                for e in _astutil.nodes(stmt.value, ast.Constant)
                if isinstance(e.value, str)
            }
    return out


def _unused(alias: ast.alias, path: str, reads, exported: set[str]) -> bool:
    """True if `alias` binds a tf.contrib name the module never reads."""
    if alias.name == "*":
        return False
    name = (alias.asname or alias.name).split(".")[0]
    api = _aliases.canonical(path) or ""
    gone = api == _CONTRIB or api.startswith(_CONTRIB + ".")
    return gone and not reads[name] and name not in exported


def _paths(stmt: ast.Import | ast.ImportFrom) -> list[tuple[ast.alias, str]]:
    """(alias, the full path it imports) of each name `stmt` imports."""
    if isinstance(stmt, ast.Import):
        return [(a, a.name) for a in stmt.names]
    if stmt.level or not stmt.module:
        return []  # a relative import is the program's own
    return [(a, f"{stmt.module}.{a.name}") for a in stmt.names]


def statement_edit(m: Module, stmt, keep: list[ast.alias]) -> Edit:
    """The edit that leaves `stmt` importing only `keep` (or removes it)."""
    start, end = m.off.line_start(stmt.lineno), m.off.line_end(stmt.end_lineno)
    if not keep:
        return Edit(start, end, "")
    copy = (
        ast.ImportFrom(module=stmt.module, names=keep, level=stmt.level)
        if isinstance(stmt, ast.ImportFrom)
        else ast.Import(names=keep)
    )
    indent = m.off.lines[stmt.lineno - 1][: stmt.col_offset]
    return Edit(start, end, indent + ast.unparse(copy) + m.off.newline)


def unused_in(alias: ast.alias, stmt, reads, exported_names: set[str]) -> bool:
    """True if `alias` of import statement `stmt` binds a tf.contrib name the
    module never reads."""
    return any(
        a is alias and _unused(a, p, reads, exported_names) for a, p in _paths(stmt)
    )


def _unused_imports(m: Module):
    """Yields (statement, its aliases to drop, their APIs) of each top-level
    import of unused contrib names (one inside a block could be all it holds)."""
    reads, names = _astutil.reads(m.tree), exported(m.tree)
    for stmt in m.tree.body:
        if not isinstance(stmt, ast.Import | ast.ImportFrom):
            continue
        pairs = [(a, p) for a, p in _paths(stmt) if _unused(a, p, reads, names)]
        if pairs:
            yield stmt, [a for a, _ in pairs], {_aliases.canonical(p) for _, p in pairs}


def _rule(api: str) -> GuideRule:
    return rule(
        "contrib",
        f"{api} is imported and never used; tf.contrib is gone since TF 2.0, "
        "so the import fails by itself",
        "nothing: the import goes (emg-migrate --fix drops it)",
        "tf-contrib",
    )


def _ours(f, stmt, apis) -> bool:
    return f.node is stmt and f.api in apis


def find(m: Module, ctx: ProgramContext) -> list:
    """The findings, those of unused contrib imports reworded: --fix drops them."""
    del ctx
    for stmt, _, apis in _unused_imports(m):
        for f in m.findings:
            if _ours(f, stmt, apis):
                f.rule = _rule(f.api)
    return m.findings


def edits(m: Module, ctx: ProgramContext) -> list[Edit]:
    """The edits so far, plus one per import statement of unused contrib names
    (their findings marked fixed)."""
    del ctx
    placed, out = EditSet(m.edits), list(m.edits)
    for stmt, dropped, apis in _unused_imports(m):
        edit = statement_edit(m, stmt, [a for a in stmt.names if a not in dropped])
        if placed.overlaps(edit):
            continue
        out.append(edit)
        placed.add(edit)
        for f in m.findings:
            if _ours(f, stmt, apis):
                f.fixed = True
    return out
