"""A static shape's dimension written as a true division (`c / groups`).

TF 1.x's `Dimension(value)` took `int(value)` of any number and refused
only a value that int changed (`ValueError: Ambiguous dimension`), so under
Python 3 a dimension such as `input_channels / groups` (a float, 3.0) was
the int 3. TF 2's takes only integers (`value.__index__()`): the same call
raises `TypeError: Dimension value must be integer or None or have an
__index__ method, got value '3.0'`. Where a shape that TensorFlow reads as
a static shape (`tf.get_variable`'s, `tf.placeholder`'s, `tf.TensorShape`'s,
...) is a list or tuple literal, each element that is a true division is
wrapped in `int(...)`: what TF 1.x did with every value it accepted. A
shape passed as a name, or a division bound to a name first, is left.
"""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import _astutil, _dimension_division
from estimator_multigpu.migrate._edits import Edit, place
from estimator_multigpu.migrate._engine import Module, ProgramContext
from estimator_multigpu.migrate._finding import at
from estimator_multigpu.migrate._guide_rules import rule

RULE_ID = "float-dims"
ANCHOR = "float-dims"
RULE = rule(
    RULE_ID,
    "a static shape's dimension is a true division (a float under Python 3): "
    "TF 1.x took int() of it, TF 2 raises TypeError (Dimension value must be "
    "integer)",
    "int(a / b) (the int TF 1.x made of it; emg-migrate --fix writes it)",
    ANCHOR,
    fixable=True,
)
# API (from `tf.`) -> (the shape parameter's name, its position): shapes
# TensorFlow makes a TensorShape of (or a variable's shape, which is one).
SHAPES = {
    "tf.get_variable": ("shape", 1),
    "tf.get_local_variable": ("shape", 1),
    "tf.placeholder": ("shape", 1),
    "tf.placeholder_with_default": ("shape", 1),
    "tf.TensorShape": ("dims", 0),
    "tf.contrib.framework.variable": ("shape", 1),
    "tf.contrib.framework.model_variable": ("shape", 1),
    "tf.contrib.slim.variable": ("shape", 1),
    "tf.contrib.slim.model_variable": ("shape", 1),
}


def _shape_arg(call: ast.Call, api: str) -> ast.AST | None:
    name, position = SHAPES[api]
    for k in call.keywords:
        if k.arg == name:
            return k.value
    starred = any(isinstance(a, ast.Starred) for a in call.args[: position + 1])
    return call.args[position] if len(call.args) > position and not starred else None


def _divisions(m: Module):
    """Each true-division element of a literal static shape (less those of a
    Dimension, which `_dimension_division` makes `//`: int() of its `/`
    would still raise)."""
    of_dimension = {id(d) for d in _dimension_division.divisions(m)}
    for call in _astutil.nodes(m.tree, ast.Call):
        api = m.table.resolve_tf(call.func)
        shape = _shape_arg(call, api) if api in SHAPES else None
        if isinstance(shape, ast.List | ast.Tuple):
            for element in shape.elts:
                if (
                    isinstance(element, ast.BinOp)
                    and isinstance(element.op, ast.Div)
                    and id(element) not in of_dimension
                ):
                    yield element


def find(m: Module, ctx: ProgramContext) -> list:
    """The findings so far plus one per true-division dimension."""
    del ctx
    return m.findings + [
        at(m, e, "static shape dimension", m.off.segment(e) or "a / b", RULE)
        for e in _divisions(m)
    ]


def _edit(m: Module, element: ast.AST) -> Edit:
    return m.off.replace(element, f"int({m.off.segment(element)})")


def edits(m: Module, ctx: ProgramContext) -> list[Edit]:
    """The edits so far plus each finding's dimension wrapped in int()."""
    del ctx
    ours = [f for f in m.findings if f.rule.rule_id == RULE_ID and not f.fixed]
    return place(m.edits, [(_edit(m, f.node), [f]) for f in ours])
