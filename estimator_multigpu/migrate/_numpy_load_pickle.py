"""`np.load` of a pickled object: NumPy 1.16.3 turned `allow_pickle` off.

Up to NumPy 1.16.2, `np.load(path)` loaded a `.npy` file holding a Python
object (a dict of weights saved with `np.save`) by unpickling it: the
default was `allow_pickle=True`. NumPy 1.16.3 made it False, so the same
call raises `ValueError: Object arrays cannot be loaded when
allow_pickle=False`. A call whose file is a pickle by its own code gets the
old default back, `allow_pickle=True`: one that passes `encoding=` (it is
read only from a Python 2 pickle), or whose result is an object array's
scalar at once (`np.load(path).item()`, `np.load(path)[()]`). A call that
passes allow_pickle (by keyword, or third by position) or `**kwargs` is
left as it is; other calls load plain arrays, which need no pickle.
"""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import _astutil
from estimator_multigpu.migrate._edits import Edit, place
from estimator_multigpu.migrate._engine import Module, ProgramContext
from estimator_multigpu.migrate._finding import at
from estimator_multigpu.migrate._guide_rules import rule

RULE_ID = "numpy-load-pickle"
ANCHOR = "numpy-load-pickle"
RULE = rule(
    RULE_ID,
    "np.load of a pickled object (a dict saved with np.save) raises ValueError "
    "since NumPy 1.16.3 made allow_pickle=False the default",
    "np.load(..., allow_pickle=True) (NumPy's default before 1.16.3, for a "
    "file you trust; emg-migrate --fix writes it)",
    ANCHOR,
    fixable=True,
)
_LOAD = "numpy.load"
_ALLOW_POSITION = 2  # load(file, mmap_mode=None, allow_pickle=False, ...)


def _loads(m: Module):
    """Each `np.load(...)` call, with the expression it heads, if any (the
    attribute or subscript whose value it is)."""
    for call in _astutil.nodes(m.tree, ast.Call):
        if m.table.resolve(call.func) == _LOAD:
            yield call, m.uses.outer(call)


def _passes_allow(call: ast.Call) -> bool:
    """True when the call sets allow_pickle itself (or may, through **)."""
    keywords = {k.arg for k in call.keywords}
    return (
        "allow_pickle" in keywords
        or None in keywords
        or len(call.args) > _ALLOW_POSITION
        or any(isinstance(a, ast.Starred) for a in call.args)
    )


def _scalar_of(call: ast.Call, parent: ast.AST) -> bool:
    """True when `parent` takes the object array's scalar (`.item()`, `[()]`)."""
    if isinstance(parent, ast.Attribute):
        return parent.value is call and parent.attr == "item"
    if isinstance(parent, ast.Subscript):
        index = parent.slice
        return parent.value is call and isinstance(index, ast.Tuple) and not index.elts
    return False


def _pickled(call: ast.Call, parent: ast.AST) -> bool:
    reads_py2 = any(k.arg == "encoding" for k in call.keywords)
    return (reads_py2 or _scalar_of(call, parent)) and not _passes_allow(call)


def find(m: Module, ctx: ProgramContext) -> list:
    """The findings so far plus one per `np.load` of a pickled object."""
    del ctx
    out = list(m.findings)
    for call, parent in _loads(m):
        if _pickled(call, parent):
            text = m.off.segment(call) or "np.load(...)"
            out.append(at(m, call, _LOAD, text, RULE))
    return out


def _edit(m: Module, call: ast.Call) -> Edit:
    """`, allow_pickle=True` after the call's last argument."""
    last = max(call.args + call.keywords, key=lambda n: m.off.span(n)[1])
    end = m.off.span(last)[1]
    return Edit(end, end, ", allow_pickle=True")


def edits(m: Module, ctx: ProgramContext) -> list[Edit]:
    """The edits so far plus `allow_pickle=True` in each finding's call."""
    del ctx
    ours = [f for f in m.findings if f.rule.rule_id == RULE_ID and not f.fixed]
    return place(
        m.edits,
        [(_edit(m, f.node), [f]) for f in ours if f.node.args or f.node.keywords],
    )
