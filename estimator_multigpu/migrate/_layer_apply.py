"""`layer.apply(inputs)`: TF 1.x's alias of calling a layer, which TF 2 dropped.

TF 1.x's Keras and `tf.layers` layers had `apply(inputs, *args, **kwargs)`,
deprecated in favour of calling the layer and defined as exactly that
(`return self.__call__(inputs, *args, **kwargs)`). Neither Keras 3 nor
tf-keras layers have it (AttributeError). `.apply` is also a method of
datasets and of ExponentialMovingAverage, so a call is rewritten only when
its receiver is provably a layer: a call of a layer class
(`tf.keras.layers.*`, `tf.keras.Sequential`/`Model`, `tf.layers.*`), of a
`functools.partial` of one, of an entry of a dict literal whose every value
is one, or of a module function whose every return is a layer; or a name
bound to such a value and to nothing else. `X.apply(a)` becomes `X(a)`.
"""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import _astutil
from estimator_multigpu.migrate._edits import Edit, EditSet
from estimator_multigpu.migrate._engine import Module, ProgramContext
from estimator_multigpu.migrate._finding import Finding
from estimator_multigpu.migrate._guide_rules import rule

RULE_ID = "layer-apply"
ANCHOR = "layer-apply"
RULE = rule(
    RULE_ID,
    "Layer.apply(inputs) was TF 1.x's deprecated alias of calling the layer; "
    "Keras 3 and tf-keras layers have no `apply` (AttributeError)",
    "layer(inputs) (the same call; emg-migrate --fix writes it)",
    ANCHOR,
    fixable=True,
)
# Dotted prefixes (from `tf.`, or Keras 3's `keras.`) of the layer classes.
_LAYER_MODULES = ("tf.keras.layers.", "tf.layers.", "keras.layers.")
_MODELS = frozenset(
    f"{root}{name}"
    for root in ("tf.keras.", "tf.keras.models.", "keras.", "keras.models.")
    for name in ("Sequential", "Model")
)
_PARTIAL = "functools.partial"
_DEPTH = 8  # how many bindings deep a receiver is followed


def _is_layer_class(path: str | None) -> bool:
    if not path:
        return False
    if path in _MODELS:
        return True
    module = next((m for m in _LAYER_MODULES if path.startswith(m)), None)
    return module is not None and path[len(module) :][:1].isupper()


class _Bindings:
    """What each name of the module is bound to: simple assignments (all of
    them, module-wide), module functions, and names bound any other way."""

    def __init__(self, tree: ast.Module, table):
        self.table = table
        self.values: dict[str, list[ast.expr]] = {}
        self.functions: dict[str, list[ast.FunctionDef]] = {}
        self.other: set[str] = set()
        self._simple: set[int] = set()  # ids of the targets of simple assignments
        for node in _astutil.walk(tree):
            self._add(node)

    def _add(self, node: ast.AST) -> None:
        if isinstance(node, ast.Assign) and all(
            isinstance(t, ast.Name) for t in node.targets
        ):
            for target in node.targets:
                self.values.setdefault(target.id, []).append(node.value)
                self._simple.add(id(target))
            return
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            self.functions.setdefault(node.name, []).append(node)
        elif isinstance(node, ast.ClassDef):
            self.other.add(node.name)
        elif isinstance(node, ast.arg):
            self.other.add(node.arg)
        elif isinstance(node, ast.alias):
            self.other.add(node.asname or node.name.split(".")[0])
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            if id(node) not in self._simple:
                self.other.add(node.id)

    def only_assigned(self, name: str) -> list[ast.expr] | None:
        """The values `name` is assigned, when it is bound no other way."""
        if name in self.other or name in self.functions:
            return None
        return self.values.get(name)

    def factory(self, node: ast.expr, depth: int = 0) -> bool:
        """True when calling `node` always makes a layer."""
        if depth > _DEPTH:
            return False
        if isinstance(node, ast.Name | ast.Attribute) and _is_layer_class(
            self.table.resolve_tf(node) or self.table.resolve(node)
        ):
            return True
        if isinstance(node, ast.Name):
            return self._named_factory(node.id, depth)
        if isinstance(node, ast.Call):
            partial = self.table.resolve(node.func) == _PARTIAL
            return partial and bool(node.args) and self.factory(node.args[0], depth + 1)
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            return self._dict_of_factories(node.value.id, depth)
        return False

    def _dict_of_factories(self, name: str, depth: int) -> bool:
        """True when `name` is bound only to dict literals of layer factories."""
        tables = self.only_assigned(name) or []
        return bool(tables) and all(
            isinstance(t, ast.Dict)
            and t.values
            and all(self.factory(v, depth + 1) for v in t.values)
            for t in tables
        )

    def _named_factory(self, name: str, depth: int) -> bool:
        if (
            name in self.functions
            and name not in self.values
            and name not in self.other
        ):
            returns = [
                r.value
                for f in self.functions[name]
                for r in _astutil.nodes(f, ast.Return)
            ]
            return bool(returns) and all(
                r is not None and self.value(r, depth + 1) for r in returns
            )
        values = self.only_assigned(name)
        return bool(values) and all(self.factory(v, depth + 1) for v in values)

    def value(self, node: ast.expr, depth: int = 0) -> bool:
        """True when `node` always evaluates to a layer."""
        if depth > _DEPTH:
            return False
        if isinstance(node, ast.Call):
            return self.factory(node.func, depth + 1)
        if isinstance(node, ast.Name):
            values = self.only_assigned(node.id)
            return bool(values) and all(self.value(v, depth + 1) for v in values)
        return False


def _applies(tree: ast.Module):
    for node in _astutil.walk(tree):
        func = node.func if isinstance(node, ast.Call) else None
        if isinstance(func, ast.Attribute) and func.attr == "apply" and node.args:
            yield node


def _text(segment: str | None) -> str:
    """The receiver and `.apply` as written, or `.apply` when it spans lines."""
    return segment if segment and "\n" not in segment else ".apply"


def find(m: Module, ctx: ProgramContext) -> list:
    """The findings so far plus one per `apply` call of a layer."""
    del ctx
    calls = list(_applies(m.tree))
    if not calls:
        return m.findings
    bindings = _Bindings(m.tree, m.table)
    out = list(m.findings)
    for call in calls:
        if bindings.value(call.func.value):
            out.append(
                Finding(
                    m.path,
                    call.func.end_lineno,
                    m.off.column(call) + 1,
                    "Layer.apply",
                    _text(m.off.segment(call.func)),
                    RULE,
                    call,
                )
            )
    return out


def edits(m: Module, ctx: ProgramContext) -> list[Edit]:
    """The edits so far plus each finding's `.apply` removed."""
    del ctx
    out, placed = list(m.edits), EditSet(m.edits)
    for f in m.findings:
        if f.rule.rule_id != RULE_ID or f.fixed:
            continue
        edit = Edit(m.off.span(f.node.func.value)[1], m.off.span(f.node.func)[1], "")
        if placed.overlaps(edit):
            continue
        placed.add(edit)
        out.append(edit)
        f.fixed = True
    return out
