"""`tf` that reaches a file only through `from <module> import *` of the program.

A module with no TensorFlow import of its own reads `tf.placeholder`,
`tf.app.flags`, ... through a star import of a sibling module that did
`import tensorflow as tf`. Which TensorFlow it gets is whichever of its star
imports bound `tf` last: after the sibling is ported to `tf.compat.v1`, a
later sibling that needed no port (it uses only names TF 2 keeps) still hands
over TF 2's module, and the TF 1.x names fail. The fix gives the file its own
`import tensorflow.compat.v1 as tf` right after its last star import.
"""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import _astutil, _star_roots
from estimator_multigpu.migrate._edits import Edit, Offsets, apply
from estimator_multigpu.migrate._engine import Module, ProgramContext
from estimator_multigpu.migrate._finding import at
from estimator_multigpu.migrate._guide_rules import COMPAT_ANCHOR, rule

RULE_ID = "compat-v1"
API = "tf (through a star import)"
_DISABLE = "disable_v2_behavior()"
_SHOWN = 5


def _text(name: str, star: ast.ImportFrom, uses: list[tuple[str, int]]) -> str:
    lines: dict[str, list[int]] = {}
    for api, line in uses:
        if line not in lines.setdefault(api, []):
            lines[api].append(line)
    shown = "; ".join(
        f"{api} (line {', '.join(map(str, ln[:_SHOWN]))})" for api, ln in lines.items()
    )
    module = "." * star.level + (star.module or "")
    return (
        f"`{name}` reaches this file through `from {module} import *`: "
        f"{len(uses)} TF 1.x name(s): {shown}"
    )


def _rule(name: str):
    return rule(
        RULE_ID,
        f"the file has no TensorFlow import of its own: `{name}` is whichever "
        "module its star imports bound last, TF 2's when that module needed no "
        "port, and these names exist only in tf.compat.v1",
        f"import tensorflow.compat.v1 as {name} after the last star import "
        "(emg-migrate --fix does it)",
        COMPAT_ANCHOR,
    )


def find(tree: ast.Module):
    """Yields (node, api, text, rule): the last star import, once per free name."""
    for name, uses in sorted(_star_roots.uses(tree).items()):
        star = _star_roots.local_star_imports(tree)[-1]
        yield star, API, _text(name, star, uses), _rule(name)


def port(source: str, findings: list) -> str:
    """Imports tf.compat.v1 under each reported name after the last star import."""
    todo = [f for f in findings if f.rule.rule_id == RULE_ID and f.api == API]
    if not todo:
        return source
    tree = _astutil.parse(source)
    stars = _star_roots.local_star_imports(tree)
    off = Offsets(source)
    names = sorted(_star_roots.uses(tree))
    lines = [f"import tensorflow.compat.v1 as {n}" for n in names]
    if _DISABLE not in source:
        lines.append(f"{names[0]}.{_DISABLE}")
    pos = off.line_end(stars[-1].end_lineno)
    for f in todo:
        f.fixed = True
    return apply(source, [Edit(pos, pos, "".join(x + off.newline for x in lines))])


def find_rule(m: Module, ctx: ProgramContext) -> list:
    """The registry's finder: `m`'s findings with this shape's added."""
    return m.findings + [
        at(m, node, api, text, r) for node, api, text, r in find(m.tree)
    ]


def port_rule(source: str, m: Module, ctx: ProgramContext) -> str:
    """The registry's port of the rewritten text."""
    return port(source, m.findings)
