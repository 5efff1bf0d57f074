"""When `--fix` may drop a first layer's `input_shape=` (the keras-input-shape fix).

A `Reshape` or `Flatten` has no weights and maps any input with the right
number of values, so on the first layer of a `Sequential` its declared
`input_shape` (or `input_dim`) only does three things on tf-keras 2: it
checks every call's input against it (the check TF 1.x did not make, which
fails a `[None, 28, 28]` serving placeholder), it builds the model at
construction (so `summary()`, `weights`, `input_shape` and the like work
before the first call), and it creates the variables outside the model's
name scope (`conv2d/kernel`; built at the first call they are
`sequential/conv2d/kernel`). Dropping it keeps every input TF 1.x accepted
and the served signature; it is done only where neither the module nor a
file of the same run that imports it reads an attribute only a built model
answers; the variable names change, which the finding says.
"""

from __future__ import annotations

import ast
import dataclasses
import os

from estimator_multigpu.migrate._edits import Edit, EditSet, Offsets

RULE_ID = "keras-input-shape"
SHAPE_AGNOSTIC = {"Reshape", "Flatten"}
DECLARING = ("input_shape", "input_dim")
# Attributes that need the model built: read before the first call they fail
# or answer differently once the declared shape is gone.
BUILT_ATTRIBUTES = {
    "weights",
    "trainable_weights",
    "non_trainable_weights",
    "variables",
    "trainable_variables",
    "non_trainable_variables",
    "get_weights",
    "set_weights",
    "count_params",
    "input_shape",
    "output_shape",
    "input",
    "output",
    "inputs",
    "outputs",
    "input_spec",
    "get_layer",
    "save",
    "save_weights",
    "load_weights",
    "to_json",
    "to_yaml",
    "plot_model",
    "model_to_dot",
}


def _name(func: ast.AST) -> str | None:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else None


def _first_layers(tree: ast.AST) -> dict[int, ast.Call]:
    """`{id(layer call): Sequential call}` for each literal first layer."""
    out = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or _name(node.func) != "Sequential":
            continue
        layers = node.args[0] if node.args else None
        for keyword in node.keywords:
            if keyword.arg == "layers":
                layers = keyword.value
        if isinstance(layers, (ast.List, ast.Tuple)) and layers.elts:
            first = layers.elts[0]
            if isinstance(first, ast.Call):
                out[id(first)] = node
    return out


def built_reads(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, `.name`) of each read of an attribute only a built model answers.

    `.summary` counts only when called (`tf.summary.scalar` is a module); a
    `.save` on a name holding "saver" is a `tf.train.Saver`.
    """
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "summary":
                out.append((node.lineno, ".summary()"))
        if not isinstance(node, ast.Attribute) or node.attr not in BUILT_ATTRIBUTES:
            continue
        if not isinstance(node.ctx, ast.Load):
            continue
        owner = node.value
        if node.attr == "save" and "saver" in ast.unparse(owner).lower():
            continue
        out.append((node.lineno, f".{node.attr}"))
    return sorted(out)


def why_not(tree: ast.AST, layer: ast.Call) -> str | None:
    """Why `--fix` keeps `layer`'s declared shape, or None when it can drop it."""
    if id(layer) not in _first_layers(tree):
        return "that layer is not the literal first layer of a `Sequential([...])`"
    if _name(layer.func) not in SHAPE_AGNOSTIC:
        return (
            f"`{_name(layer.func)}` is not shape-agnostic (only a Reshape or "
            "Flatten maps any input of that size the same way)"
        )
    reads = built_reads(tree)
    if reads:
        line, attr = reads[0]
        return (
            f"the module reads `{attr}` at line {line}, which needs the model "
            "built from the declared shape before its first call"
        )
    return None


def _keyword(layer: ast.Call) -> ast.keyword:
    return next(k for k in layer.keywords if k.arg in DECLARING)


def drop_edit(layer: ast.Call, off: Offsets) -> Edit:
    """The edit removing `input_shape=`/`input_dim=` (and its comma) from `layer`."""
    keyword = _keyword(layer)
    items = sorted(
        [*layer.args, *layer.keywords], key=lambda n: (n.lineno, n.col_offset)
    )
    i = items.index(keyword)
    start, end = off.span(keyword)
    if i > 0:
        start = off.span(items[i - 1])[1]
    elif i + 1 < len(items):
        end = off.span(items[i + 1])[0]
    return Edit(start, end, "")


def edits(tree, off: Offsets, findings, prior: list[Edit], layers) -> list[Edit]:
    """`prior` plus the drops that resolve the keras-input-shape `findings`.

    Args:
      tree: the module.
      off: positions in its source.
      findings: the module's findings; those resolved are marked fixed.
      prior: the edits already made.
      layers: `{id(receiver call): layer call}` of the droppable layers.
    """
    out, placed, done = list(prior), EditSet(prior), {}
    for f in findings:
        layer = layers.get(id(f.node))
        if f.fixed or layer is None or f.rule.rule_id != RULE_ID:
            continue
        edit = done.get(id(layer)) or drop_edit(layer, off)
        if id(layer) not in done:
            if placed.overlaps(edit):
                continue
            placed.add(edit)
            out.append(edit)
            done[id(layer)] = edit
        f.fixed = True
    return out


def _imports(tree: ast.AST, stem: str) -> bool:
    """True if `tree` imports a module named `stem` (any package path)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [f"{node.module or ''}.{a.name}" for a in node.names]
            names.append(node.module or "")
        else:
            continue
        if any(name.rsplit(".", 1)[-1] == stem for name in names):
            return True
    return False


def _parse(result) -> ast.Module | None:
    """`result`'s scanned text parsed, or None where there is none or it fails.

    A folder holds files the parser refuses (a syntax error, nesting deeper
    than its stack: RecursionError or MemoryError); the runner reported them.
    """
    text = result.base or result.original
    try:
        return ast.parse(text) if text is not None else None
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def program_reasons(results) -> dict[int, str]:
    """`{index: why}` for the results whose drop another file of the program undoes.

    A file that imports the rewritten module and reads what only a built
    model answers (`create_model(...).summary()` elsewhere) needs the
    declared shape kept, as in the module itself.
    """
    fixed = [
        i
        for i, result in enumerate(results)
        if any(f.fixed and f.rule.rule_id == RULE_ID for f in result.findings)
    ]
    if not fixed:
        return {}
    trees = {i: _parse(result) for i, result in enumerate(results)}
    out = {}
    for i in fixed:
        stem = os.path.splitext(os.path.basename(results[i].path))[0]
        for j, tree in trees.items():
            reads = built_reads(tree) if j != i and tree is not None else []
            if reads and _imports(tree, stem):
                line, attr = reads[0]
                out[i] = (
                    f"{results[j].path} imports this module and reads `{attr}` "
                    f"at line {line}, which needs the model built from the "
                    "declared shape before its first call"
                )
                break
    return out


def keep(findings, why: str) -> None:
    """Rewrites the keras-input-shape findings' text: the shape stays, because `why`."""
    for f in findings:
        if f.rule.rule_id != RULE_ID:
            continue
        text = f.rule.replacement
        head = text.split("--fix drops", 1)[0]
        receiver = text.rsplit("replace the receiver fn with: ", 1)[-1]
        new = f"{head}--fix leaves it: {why}; replace the receiver fn with: {receiver}"
        f.rule = dataclasses.replace(f.rule, replacement=new)
        f.fixed = False
