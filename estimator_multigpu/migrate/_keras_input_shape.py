"""A serving placeholder whose shape the model's declared `input_shape` refuses.

TF 1.x Keras models did not check a call's input against the first layer's
`input_shape`, so 2018 code exported with a serving placeholder of another
shape holding the same number of values (tensorflow/models official/mnist:
`Reshape(target_shape=..., input_shape=(28 * 28,))` fed a `[None, 28, 28]`
placeholder), and the model's own `Reshape` fixed it up. tf-keras 2 and Keras
3 check: the export fails with `Input 0 of layer ... is incompatible`. The
fix keeps the served signature: where the layer is a Reshape or Flatten first in a
`Sequential` and the module reads nothing a built model answers, `--fix`
drops the declared shape (`_keras_input_shape_fix`); elsewhere the finding
gives the receiver that reshapes the placeholder before the model sees it.
"""

from __future__ import annotations

import ast
import math
import operator

from estimator_multigpu.migrate import _keras_input_shape_fix as drop
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
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        for keyword in node.keywords:
            if keyword.arg not in drop.DECLARING:
                continue
            dims = _literal_dims(keyword.value)
            if keyword.arg == "input_dim":
                dims = [_int(keyword.value)]
            if dims and None not in dims:
                out.append((node, dims))
    return out


def _placeholders(tree: ast.AST) -> dict[str, list[int | None]]:
    """`{name: shape}` of `name = <tf>.placeholder(dtype, [None, ...])`."""
    found = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target, call = node.targets[0], node.value
        if not isinstance(target, ast.Name) or not isinstance(call, ast.Call):
            continue
        if _attr(call) not in _PLACEHOLDERS:
            continue
        shape = call.args[1] if len(call.args) > 1 else None
        for keyword in call.keywords:
            if keyword.arg == "shape":
                shape = keyword.value
        dims = _literal_dims(shape) if shape is not None else None
        if dims and dims[0] is None and None not in dims[1:]:
            found[target.id] = dims
    return found


def _receiver_text(call: ast.Call, features: ast.Dict, fixes: dict) -> str:
    """The exact replacement of `build_raw_serving_input_receiver_fn({...})`."""
    module = (
        ast.unparse(call.func.value) if isinstance(call.func, ast.Attribute) else ""
    )
    prefix = "emg.estimator.export" if "estimator" in module else module or "export"
    items = []
    for key, value in zip(features.keys, features.values):
        name = ast.unparse(value)
        shape = fixes.get(name)
        reshaped = (
            f"tf.reshape({name}, [-1, {', '.join(map(str, shape))}])" if shape else name
        )
        items.append(f"{ast.unparse(key)}: {reshaped}")
    receivers = ", ".join(
        f"{ast.unparse(k)}: {ast.unparse(v)}"
        for k, v in zip(features.keys, features.values)
    )
    return (
        f"lambda: {prefix}.ServingInputReceiver({{{', '.join(items)}}}, "
        f"{{{receivers}}})"
    )


def _hits(tree: ast.Module):
    """Yields (receiver call, placeholder name, dims, layer, receiver text)."""
    declared = _declared_input_shapes(tree)
    if not declared:
        return
    placeholders = _placeholders(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or _attr(node) not in _RECEIVER_FNS:
            continue
        if not node.args or not isinstance(node.args[0], ast.Dict):
            continue
        features = node.args[0]
        fixes = {}
        for value in features.values:
            shape = placeholders.get(getattr(value, "id", None))
            if shape is None:
                continue
            for layer, dims in declared:
                if shape[1:] != dims and math.prod(shape[1:]) == math.prod(dims):
                    fixes[value.id] = (dims, layer)
        if not fixes:
            continue
        name, (dims, layer) = next(iter(fixes.items()))
        text = _receiver_text(node, features, {k: v[0] for k, v in fixes.items()})
        yield node, name, dims, layer, text, placeholders[name]


def droppable(tree: ast.Module) -> dict[int, ast.Call]:
    """`{id(receiver call): layer call}` where `--fix` drops the declared shape."""
    return {
        id(hit[0]): hit[3] for hit in _hits(tree) if drop.why_not(tree, hit[3]) is None
    }


def _why(tree, name, dims, layer, text, shape) -> str:
    head = (
        f"`{name}` is {shape} but the layer at line {layer.lineno} "
        f"declares input_shape={tuple(dims)}; "
    )
    reason = drop.why_not(tree, layer)
    if reason is None:
        return head + (
            f"--fix drops that argument: the layer maps any input of "
            f"{math.prod(dims)} values the same way, and the served signature "
            f"stays {shape}. The model is then built at its first call, so its "
            "variables are named under its scope (e.g. `sequential/conv2d/kernel`, "
            "not `conv2d/kernel`) and a checkpoint written with the argument "
            "does not restore; to keep such a checkpoint, put the argument "
            f"back and replace the receiver fn with: {text}"
        )
    return head + f"--fix leaves it: {reason}; replace the receiver fn with: {text}"


def find(tree: ast.Module):
    """Yields (node, api, text, rule) for each receiver the model would refuse."""
    for node, name, dims, layer, text, shape in _hits(tree):
        why = _why(tree, name, dims, layer, text, shape)
        yield node, "build_raw_serving_input_receiver_fn", ast.unparse(node), _rule(why)


def _rule(replacement: str) -> GuideRule:
    return rule(RULE_ID, _SUMMARY, replacement, ANCHOR)
