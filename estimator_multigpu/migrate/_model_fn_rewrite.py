"""A tower loop inside a model_fn, rewritten to one tower per call.

The loop runs once (`range(1)`: its lists hold the one tower, the inline
averaging and the `tf.concat`/`reduce_mean` over towers see one entry), its
`tf.device(...)` goes (the towers' devices are emg's), the Estimator gets
`emg.replicate_model_fn(model_fn, devices=emg.devices.resolve(num_gpus=N))`,
and the input_fn's `num_shards=N` becomes `num_shards=1`: one list of the
global batch, which replicate_model_fn splits. A plain optimizer's
`apply_gradients` in the model_fn acts as `emg.TowerOptimizer`'s there.
All of these edits or none.
"""

from __future__ import annotations

import ast
import dataclasses

from estimator_multigpu.migrate import (
    _aliases,
    _astutil,
    _device_hoist,
    _tower_body,
    _tower_loops,
)
from estimator_multigpu.migrate._edits import Edit, Offsets, apply

_MODEL_FN_ARGS = {"features", "labels", "mode"}


def takes_model_fn_args(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether `func` takes at least two of a model_fn's features, labels, mode."""
    return len({a.arg for a in func.args.args} & _MODEL_FN_ARGS) >= 2


_ESTIMATORS = ("tf.estimator.Estimator", "tf.contrib.learn.Estimator")

NotRewritable = _tower_body.NotCanonical


@dataclasses.dataclass
class Plan:
    """The edits for one module, and the loop they rewrite.

    Attributes:
      loop: the tower loop.
      edits: the text edits.
      site: the Estimator's model_fn argument.
      shards: the input_fn calls' `num_shards=` keywords.
      count: the device count's text at the Estimator.
    """

    loop: ast.For
    edits: list
    site: ast.expr
    shards: list
    count: str


def _model_fns(tree: ast.Module):
    """(model_fn, its enclosing function or None) for every model_fn."""
    parents = {}
    for node in _astutil.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    for node in _astutil.walk(tree):
        if isinstance(node, ast.FunctionDef) and takes_model_fn_args(node):
            parent = parents.get(id(node))
            yield node, parent if isinstance(parent, ast.FunctionDef) else None


def _loops(func: ast.FunctionDef, table):
    return [
        n
        for n in _astutil.walk_scope(func.body)
        if isinstance(n, ast.For) and _tower_loops.is_tower_loop(n, table)
    ]


def _range_name(loop: ast.For) -> str | None:
    """`n` for `for ... in range(n)` (or xrange) over a plain name, else None."""
    it = loop.iter
    if (
        isinstance(it, ast.Call)
        and isinstance(it.func, ast.Name)
        and it.func.id in ("range", "xrange")
        and len(it.args) == 1
        and isinstance(it.args[0], ast.Name)
    ):
        return it.args[0].id
    return None


def _sources(func, name: str, params: list[str]) -> set[str] | None:
    """The parameters `name` is assigned from in `func` (`= 1` aside), or None
    when it is assigned anything else."""
    sources = set()
    for node in _astutil.walk_scope(func.body):
        if not isinstance(node, ast.Assign):
            continue
        if [ast.unparse(t) for t in node.targets] != [name]:
            continue
        value = node.value
        if isinstance(value, ast.Name) and value.id in params:
            sources.add(value.id)
        elif not (isinstance(value, ast.Constant) and value.value == 1):
            return None
    return sources


def _count_param(loop: ast.For, func, outer) -> str | None:
    """The enclosing function's parameter the loop's count comes from.

    `range(num_gpus)`, or `range(num_devices)` with `num_devices = num_gpus`
    (and `num_devices = 1` for no GPU) in the model_fn.
    """
    name = _range_name(loop)
    if name is None or outer is None:
        return None
    params = [a.arg for a in outer.args.args]
    if name in params:
        return name
    sources = _sources(func, name, params)
    return sources.pop() if sources and len(sources) == 1 else None


def _argument(call: ast.Call, outer: ast.FunctionDef, param: str):
    """The argument `call` (of `outer`) passes for `param`."""
    for k in call.keywords:
        if k.arg == param:
            return k.value
    index = [a.arg for a in outer.args.args].index(param)
    return call.args[index] if index < len(call.args) else None


def _estimator_site(tree, table, outer: ast.FunctionDef):
    """(the Estimator's model_fn argument node, the `outer(...)` call in it)."""
    found = []
    for node in _astutil.walk(tree):
        if isinstance(node, ast.Call) and table.resolve_tf(node.func) in _ESTIMATORS:
            args = [k.value for k in node.keywords if k.arg == "model_fn"]
            args = args or node.args[:1]
            for arg in args:
                if (
                    isinstance(arg, ast.Call)
                    and isinstance(arg.func, ast.Name)
                    and arg.func.id == outer.name
                ):
                    found.append(arg)
    if len(found) != 1:
        raise NotRewritable(
            f"no one Estimator built with model_fn={outer.name}(...) in this file"
        )
    return found[0]


def _shard_keywords(tree, count: str) -> list[ast.keyword]:
    """The `num_shards=<count>` keywords of the input_fn calls."""
    return [
        k
        for node in _astutil.nodes(tree, ast.Call)
        for k in node.keywords
        if k.arg == "num_shards" and ast.unparse(k.value) == count
    ]


def _device_with(loop: ast.For, table) -> ast.With:
    """The loop's `with tf.device(...)` (alone in its `with`, holding the tower)."""
    withs = [
        n
        for n in _astutil.walk_scope(loop.body)
        if isinstance(n, ast.With)
        and any(
            table.resolve_tf(getattr(i.context_expr, "func", None)) == "tf.device"
            for i in n.items
        )
    ]
    if len(withs) != 1 or len(withs[0].items) != 1:
        raise NotRewritable("the loop has not one `with tf.device(...):` of its own")
    return withs[0]


def _dedented(off: Offsets, node: ast.With) -> str:
    """The `with` statement's body, at the `with`'s own indentation."""
    start = off.line_start(node.body[0].lineno)
    end = off.line_end(node.body[-1].end_lineno)
    shift = off.column(node.body[0]) - off.column(node)
    out = []
    for line in off.source[start:end].splitlines(keepends=True):
        pad = len(line) - len(line.lstrip(" "))
        out.append(line[min(pad, shift) :])
    return "".join(out)


def plan(
    tree, table: _aliases.AliasTable, off: Offsets, emg: str, taken=None, prior=()
) -> Plan:
    """The edits that make the module's model_fn tower loop one replicated tower.

    With `taken` (the module's names), the Estimator's devices are resolved
    by a statement of their own, early in the function that builds the
    Estimator (`_device_hoist`; `prior`: the edits already made).

    Raises:
      NotRewritable: with the reason, if any edit cannot be made.
    """
    candidates = [
        (f, o, loop) for f, o in _model_fns(tree) for loop in _loops(f, table)
    ]
    if len(candidates) != 1:
        raise NotRewritable("not one tower loop in one model_fn in this file")
    func, outer, loop = candidates[0]
    param = _count_param(loop, func, outer)
    if param is None:
        raise NotRewritable(
            "the loop's count is not a parameter of the function that returns "
            "the model_fn (`get_model_fn(num_gpus, ...)`)"
        )
    site = _estimator_site(tree, table, outer)
    count = _argument(site, outer, param)
    if count is None:
        raise NotRewritable(f"{outer.name}(...) gets no `{param}` argument")
    count_text = off.text(count)
    shards = _shard_keywords(tree, count_text)
    if not shards:
        raise NotRewritable(f"no input_fn call passes num_shards={count_text}")
    device = _device_with(loop, table)
    start, end = off.line_start(device.lineno), off.line_end(device.end_lineno)
    early = None
    if taken is not None:
        early = _device_hoist.hoist(tree, site, count_text, off, emg, taken, prior)
    devices = early.name if early else f"{emg}.devices.resolve(num_gpus={count_text})"
    edits = [
        off.replace(loop.iter.args[0], "1"),
        Edit(start, end, _dedented(off, device)),
        off.replace(
            site, f"{emg}.replicate_model_fn({off.text(site)}, devices={devices})"
        ),
    ]
    edits += [early.edit] if early else []
    edits += [off.replace(k.value, "1") for k in shards]
    return Plan(loop, edits, site, shards, count_text)


def describe(plan: Plan, off: Offsets) -> str:
    """The rewrite, edit by edit, with the lines it touches."""
    lines = ", ".join(str(k.value.lineno) for k in plan.shards)
    return (
        f"one tower per model_fn call: `for ... in range(1)` and the loop's "
        f"tf.device dropped (line {plan.loop.lineno}); at line {plan.site.lineno} "
        f"model_fn=emg.replicate_model_fn({off.text(plan.site)}, "
        f"devices=emg.devices.resolve(num_gpus={plan.count})); num_shards=1 "
        f"at line {lines} (the input_fn returns the global batch, split by "
        "replicate_model_fn); the model_fn's plain optimizer acts as "
        "emg.TowerOptimizer there"
    )


def text_of(source: str, edits: list[Edit]) -> str:
    """`source` with `edits` (for checks)."""
    return apply(source, edits)
