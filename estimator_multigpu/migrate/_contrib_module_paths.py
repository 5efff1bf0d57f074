"""Imports of tf.contrib's internal module paths that tf_slim ships.

TF 1.x code imported contrib's modules by their file path as often as by
their public name: `from tensorflow.contrib.layers.python.layers import
utils`, `from tensorflow.contrib.slim.python.slim.data import
parallel_reader`, `from tensorflow.contrib.framework.python.ops import
variables`. tf_slim is those files, moved: `tf_slim.layers.utils`,
`tf_slim.data.parallel_reader`, `tf_slim.ops.variables`
(`_api_spec.CONTRIB_MODULES`, whose imports the one visitor, `_api_uses`,
matches). The names the other rules know (the public contrib names) are rewritten use by
use; a module the code still reads after them (`utils.collect_named_outputs`,
no public name) is imported from tf_slim instead: the import's module path
is rewritten, its names and aliases kept. An import that binds the whole
path (`import tensorflow.contrib.layers.python.layers.utils`, read by its
full path) is reported.
"""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import _aliases, _astutil, _slim
from estimator_multigpu.migrate._api_spec import SPEC
from estimator_multigpu.migrate._edits import Edit, EditSet
from estimator_multigpu.migrate._engine import Module, ProgramContext
from estimator_multigpu.migrate._finding import Finding, at
from estimator_multigpu.migrate._guide_rules import rule

RULE_ID = "contrib-module-path"
ANCHOR = "contrib-module-paths"
_RULE = rule(
    RULE_ID,
    "an import of a tf.contrib module by its internal path (tf.contrib is "
    "gone since TF 2.0)",
    "the same module from tf_slim (pip install tf-slim), where contrib's "
    "file moved (emg-migrate --fix writes the import)",
    ANCHOR,
    fixable=True,
)
_WHOLE_PATH = rule(
    RULE_ID,
    "an import of a tf.contrib module by its internal path, read by that path",
    "import the tf_slim module (pip install tf-slim) under a name and read "
    "it there (by hand: the whole path is spelled at each use)",
    ANCHOR,
    fixable=False,
)


def _from_package(stmt: ast.ImportFrom) -> ast.stmt | None:
    """`from <contrib package> import <modules>` from tf_slim's one package."""
    full = [f"{stmt.module}.{a.name}" for a in stmt.names]
    if not all(f in SPEC.contrib_modules for f in full):
        return None
    packages = {SPEC.contrib_modules[f].rpartition(".")[0] for f in full}
    same = all(
        SPEC.contrib_modules[f].endswith(f".{a.name}") for f, a in zip(full, stmt.names)
    )
    if len(packages) != 1 or not same:
        return None
    return ast.ImportFrom(packages.pop(), stmt.names, 0)


def _successor(stmt: ast.Import | ast.ImportFrom) -> ast.stmt | None:
    """`stmt` importing the same names from tf_slim, or None."""
    if isinstance(stmt, ast.Import):
        if not all(a.asname and a.name in SPEC.contrib_modules for a in stmt.names):
            return None
        names = [ast.alias(SPEC.contrib_modules[a.name], a.asname) for a in stmt.names]
        return ast.Import(names=names)
    if stmt.level or not stmt.module:
        return None
    if stmt.module not in SPEC.contrib_modules:
        return _from_package(stmt)
    if any(a.name in SPEC.contrib_missing.get(stmt.module, ()) for a in stmt.names):
        return None
    return ast.ImportFrom(SPEC.contrib_modules[stmt.module], stmt.names, 0)


def _bound(stmt: ast.Import | ast.ImportFrom) -> dict[str, str]:
    """name -> the contrib path it is bound to by `stmt`."""
    if isinstance(stmt, ast.Import):
        return {(a.asname or a.name).split(".")[0]: a.name for a in stmt.names}
    return {a.asname or a.name: f"{stmt.module}.{a.name}" for a in stmt.names}


def _reads(tree: ast.Module, names: set[str]) -> list[ast.Name]:
    return [
        n
        for n in _astutil.nodes(tree, ast.Name)
        if isinstance(n.ctx, ast.Load) and n.id in names
    ]


def find(m: Module, ctx: ProgramContext) -> list:
    """The findings so far plus one per read import of a mapped contrib path."""
    del ctx
    out = list(m.findings)
    for stmt in m.uses.contrib_imports:
        if not _reads(m.tree, set(_bound(stmt))):
            continue  # an unused import: contrib-unused-imports drops it
        found = _successor(stmt) is not None
        paths = [p for p in _bound(stmt).values() if p in SPEC.contrib_modules] or [
            stmt.module
        ]
        api = _aliases.canonical(paths[0]) or paths[0]
        out.append(
            at(m, stmt, api, f"import of {api}", _RULE if found else _WHOLE_PATH)
        )
    return out


def _covered(m: Module, node: ast.AST, placed: EditSet) -> bool:
    start, end = m.off.span(node)
    return placed.overlaps(Edit(start, end, ""))


def _reads_of(m: Module, reads: list[ast.Name]) -> list[Finding]:
    """The findings left on `reads` (a finding's node holds one of them); the
    slim rule's advice on slim's input and training design stays: moving the
    module changes no design."""
    ids = {id(n) for n in reads}
    return [
        f
        for f in m.findings
        if not f.fixed
        and f.rule.rule_id != _slim.RULE_ID
        and f.node is not None
        and any(id(n) in ids for n in _astutil.walk(f.node))
    ]


def _lacks(stmt, reads: list[ast.Name], placed: EditSet, m: Module) -> bool:
    """True when a read left is of a name tf_slim's module lacks."""
    bound = _bound(stmt)
    for name in reads:
        attr = m.uses.attribute(name)
        missing = SPEC.contrib_missing.get(bound[name.id], ())
        if attr is not None and attr.attr in missing and not _covered(m, attr, placed):
            return True
    return False


def edits(m: Module, ctx: ProgramContext) -> list[Edit]:
    """The edits so far plus each mapped import's tf_slim module path; an
    import whose every read the edits so far rewrote is left to the
    dead-imports rule."""
    del ctx
    out, placed = list(m.edits), EditSet(m.edits)
    for f in m.findings:
        if f.rule is not _RULE or f.fixed:
            continue
        stmt = f.node
        reads = _reads(m.tree, set(_bound(stmt)))
        if all(_covered(m, n, placed) for n in reads):
            f.fixed = True
            continue
        edit = m.off.replace(stmt, ast.unparse(_successor(stmt)))
        if placed.overlaps(edit) or _lacks(stmt, reads, placed, m):
            continue
        placed.add(edit)
        out.append(edit)
        for g in [f, *_reads_of(m, reads)]:
            g.fixed = True  # the module is tf_slim's now
    return out
