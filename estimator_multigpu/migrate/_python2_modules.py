"""Python 2 standard modules that Python 3 renamed, at their imports.

TF 1.x-era code that also ran on Python 2 imports `cPickle`, `Queue`,
`ConfigParser`...; Python 3 raises ModuleNotFoundError at the import. Each
has an exact Python 3 successor, the one 2to3's `imports` fixer writes
(`pickle`, whose C implementation is what `cPickle` was; `queue`;
`configparser`). The import is rewritten so that the file's own name for
the module stays: `import cPickle` -> `import pickle as cPickle`,
`import cPickle as pickle` -> `import pickle`,
`from Queue import Queue` -> `from queue import Queue`; nothing else in the
file changes. A module the renames split or changed (`urllib2`,
`StringIO`, `cStringIO`) is not in the table (`_api_spec.PYTHON2_MODULES`,
whose imports the one visitor, `_api_uses`, matches).
"""

from __future__ import annotations

import ast
import re

from estimator_multigpu.migrate._api_spec import SPEC
from estimator_multigpu.migrate._edits import Edit, EditSet
from estimator_multigpu.migrate._engine import Module, ProgramContext
from estimator_multigpu.migrate._finding import at
from estimator_multigpu.migrate._guide_rules import rule
from estimator_multigpu.migrate._python2_builtins import ANCHOR, RULE_ID


def _rule(old: str):
    new = SPEC.python2_modules[old]
    return rule(
        RULE_ID,
        f"{old} is a Python 2 module (Python 3 raises ModuleNotFoundError at the "
        "import)",
        f"{new}, imported under the file's own name for it (emg-migrate --fix "
        "writes it)",
        ANCHOR,
        fixable=True,
    )


def find(m: Module, ctx: ProgramContext) -> list:
    """The findings so far plus one per Python 2 module imported."""
    del ctx
    out = list(m.findings)
    for node, old in m.uses.python2:
        out.append(at(m, node, old, m.off.segment(node) or old, _rule(old)))
    return out


def _edit(m: Module, node: ast.AST, old: str) -> Edit | None:
    new = SPEC.python2_modules[old]
    if isinstance(node, ast.alias):  # import X [as y]
        start, end = m.off.span(node)
        name = node.asname or old
        return Edit(start, end, new if name == new else f"{new} as {name}")
    start, end = m.off.span(node)  # from X import ...
    match = re.match(r"from\s+(\S+)", m.off.source[start:end])
    if match is None or match.group(1) != old:
        return None
    return Edit(start + match.start(1), start + match.end(1), new)


def edits(m: Module, ctx: ProgramContext) -> list[Edit]:
    """The edits so far plus each finding's import rename (where nothing overlaps)."""
    del ctx
    out, placed = list(m.edits), EditSet(m.edits)
    for f in m.findings:
        if f.rule.rule_id != RULE_ID or f.fixed or f.api not in SPEC.python2_modules:
            continue
        edit = _edit(m, f.node, f.api)
        if edit is None or placed.overlaps(edit):
            continue
        placed.add(edit)
        out.append(edit)
        f.fixed = True
    return out
