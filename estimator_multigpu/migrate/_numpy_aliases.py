"""NumPy names that TF 1.x-era code used and the NumPy of today's TensorFlow lacks.

TensorFlow 2.21 runs on NumPy 2. NumPy 1.20 deprecated its aliases of the
Python builtins (`np.float`, `np.int`, `np.object`, `np.str`, `np.complex`)
and 1.24 removed them; NumPy 2.0 (NEP 52) removed a second set of spellings
of names it kept (`np.float_`, `np.NaN`, `np.product`, ...).
Each fails with AttributeError only when its line runs, and each has an
exact successor, the one NumPy's own error message and release notes name:
the builtin (the same dtype: `np.float` *was* `float`) or the kept NumPy name.
`np.bool` and `np.long` are left alone: NumPy 2 has them again (`np.bool_`,
the C long).

Only attribute uses of the module (`np.float`, `numpy.float`) are rewritten;
a module that assigns the name itself (`np.float = float`, a shim) keeps
its uses.
"""

from __future__ import annotations

import ast

from estimator_multigpu.migrate._edits import Edit, EditSet
from estimator_multigpu.migrate._engine import Module, ProgramContext
from estimator_multigpu.migrate._finding import Finding
from estimator_multigpu.migrate._guide_rules import rule

RULE_ID = "numpy-alias"
ANCHOR = "numpy-aliases"
# numpy.<name> -> its successor; "{np}" is the module's own name for numpy.
BUILTINS = {
    "int": "int",
    "float": "float",
    "complex": "complex",
    "object": "object",
    "str": "str",
    "unicode": "str",
}
NEP52 = {
    "float_": "{np}.float64",
    "complex_": "{np}.complex128",
    "cfloat": "{np}.complex128",
    "singlecomplex": "{np}.complex64",
    "longfloat": "{np}.longdouble",
    "clongfloat": "{np}.clongdouble",
    "longcomplex": "{np}.clongdouble",
    "string_": "{np}.bytes_",
    "unicode_": "{np}.str_",
    "int0": "{np}.intp",
    "uint0": "{np}.uintp",
    "bool8": "{np}.bool_",
    "NaN": "{np}.nan",
    "NAN": "{np}.nan",
    "Inf": "{np}.inf",
    "Infinity": "{np}.inf",
    "PINF": "{np}.inf",
    "infty": "{np}.inf",
    "NINF": "(-{np}.inf)",
    "PZERO": "0.0",
    "NZERO": "(-0.0)",
    "product": "{np}.prod",
    "cumproduct": "{np}.cumprod",
    "sometrue": "{np}.any",
    "alltrue": "{np}.all",
    "round_": "{np}.round",
}
SUCCESSORS = {**BUILTINS, **NEP52}


def _rule(name: str, new: str):
    removed = "NumPy 1.24" if name in BUILTINS else "NumPy 2.0"
    return rule(
        RULE_ID,
        f"numpy.{name} was removed in {removed} (AttributeError when the line "
        "runs; TensorFlow 2.21 needs NumPy 2)",
        f"{new.format(np='np')} (the same value; emg-migrate --fix writes it)",
        ANCHOR,
        fixable=True,
    )


def _shimmed(m: Module) -> set[str]:
    """The numpy names the module assigns itself (`np.float = float`)."""
    return {
        node.attr
        for node in ast.walk(m.tree)
        if isinstance(node, ast.Attribute)
        and not isinstance(node.ctx, ast.Load)
        and m.table.resolve(node.value) == "numpy"
    }


def _uses(m: Module):
    """Each load of a removed numpy name through the module: (node, name)."""
    shimmed = _shimmed(m)
    for node in ast.walk(m.tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Load)
            and node.attr in SUCCESSORS
            and node.attr not in shimmed
            and m.table.resolve(node.value) == "numpy"
        ):
            yield node, node.attr


def find(m: Module, ctx: ProgramContext) -> list:
    """The findings so far plus one per removed numpy name used."""
    del ctx
    out = list(m.findings)
    for node, name in _uses(m):
        out.append(
            Finding(
                m.path,
                node.lineno,
                m.off.column(node) + 1,
                f"numpy.{name}",
                m.off.segment(node),
                _rule(name, SUCCESSORS[name]),
                node,
            )
        )
    return out


def edits(m: Module, ctx: ProgramContext) -> list[Edit]:
    """The edits so far plus each finding's successor (where nothing overlaps)."""
    del ctx
    out, placed = list(m.edits), EditSet(m.edits)
    for f in m.findings:
        if f.rule.rule_id != RULE_ID or f.fixed:
            continue
        node = f.node
        new = SUCCESSORS[node.attr].format(np=m.off.segment(node.value))
        start, end = m.off.span(node)
        edit = Edit(start, end, new)
        if placed.overlaps(edit):
            continue
        placed.add(edit)
        out.append(edit)
        f.fixed = True
    return out
