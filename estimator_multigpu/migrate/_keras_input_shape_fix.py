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

from estimator_multigpu.migrate import _astutil, _keras_input_shape_reads
from estimator_multigpu.migrate._edits import Edit, EditSet, Offsets

RULE_ID = "keras-input-shape"
SHAPE_AGNOSTIC = {"Reshape", "Flatten"}
DECLARING = ("input_shape", "input_dim")
RECEIVER_FN = "serving_input_receiver_fn"
# Leads the receiver fn the finding gives, at the end of its text.
RECEIVER = (
    f"replace the receiver fn with `{RECEIVER_FN}`, which builds its "
    "placeholder in the export's graph: "
)


def _name(func: ast.AST) -> str | None:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else None


def _first_layers(tree: ast.AST) -> dict[int, ast.Call]:
    """`{id(layer call): Sequential call}` for each literal first layer."""
    out = {}
    for node in _astutil.walk(tree):
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


class Guard:
    """What `why_not` reads of one module, found once for all its layers.

    The first layers come from one walk of the module and its built-model
    reads from one analysis, made at the first layer that needs them; a
    guard belongs to one tree (build another for another tree).
    """

    def __init__(self, tree: ast.AST):
        self.tree = tree
        self.first_layers = _first_layers(tree)
        self._reads: list[tuple[int, str]] | None = None

    def reads(self) -> list[tuple[int, str]]:
        """`reads.reads(tree)`, computed at the first call."""
        if self._reads is None:
            self._reads = _keras_input_shape_reads.reads(self.tree)
        return self._reads


def why_not(guard: Guard, layer: ast.Call) -> str | None:
    """Why `--fix` keeps `layer`'s declared shape, or None when it can drop it.

    Args:
      guard: the `Guard` of the module holding `layer`.
      layer: a layer call with a declared shape.
    """
    if id(layer) not in guard.first_layers:
        return "that layer is not the literal first layer of a `Sequential([...])`"
    if _name(layer.func) not in SHAPE_AGNOSTIC:
        return (
            f"`{_name(layer.func)}` is not shape-agnostic (only a Reshape or "
            "Flatten maps any input of that size the same way)"
        )
    found = guard.reads()
    return f"the module {found[0][1]}" if found else None


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


def _module_parts(path: str) -> list[str]:
    """`['pkg', 'model_def']` for `.../pkg/model_def.py` (a package: its folder)."""
    parts = os.path.normpath(os.path.splitext(path)[0]).split(os.sep)
    return parts[:-1] if parts[-1] == "__init__" else parts


def _names(dotted: str, parts: list[str]) -> bool:
    """True if the import of `dotted` may load the module at `parts`."""
    wanted = dotted.split(".")
    return bool(dotted) and parts[-len(wanted) :] == wanted


def _bound(tree: ast.AST, parts: list[str], offered: _keras_input_shape_reads.Seeds):
    """What `tree` binds of the module at `parts`; None if it does not import it.

    Import names are matched by their last parts (`import model_def` may be
    any `model_def.py`; `sub.model_def` only one in a `sub` folder), so a
    module of the same name elsewhere only makes the guard keep more.
    """
    seeds = _keras_input_shape_reads.Seeds()
    for node in _astutil.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _names(alias.name, parts):
                    _as_module(seeds, alias.asname or alias.name, offered)
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                _from(seeds, node.module or "", alias, parts, offered)
    found = seeds.modules or seeds.names or seeds.functions
    return seeds if found else None


def _as_module(
    seeds: _keras_input_shape_reads.Seeds,
    local: str,
    offered: _keras_input_shape_reads.Seeds,
) -> None:
    seeds.modules.add(local)
    seeds.functions.update(f"{local}.{f}" for f in offered.functions)
    seeds.names.update(f"{local}.{n}" for n in offered.names)


def _from(seeds, module: str, alias: ast.alias, parts, offered) -> None:
    """`from module import name [as local]`: the module itself or a member."""
    local = alias.asname or alias.name
    if _names(f"{module}.{alias.name}".lstrip("."), parts):
        _as_module(seeds, local, offered)
    elif _names(module, parts):
        for source, into in (
            (offered.functions, seeds.functions),
            (offered.names, seeds.names),
        ):
            if alias.name == "*":
                into.update(source)
            elif alias.name in source:
                into.add(local)
        seeds.modules.add(local)


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


def program(results) -> dict[int, dict]:
    """The `'program'` rule: `{index: {"keep_input_shape": why}}` for the
    results whose drop another file of the program undoes.

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
        why = _read_elsewhere(results, trees, i)
        if why is not None:
            out[i] = {"keep_input_shape": why}
    return out


def _read_elsewhere(results, trees: dict, i: int) -> str | None:
    """Why another file keeps result `i`'s declared shape, or None."""
    if trees[i] is None:
        return None
    parts, offered = (
        _module_parts(results[i].path),
        _keras_input_shape_reads.exported(trees[i]),
    )
    for j, tree in trees.items():
        seeds = _bound(tree, parts, offered) if j != i and tree is not None else None
        found = _keras_input_shape_reads.reads(tree, seeds) if seeds is not None else []
        if found:
            return f"{results[j].path} imports this module and {found[0][1]}"
    return None


def keep(findings, why: str) -> None:
    """Rewrites the keras-input-shape findings' text: the shape stays, because `why`."""
    for f in findings:
        if f.rule.rule_id != RULE_ID:
            continue
        text = f.rule.replacement
        head = text.split("--fix drops", 1)[0]
        receiver = text.rsplit(RECEIVER, 1)[-1]
        new = f"{head}--fix leaves it: {why}; {RECEIVER}{receiver}"
        f.rule = dataclasses.replace(f.rule, replacement=new)
        f.fixed = False
