"""A static dimension divided with `/` (`x.get_shape()[-1] / groups`).

Under `tf.disable_v2_behavior()` (the compat.v1 port), `x.get_shape()[i]`
is a `Dimension`. Python 2's `/` called `Dimension.__div__`, a floor
division that gave a `Dimension`; Python 3's `/` calls `__truediv__`, which
TensorFlow defines only to refuse it (`TypeError: unsupported operand
type(s) for /: 'Dimension' and 'int', please use // instead`). Code of the
Python 2 era wrote channel counts this way (`c_i / group` as a grouped
convolution's filter depth). `--fix` writes `//`, what the `/` did there,
where the left operand is `X.get_shape()[i]` itself, or a name the function
(or module) binds once, to such a subscript and nothing else. `.shape[i]`
is left: on a NumPy array it is an int, whose `/` is a true division.
"""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import _astutil
from estimator_multigpu.migrate._edits import Edit, place
from estimator_multigpu.migrate._engine import Module, ProgramContext
from estimator_multigpu.migrate._finding import at
from estimator_multigpu.migrate._guide_rules import rule

RULE_ID = "dimension-division"
ANCHOR = "dimension-division"
RULE = rule(
    RULE_ID,
    "a static dimension (x.get_shape()[i], a Dimension under the compat.v1 "
    "port) divided with `/`: Python 2's `/` floor-divided it, Python 3's "
    "raises TypeError (unsupported operand type(s) for /: 'Dimension')",
    "`//` (the Dimension Python 2's `/` gave; emg-migrate --fix writes it)",
    ANCHOR,
    fixable=True,
)


def _is_dimension(node: ast.AST) -> bool:
    """Whether `node` is `X.get_shape()[i]` (an index, not a slice)."""
    if not isinstance(node, ast.Subscript) or isinstance(node.slice, ast.Slice):
        return False
    call = node.value
    return (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "get_shape"
        and not call.args
        and not call.keywords
    )


def _own_body(scope: ast.AST) -> list[ast.AST]:
    """`scope`'s statements, less the defs and classes at its top (each is a
    scope of its own; `walk_scope` leaves out only those nested deeper)."""
    return [s for s in scope.body if not isinstance(s, _astutil.SCOPES)]


def _dimension_names(scope: ast.AST) -> set[str]:
    """The names `scope` binds once, by `name = X.get_shape()[i]`, and no other way."""
    body = _own_body(scope)
    is_function = isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef)
    params = _astutil.writes(scope.args) if is_function else set()
    stores: dict[str, int] = {}
    bound_to_dimension = set()
    for node in _astutil.walk_scope(body):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            stores[node.id] = stores.get(node.id, 0) + 1
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and _is_dimension(node.value)
        ):
            bound_to_dimension.add(node.targets[0].id)
    return {n for n in bound_to_dimension if stores.get(n) == 1 and n not in params}


def divisions(m: Module):
    """Each `/` whose left operand is a static dimension, once."""
    for scope in _astutil.scopes(m.tree):
        names = _dimension_names(scope)
        for node in _astutil.walk_scope(_own_body(scope)):
            if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div)):
                continue
            left = node.left
            if _is_dimension(left) or (isinstance(left, ast.Name) and left.id in names):
                yield node


def find(m: Module, ctx: ProgramContext) -> list:
    """The findings so far plus one per static dimension divided with `/`."""
    del ctx
    return m.findings + [
        at(m, d, "Dimension /", m.off.segment(d) or "dimension / n", RULE)
        for d in divisions(m)
    ]


def _edit(m: Module, division: ast.BinOp) -> Edit | None:
    """`/` -> `//` between the operands (None when the text between is odd)."""
    left_end = m.off.span(division.left)[1]
    right_start = m.off.span(division.right)[0]
    between = m.off.source[left_end:right_start]
    if between.count("/") != 1 or "#" in between:
        return None
    at = left_end + between.index("/")
    return Edit(at, at + 1, "//")


def edits(m: Module, ctx: ProgramContext) -> list[Edit]:
    """The edits so far plus each finding's `/` made `//`."""
    del ctx
    plans = []
    for f in m.findings:
        if f.rule.rule_id == RULE_ID and not f.fixed:
            edit = _edit(m, f.node)
            if edit is not None:
                plans.append((edit, [f]))
    return place(m.edits, plans)
