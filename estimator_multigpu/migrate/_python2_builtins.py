"""Python 2 builtins that TF 1.x-era scripts call and Python 3 lacks.

Much TF 1.x code ran on Python 2 too: `d.iteritems()` (and `itervalues`,
`iterkeys`) and the bare builtins `xrange`, `basestring`, `unicode`,
`unichr`, `long` and `raw_input` parse under Python 3 and fail only when the
line runs (AttributeError, NameError), often after the training did. Each has
an exact Python 3 successor, the one 2to3's `dict`, `xrange`, `basestring`,
`unicode`, `long` and `raw_input` fixers write: `d.items()`, `d.values()`,
`d.keys()` (views, iterated the same way), `range`, `str` (`basestring` and
`unicode` both: Python 3's one text type), `chr`, `int` and `input`. The
builtin `reduce` moved to `functools`: as 2to3's `reduce` fixer does, the
module gets `from functools import reduce` after its imports (one statement
for all its uses, which keep their spelling). A module
that defines a method of that name, or binds the builtin's name itself
(`from six.moves import xrange`, `xrange = range`, `unicode = str`), keeps
its uses: they are its own. A `unicode(text, encoding)` call is left too: it
decoded a Python 2 byte string, and `str(text, encoding)` refuses the `str`
that a literal or a text read is under Python 3 (TypeError).
"""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import _astutil, _imports
from estimator_multigpu.migrate._edits import Edit
from estimator_multigpu.migrate._engine import Module, ProgramContext, finding_edits
from estimator_multigpu.migrate._finding import at
from estimator_multigpu.migrate._guide_rules import rule

RULE_ID = "python2-builtin"
ANCHOR = "python-2-builtins"
# The Python 2 dict method -> its Python 3 successor.
DICT_METHODS = {"iteritems": "items", "itervalues": "values", "iterkeys": "keys"}
# The Python 2 builtin name -> its Python 3 successor (2to3's fixers).
BUILTINS = {
    "xrange": "range",
    "basestring": "str",
    "unicode": "str",
    "unichr": "chr",
    "long": "int",
    "raw_input": "input",
}
# The Python 2 builtin name -> the module Python 3 moved it to.
MOVED = {"reduce": "functools"}
_OWN = {*BUILTINS, *DICT_METHODS, *MOVED}  # the apis of this module's findings
_METHODS = {f".{name}()" for name in DICT_METHODS}  # as the findings spell them


def _what(new: str) -> str:
    """What the successor does the same, for the finding's text."""
    if new in ("range", "items()", "values()", "keys()"):
        return "the same iteration"
    if new.startswith("from "):
        return "the same function, imported from its Python 3 module"
    return "the same builtin under its Python 3 name"


def _rule(old: str, new: str):
    return rule(
        RULE_ID,
        f"{old} is Python 2 only (Python 3 raises "
        f"{'AttributeError' if old in _METHODS else 'NameError'} when the line runs)",
        f"{new} ({_what(new.strip('.'))}; emg-migrate --fix writes it)",
        ANCHOR,
        fixable=True,
    )


def _decoding(tree: ast.Module) -> set[int]:
    """The ids of the `unicode` names called with an encoding (`unicode(s, enc)`)."""
    return {
        id(call.func)
        for call in _astutil.nodes(tree, ast.Call)
        if isinstance(call.func, ast.Name)
        and call.func.id == "unicode"
        and (len(call.args) > 1 or call.keywords)
    }


def _old_and_new(node: ast.AST, bound: set[str]) -> tuple[str, str] | None:
    """(the Python 2 spelling, its successor) when `node` is one, else None."""
    if isinstance(node, ast.Name) and node.id in BUILTINS and node.id not in bound:
        return node.id, BUILTINS[node.id]
    if isinstance(node, ast.Name) and node.id in MOVED and node.id not in bound:
        return node.id, f"from {MOVED[node.id]} import {node.id}"
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in DICT_METHODS
        and node.func.attr not in bound
        and not node.args
        and not node.keywords
    ):
        attr = node.func.attr
        return f".{attr}()", f".{DICT_METHODS[attr]}()"
    return None


def find(m: Module, ctx: ProgramContext) -> list:
    """The findings so far plus one per Python 2 builtin used."""
    del ctx
    bound = _astutil.writes(m.tree)
    decoding = _decoding(m.tree)
    out = list(m.findings)
    for node in _astutil.walk(m.tree):
        pair = _old_and_new(node, bound)
        if pair is None or id(node) in decoding:
            continue
        out.append(
            at(
                m,
                node,
                pair[0].strip(".()"),
                m.off.segment(node) or pair[0],
                _rule(*pair),
            )
        )
    return out


def _edit(m: Module, node: ast.AST) -> Edit:
    """The rename of the name, or of the method's attribute."""
    if isinstance(node, ast.Name):
        start, end = m.off.span(node)
        return Edit(start, end, BUILTINS[node.id])
    end = m.off.span(node.func)[1]  # the attribute ends the callee's text
    attr = node.func.attr
    return Edit(end - len(attr), end, DICT_METHODS[attr])


def edits(m: Module, ctx: ProgramContext) -> list[Edit]:
    """The edits so far plus each finding's rename (where nothing overlaps),
    and one import per moved builtin, with its first use."""
    del ctx
    imported: set[str] = set()

    def make(f) -> list[Edit] | None:
        if f.api not in _OWN:
            return None
        if f.api not in MOVED:
            return [_edit(m, f.node)]
        if f.api in imported:
            return []
        imported.add(f.api)
        text = f"from {MOVED[f.api]} import {f.api}{m.off.newline}"
        return [_imports.statement_edit(m.tree, m.off, text)]

    return finding_edits(m, RULE_ID, make)
