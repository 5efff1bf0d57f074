"""Import edits: add `import estimator_multigpu as emg`, drop legacy imports left unused."""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import (
    _aliases,
    _astutil,
    _rules,
)
from estimator_multigpu.migrate._edits import Edit, Offsets
from estimator_multigpu.migrate._finding import Finding

PACKAGE = "estimator_multigpu"
# Modules gone from TF 2.x: an import of them breaks the script on its own.
_GONE = ("tf.contrib", "tf.estimator")


def _is_gone(path: str) -> bool:
    return any(path == g or path.startswith(g + ".") for g in _GONE)


def _with_names(stmt: ast.Import | ast.ImportFrom, names: list[ast.alias]):
    """A copy of the import statement `stmt` that imports only `names`."""
    if isinstance(stmt, ast.ImportFrom):
        return ast.ImportFrom(module=stmt.module, names=names, level=stmt.level)
    return ast.Import(names=names)


def fixed_uses(findings: list[Finding]) -> dict[str, int]:
    """Counts, per name, the uses that the rewrite replaced."""
    fixed: dict[str, int] = {}
    for f in findings:
        root = f.node
        while isinstance(root, ast.Attribute):
            root = root.value
        if f.fixed and isinstance(root, ast.Name):
            fixed[root.id] = fixed.get(root.id, 0) + 1
    return fixed


def droppable(alias: ast.alias, table, uses, fixed) -> bool:
    """True if every use of a legacy name that `alias` binds was rewritten."""
    name = (alias.asname or alias.name).split(".")[0]
    path = _aliases.canonical(table.bindings.get(name)) or ""
    private = path.startswith("tf.python.")  # e.g. device_lib, once its uses went
    legacy = _is_gone(path) or _rules.lookup(path) is not None or private
    return legacy and uses[name] > 0 and uses[name] == fixed.get(name)


def dead_imports(tree, table, off, findings) -> list[Edit]:
    """Drops imported legacy names (`from tensorflow.contrib... import x`,
    `from tensorflow.train import batch`) once every use was rewritten."""
    uses, fixed = _astutil.reads(tree), fixed_uses(findings)
    out = []
    for stmt in tree.body:
        if not isinstance(stmt, ast.Import | ast.ImportFrom):
            continue
        keep = [a for a in stmt.names if not droppable(a, table, uses, fixed)]
        if len(keep) == len(stmt.names):
            continue
        start, end = off.line_start(stmt.lineno), off.line_end(stmt.end_lineno)
        text = ""
        if keep:
            indent = off.lines[stmt.lineno - 1][: stmt.col_offset]
            text = indent + ast.unparse(_with_names(stmt, keep)) + off.newline
        out.append(Edit(start, end, text))
    return out


def import_edit(tree: ast.Module, off: Offsets, emg: str, package: str) -> Edit:
    """Inserts `import estimator_multigpu as emg` after the module's imports."""
    nl = off.newline
    text = (
        f"import {package} as {emg}{nl}" if emg != package else f"import {package}{nl}"
    )
    return statement_edit(tree, off, text)


def statement_edit(tree: ast.Module, off: Offsets, text: str) -> Edit:
    """Inserts `text` (a statement and its newline) after the module's
    imports, else after its docstring, else after its leading comments."""
    nl = off.newline
    imports = [s for s in tree.body if isinstance(s, ast.Import | ast.ImportFrom)]
    if imports:
        pos = off.line_end(imports[-1].end_lineno)
    elif tree.body and isinstance(tree.body[0], ast.Expr):
        pos = off.line_end(tree.body[0].end_lineno)
    else:
        line = 1
        while line <= len(off.lines) and off.lines[line - 1].startswith("#"):
            line += 1
        pos = off.line_start(line) if line <= len(off.lines) else len(off.source)
    if pos == len(off.source) and off.source and not off.source.endswith(("\n", "\r")):
        text = nl + text
    return Edit(pos, pos, text)
