"""A serving placeholder whose shape the model's declared `input_shape` refuses.

TF 1.x Keras models did not check a call's input against the first layer's
`input_shape`, so 2018 code exported with a serving placeholder of another
shape holding the same number of values (e.g.
`Reshape(target_shape=..., input_shape=(28 * 28,))` fed a `[None, 28, 28]`
placeholder), and the model's own `Reshape` fixed it up. tf-keras 2 and Keras
3 check: the export fails with `Input 0 of layer ... is incompatible`. The
fix keeps the served signature: where the layer is a Reshape or Flatten first in a
`Sequential` and the module reads nothing a built model answers, `--fix`
drops the declared shape (`_keras_input_shape_fix`); elsewhere the finding
gives the receiver that reshapes the placeholder before the model sees it,
building that placeholder itself, in the graph the export calls it in.
"""

from __future__ import annotations

import ast
import math
import operator

from estimator_multigpu.migrate import _astutil, _keras_input_shape_fix
from estimator_multigpu.migrate._guide_rules import GuideRule, rule

RULE_ID = "keras-input-shape"
ANCHOR = "keras-input-shape"
_SUMMARY = (
    "tf-keras 2 and Keras 3 check a model's input against the first layer's "
    "`input_shape`; TF 1.x did not, so this serving placeholder fails the export"
)
_PLACEHOLDERS = {"placeholder"}
_RECEIVER_FNS = {"build_raw_serving_input_receiver_fn"}


_OPERATORS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
}


def _int(node: ast.AST) -> int | None:
    """The value of an int literal or of `+ - * //` over them, else None."""
    if isinstance(node, ast.Constant):
        value = node.value
        return value if isinstance(value, int) and not isinstance(value, bool) else None
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left, right = _int(node.left), _int(node.right)
        if (
            left is None
            or right is None
            or (right == 0 and type(node.op) is ast.FloorDiv)
        ):
            return None
        return _OPERATORS[type(node.op)](left, right)
    return None


def _literal_dims(node: ast.AST) -> list[int | None] | None:
    """`[d, ...]` of a literal shape (None for a None entry), else None."""
    if not isinstance(node, (ast.List, ast.Tuple)):
        return None
    dims = []
    for element in node.elts:
        if isinstance(element, ast.Constant) and element.value is None:
            dims.append(None)
            continue
        value = _int(element)
        if value is None:
            return None
        dims.append(value)
    return dims


def _attr(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else None


def _declared_input_shapes(tree: ast.AST) -> list[tuple[ast.Call, list[int]]]:
    """Layer calls with a literal `input_shape=` or `input_dim=`."""
    out = []
    for node in _astutil.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        for keyword in node.keywords:
            if keyword.arg not in _keras_input_shape_fix.DECLARING:
                continue
            dims = _literal_dims(keyword.value)
            if keyword.arg == "input_dim":
                dims = [_int(keyword.value)]
            if dims and None not in dims:
                out.append((node, dims))
    return out


def _placeholder_calls(tree: ast.AST) -> dict[str, ast.Call]:
    """`{name: call}` of each `name = <tf>.placeholder(...)`."""
    found = {}
    for node in _astutil.walk(tree):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target, call = node.targets[0], node.value
        if isinstance(target, ast.Name) and isinstance(call, ast.Call):
            if _attr(call) in _PLACEHOLDERS:
                found[target.id] = call
    return found


def _placeholders(calls: dict[str, ast.Call]) -> dict[str, list[int | None]]:
    """`{name: shape}` of the placeholders `[None, ...]` of a literal shape."""
    found = {}
    for name, call in calls.items():
        shape = call.args[1] if len(call.args) > 1 else None
        for keyword in call.keywords:
            if keyword.arg == "shape":
                shape = keyword.value
        dims = _literal_dims(shape) if shape is not None else None
        if dims and dims[0] is None and None not in dims[1:]:
            found[name] = dims
    return found


def _tf_module(call: ast.Call) -> str:
    """`tf` for `tf.placeholder(...)`, `tf.compat.v1` for its long spelling."""
    func = call.func
    return ast.unparse(func.value) if isinstance(func, ast.Attribute) else "tf"


def _receiver_text(call: ast.Call, features: ast.Dict, fixes: dict, calls) -> str:
    """The receiver fn replacing `build_raw_serving_input_receiver_fn({...})`.

    It builds its placeholders itself: the export calls it in a graph of its
    own, where the program's placeholders do not exist ("must be from the
    same graph"). A feature that is no placeholder of the module gets one of
    its dtype and shape, as the replaced call made.
    """
    module = (
        ast.unparse(call.func.value) if isinstance(call.func, ast.Attribute) else ""
    )
    prefix = "emg.estimator.export" if "estimator" in module else module or "export"
    first = calls[next(iter(fixes))]
    tf_module = _tf_module(first)
    body, items, receivers = [], [], []
    for key, value in zip(features.keys, features.values):
        name = local = ast.unparse(value)
        if isinstance(value, ast.Name) and name in calls:
            body.append(f"{name} = {ast.unparse(calls[name])}")
        elif isinstance(value, ast.Name):
            local = f"{name}_input"
            body.append(
                f"{local} = {ast.unparse(first.func)}({name}.dtype, {name}.shape)"
            )
        shape = fixes.get(name)
        dims = ", ".join(map(str, shape or []))
        feature = f"{tf_module}.reshape({local}, [-1, {dims}])" if shape else local
        items.append(f"{ast.unparse(key)}: {feature}")
        receivers.append(f"{ast.unparse(key)}: {local}")
    body.append(
        f"return {prefix}.ServingInputReceiver({{{', '.join(items)}}}, "
        f"{{{', '.join(receivers)}}})"
    )
    return f"def {_keras_input_shape_fix.RECEIVER_FN}(): " + "; ".join(body)


def _by_size(declared) -> dict[int, tuple]:
    """`{values: (last, other)}` over the declared layers of each input size.

    `last` is the last `(dims, layer)` declaring that many values; `other`
    the last one whose dims differ from `last`'s (or None), so the last
    layer of a size whose dims differ from a placeholder's is found without
    a pass over every layer per placeholder.
    """
    out = {}
    for layer, dims in declared:
        size = math.prod(dims)
        last, other = out.get(size, (None, None))
        if last is not None and last[0] != dims:
            other = last
        out[size] = ((dims, layer), other)
    return out


def _last_match(by_size: dict, dims: list[int]) -> tuple | None:
    """The last `(dims, layer)` of `dims`' size whose dims are not `dims`, or None."""
    last, other = by_size.get(math.prod(dims), (None, None))
    if last is not None and last[0] != dims:
        return last
    return other


def _hits(tree: ast.Module):
    """Yields (receiver call, placeholder name, dims, layer, receiver text)."""
    declared = _declared_input_shapes(tree)
    if not declared:
        return
    by_size = _by_size(declared)
    calls = _placeholder_calls(tree)
    placeholders = _placeholders(calls)
    for node in _astutil.walk(tree):
        if not isinstance(node, ast.Call) or _attr(node) not in _RECEIVER_FNS:
            continue
        if not node.args or not isinstance(node.args[0], ast.Dict):
            continue
        features = node.args[0]
        if None in features.keys:  # `{**more}`: the features are not all here
            continue
        fixes = {}
        for value in features.values:
            shape = placeholders.get(getattr(value, "id", None))
            match = _last_match(by_size, shape[1:]) if shape is not None else None
            if match is not None:
                fixes[value.id] = match
        if not fixes:
            continue
        name, (dims, layer) = next(iter(fixes.items()))
        shapes = {k: v[0] for k, v in fixes.items()}
        text = _receiver_text(node, features, shapes, calls)
        yield node, name, dims, layer, text, placeholders[name]


def droppable(tree: ast.Module) -> dict[int, ast.Call]:
    """`{id(receiver call): layer call}` where `--fix` drops the declared shape."""
    guard = _keras_input_shape_fix.Guard(tree)
    return {
        id(hit[0]): hit[3]
        for hit in _hits(tree)
        if _keras_input_shape_fix.why_not(guard, hit[3]) is None
    }


def _why(guard, name, dims, layer, text, shape) -> str:
    head = (
        f"`{name}` is {shape} but the layer at line {layer.lineno} "
        f"declares input_shape={tuple(dims)}; "
    )
    reason = _keras_input_shape_fix.why_not(guard, layer)
    if reason is None:
        return head + (
            f"--fix drops that argument: the layer maps any input of "
            f"{math.prod(dims)} values the same way, and the served signature "
            f"stays {shape}. The model is then built at its first call, so its "
            "variables are named under its scope (e.g. `sequential/conv2d/kernel`, "
            "not `conv2d/kernel`) and a checkpoint written with the argument "
            "does not restore; to keep such a checkpoint, put the argument "
            f"back and {_keras_input_shape_fix.RECEIVER}{text}"
        )
    return head + f"--fix leaves it: {reason}; {_keras_input_shape_fix.RECEIVER}{text}"


def find(tree: ast.Module):
    """Yields (node, api, text, rule) for each receiver the model would refuse."""
    guard = _keras_input_shape_fix.Guard(tree)
    for node, name, dims, layer, text, shape in _hits(tree):
        why = _why(guard, name, dims, layer, text, shape)
        yield node, "build_raw_serving_input_receiver_fn", ast.unparse(node), _rule(why)


def _rule(replacement: str) -> GuideRule:
    return rule(RULE_ID, _SUMMARY, replacement, ANCHOR)
