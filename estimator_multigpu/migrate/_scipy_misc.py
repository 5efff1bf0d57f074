"""SciPy's removed `scipy.misc` image functions, onto emg's drop-ins.

TF 1.x-era training scripts saved their samples and loaded their images with
`scipy.misc.imsave`, `imread`, `imresize`, `toimage`, `bytescale` and
`fromimage`. SciPy removed them in 1.2 and 1.3; Python parses each use and
fails only when its line runs (AttributeError, ImportError), often after the
training did. `estimator_multigpu.scipy_misc` holds SciPy 1.1's functions
with the same signatures and arithmetic, so every spelling is rewritten onto
it:

- `scipy.misc.imsave(...)` and `misc.imsave(...)` (`import scipy.misc as
  misc`, `from scipy import misc`) -> `emg.scipy_misc.imsave(...)`;
- `from scipy.misc import imsave, imresize` -> `from
  estimator_multigpu.scipy_misc import imsave, imresize`.

An import of `scipy.misc` goes once every use it served was rewritten
(`import scipy.misc` becomes `import scipy` when the module reads `scipy`
otherwise). The module's other `scipy.misc` names (`face`, `comb`,
`logsumexp`, ...: gone from `scipy.misc` too, moved elsewhere in SciPy) are
reported with where they went and left as they are.
"""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import _astutil
from estimator_multigpu.migrate._edits import Edit, EditSet
from estimator_multigpu.migrate._engine import Module, ProgramContext, finding_edits
from estimator_multigpu.migrate._finding import Finding
from estimator_multigpu.migrate._guide_rules import rule

RULE_ID = "scipy-misc"
ANCHOR = "scipy-misc-images"
MODULE = "scipy.misc"
DROP_IN = "estimator_multigpu.scipy_misc"
# The functions estimator_multigpu.scipy_misc has (SciPy 1.1's pilutil).
REWRITTEN = frozenset(
    ("bytescale", "fromimage", "imread", "imresize", "imsave", "toimage")
)
# Other scipy.misc names, with where SciPy moved them (None: gone).
MOVED = {
    "ascent": "scipy.datasets.ascent",
    "face": "scipy.datasets.face",
    "electrocardiogram": "scipy.datasets.electrocardiogram",
    "comb": "scipy.special.comb",
    "factorial": "scipy.special.factorial",
    "factorial2": "scipy.special.factorial2",
    "factorialk": "scipy.special.factorialk",
    "logsumexp": "scipy.special.logsumexp",
    "lena": None,
    "imfilter": None,
    "imrotate": None,
    "imshow": None,
    "derivative": None,
    "central_diff_weights": None,
    "pade": "scipy.interpolate.pade",
    "info": "numpy.info",
    "source": None,
    "who": None,
}


def _rule(name: str):
    if name in REWRITTEN:
        return rule(
            RULE_ID,
            f"scipy.misc.{name} was removed from SciPy (1.2/1.3; the line "
            "fails when it runs)",
            f"emg.scipy_misc.{name} (SciPy 1.1's function, the same arguments "
            "and values; emg-migrate --fix writes it)",
            ANCHOR,
            fixable=True,
        )
    where = MOVED.get(name)
    moved = f"SciPy moved it to {where}" if where else "SciPy has no successor"
    return rule(
        RULE_ID,
        f"scipy.misc.{name} is gone from scipy.misc (the line fails when it runs)",
        f"{moved}; rewrite it by hand",
        ANCHOR,
        fixable=False,
    )


class _Names:
    """How the module spells scipy.misc: the names bound to it, the names
    bound to `scipy`, and the `from scipy.misc import ...` statements."""

    def __init__(self, tree: ast.Module):
        self.misc: dict[str, ast.stmt] = {}
        self.scipy: list[ast.Import] = []  # each `import scipy[.x]`
        self.froms: list[ast.ImportFrom] = []
        for node in _astutil.walk(tree):
            if isinstance(node, ast.Import):
                self._import(node)
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                self._import_from(node)

    def _import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name == MODULE and alias.asname:
                self.misc[alias.asname] = node
            elif alias.name.split(".")[0] == "scipy" and not alias.asname:
                if node not in self.scipy:
                    self.scipy.append(node)

    def _import_from(self, node: ast.ImportFrom) -> None:
        if node.module == MODULE:
            self.froms.append(node)
        elif node.module == "scipy":
            for alias in node.names:
                if alias.name == "misc":
                    self.misc[alias.asname or "misc"] = node

    def misc_use(self, node: ast.AST) -> str | None:
        """The name of the Name node `node.attr` is read on: a scipy.misc use."""
        if not isinstance(node, ast.Attribute) or not isinstance(node.ctx, ast.Load):
            return None
        value = node.value
        if isinstance(value, ast.Name) and value.id in self.misc:
            return value.id
        if (
            isinstance(value, ast.Attribute)
            and value.attr == "misc"
            and isinstance(value.value, ast.Name)
            and value.value.id == "scipy"
            and self.scipy
        ):
            return value.value.id
        return None


def _finding(m: Module, node: ast.AST, name: str, text: str) -> Finding:
    return Finding(
        m.path,
        node.lineno,
        m.off.column(node) + 1 if hasattr(node, "col_offset") else 1,
        f"{MODULE}.{name}",
        text,
        _rule(name),
        node,
    )


def find(m: Module, ctx: ProgramContext) -> list:
    """The findings so far plus one per scipy.misc name used or imported."""
    del ctx
    out = list(m.findings)
    names = _Names(m.tree)
    for stmt in names.froms:
        for alias in stmt.names:
            out.append(_finding(m, alias, alias.name, m.off.segment(stmt) or ""))
    if not (names.misc or names.scipy):
        return out
    for node in _astutil.walk(m.tree):
        if names.misc_use(node):
            out.append(_finding(m, node, node.attr, m.off.segment(node) or ""))
    return out


def _ours(m: Module, fixed: bool | None = None) -> list[Finding]:
    return [
        f
        for f in m.findings
        if f.rule.rule_id == RULE_ID and (fixed is None or f.fixed == fixed)
    ]


def _alone(m: Module, stmt: ast.stmt) -> bool:
    """Whether `stmt` has its lines to itself (a comment may follow it)."""
    start, end = m.off.span(stmt)
    before = m.off.source[m.off.line_start(stmt.lineno) : start]
    after = m.off.source[end : m.off.line_end(stmt.end_lineno)].strip()
    return not before.strip() and (not after or after.startswith("#"))


def _statement(m: Module, stmt: ast.stmt, names: list[ast.alias], extra: str = ""):
    """The edit writing `stmt` with only `names`, then the line `extra`
    (None when `stmt` shares its line with another statement)."""
    if not _alone(m, stmt):
        return None
    if not names and not extra:
        if stmt not in m.tree.body:  # a block keeps a statement
            return m.off.replace(stmt, "pass")
        return Edit(m.off.line_start(stmt.lineno), m.off.line_end(stmt.end_lineno), "")
    lines = []
    if names:
        if isinstance(stmt, ast.ImportFrom):
            kept = ast.ImportFrom(module=stmt.module, names=names, level=stmt.level)
        else:
            kept = ast.Import(names=names)
        lines.append(ast.unparse(kept))
    if extra:
        lines.append(extra)
    indent = m.off.lines[stmt.lineno - 1][: stmt.col_offset]
    return m.off.replace(stmt, (m.off.newline + indent).join(lines))


def _from_edit(m: Module, stmt: ast.ImportFrom) -> Edit | None:
    """`from scipy.misc import imsave, face` -> the drop-in's import line,
    the names it lacks kept on scipy.misc."""
    moved = [a for a in stmt.names if a.name in REWRITTEN]
    if not moved:
        return None
    kept = [a for a in stmt.names if a.name not in REWRITTEN]
    drop_in = ast.unparse(ast.ImportFrom(module=DROP_IN, names=moved, level=0))
    return _statement(m, stmt, kept, drop_in)


def _use_edit(m: Module, f: Finding) -> list[Edit] | None:
    if isinstance(f.node, ast.alias) or f.api.rsplit(".", 1)[1] not in REWRITTEN:
        return None
    return [m.off.replace(f.node, f"{m.emg}.scipy_misc.{f.node.attr}")]


def _left(m: Module, names: _Names) -> dict[str, int]:
    """Per name bound to scipy.misc or scipy: its reads the rewrite left."""
    reads = _astutil.reads(m.tree)
    left = {n: reads[n] for n in (*names.misc, "scipy")}
    for f in _ours(m, fixed=True):
        if isinstance(f.node, ast.Attribute):
            root = names.misc_use(f.node)
            left[root] -= 1
    return left


def _misc_kept(m: Module, names: _Names) -> bool:
    """Whether a `scipy.misc` the rewrite left is read through `scipy`."""
    fixed = {id(f.node.value) for f in _ours(m, fixed=True) if hasattr(f.node, "value")}
    return any(
        isinstance(n, ast.Attribute)
        and n.attr == "misc"
        and isinstance(n.value, ast.Name)
        and n.value.id == "scipy"
        and id(n) not in fixed
        for n in _astutil.walk(m.tree)
    )


def _import_edits(m: Module, names: _Names) -> dict[int, Edit]:
    """The edit of each import of scipy.misc that no use needs any more."""
    left, out = _left(m, names), {}
    for stmt in {id(s): s for s in names.misc.values()}.values():
        kept = [
            a
            for a in stmt.names
            if not (_binds_misc(stmt, a) and left[a.asname or "misc"] == 0)
        ]
        if len(kept) < len(stmt.names):
            out[id(stmt)] = _statement(m, stmt, kept)
    if names.scipy and not _misc_kept(m, names):
        for stmt in names.scipy:
            edit = _scipy_edit(m, names, stmt, left["scipy"] > 0)
            if edit is not None:
                out[id(stmt)] = edit
    return out


def _scipy_edit(m: Module, names: _Names, stmt: ast.Import, read: bool):
    """`import scipy.misc` dropped (`import scipy` when the module reads
    `scipy` and no other import binds it)."""
    kept = [a for a in stmt.names if a.name != MODULE]
    if len(kept) == len(stmt.names):
        return None
    others = any(a.name.split(".")[0] == "scipy" for a in kept) or any(
        s is not stmt and any(a.name != MODULE for a in s.names) for s in names.scipy
    )
    if read and not others:
        kept.append(ast.alias(name="scipy"))
    return _statement(m, stmt, kept)


def _binds_misc(stmt: ast.stmt, alias: ast.alias) -> bool:
    if isinstance(stmt, ast.ImportFrom):
        return alias.name == "misc"
    return alias.name == MODULE and bool(alias.asname)


def edits(m: Module, ctx: ProgramContext) -> list[Edit]:
    """The edits so far plus each removed function's rewrite, the `from
    scipy.misc import` lines onto the drop-in, and the imports left unused."""
    del ctx
    out = finding_edits(m, RULE_ID, lambda f: _use_edit(m, f))
    ours = _ours(m)
    if not ours:
        return out
    placed = EditSet(out)
    names = _Names(m.tree)
    for stmt in names.froms:
        edit = _from_edit(m, stmt)
        if edit is None or placed.overlaps(edit):
            continue
        placed.add(edit)
        out.append(edit)
        for f in ours:
            if isinstance(f.node, ast.alias) and f.node in stmt.names:
                f.fixed = f.node.name in REWRITTEN
    for edit in _import_edits(m, names).values():
        if edit is not None and not placed.overlaps(edit):
            placed.add(edit)
            out.append(edit)
    return out
