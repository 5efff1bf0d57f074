"""Exact rewrites of era names and calls: TF 0.x loss arguments, contrib's
TFRecordDataset and flatten, contrib.tfprof, and device_lib GPU counts."""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import (
    _aliases,
    _api_changes,
    _astutil,
    _device_count,
    _learn_names,
    _loss_args,
    _replicate_args,
    _rules,
    _slim_layers,
)
from estimator_multigpu.migrate._edits import Edit, Offsets, Unsafe

_PROF = "compat.v1.profiler"
_ANALYZER = "tf.contrib.tfprof.model_analyzer."
_OPTIONS = {
    "TRAINABLE_VARS_PARAMS_STAT_OPTIONS": "trainable_variables_parameter()",
    "FLOAT_OPS_OPTIONS": "float_operation()",
    "PRINT_ALL_TIMING_MEMORY": "time_and_memory()",
}
_PRINT = _ANALYZER + "print_model_analysis"
_PRINT_ARGS = ("graph", "run_meta", "op_log", "cmd", "options")
# contrib name -> (module to import or None, its TF 2 spelling after the root).
_NAMES = {
    "tf.contrib.data.TFRecordDataset": (None, "data.TFRecordDataset"),
    "tf.contrib.layers.flatten": ("tf_slim", "flatten"),
    "tf.contrib.framework.arg_scope": ("tf_slim", "arg_scope"),
    "tf.contrib.framework.add_arg_scope": ("tf_slim", "add_arg_scope"),
    "tf.contrib.tfprof.tfprof_logger.write_op_log": (None, f"{_PROF}.write_op_log"),
    # The same functions under tf.data.experimental, with the same arguments.
    "tf.contrib.data.map_and_batch": (None, "data.experimental.map_and_batch"),
    "tf.contrib.data.parallel_interleave": (
        None,
        "data.experimental.parallel_interleave",
    ),
    "tf.contrib.data.shuffle_and_repeat": (
        None,
        "data.experimental.shuffle_and_repeat",
    ),
    "tf.contrib.data.prefetch_to_device": (
        None,
        "data.experimental.prefetch_to_device",
    ),
    "tf.contrib.data.copy_to_device": (None, "data.experimental.copy_to_device"),
}
_DEVICE_LIB = "tf.python.client.device_lib.list_local_devices"
_REPLICATE = "tf.contrib.estimator.replicate_model_fn"


def _tf2_order(call: ast.Call) -> bool:
    """True if the names passed say (labels, logits): TF 2's positional order."""
    first, second = (ast.unparse(a).lower() for a in (call.args + [call.args[0]])[:2])
    return "label" in first or "logit" in second or "target" in first


def _call_shape(call: ast.Call, api: str | None, table):
    """(rule, covers the call's name) for a call shape rewritten here, else None."""
    if (
        api in _loss_args.TF0
        and call.args
        and _loss_args.fits(call, _loss_args.TF0[api])
    ):
        rule = _rules.TF2_ORDER_RULE if _tf2_order(call) else _rules.TF0_LOSS_RULE
        return rule, False
    if api and _loss_args.is_flipped(api):
        name = api.rsplit("deprecated_flipped_", 1)[1]
        fits = _loss_args.fits(call, _loss_args.FLIPPED[name])
        return (_rules.FLIPPED_LOSS_RULE, True) if fits else None
    if api == _REPLICATE and _replicate_args.no_reduction(call, table):
        return _replicate_args.NONE_RULE, True
    if api == _PRINT and not _options_of(call, table)[1]:
        # The options constant keeps its own finding (and name rewrite).
        return _rules.TFPROF_RULE, True
    return None


def find(tree: ast.AST, table: _aliases.AliasTable):
    """Yields (node, api, rule, covered) for the call shapes rewritten here.

    `covered` holds the ids of nodes whose generic findings this one replaces.
    """
    for call in (n for n in _astutil.nodes(tree, ast.Call)):
        api = table.resolve_tf(call.func)
        shape = _call_shape(call, api, table)
        if shape is not None:
            rule, covers = shape
            covered = {id(n) for n in _astutil.walk(call.func)} if covers else set()
            yield call.func, api, rule, covered


def _options_of(call: ast.Call, table) -> tuple[ast.expr | None, str | None]:
    """The call's options argument, and why it cannot be translated (or None)."""
    named = dict(zip(_PRINT_ARGS[:3] + ("tfprof_cmd", "tfprof_options"), call.args))
    named.update({k.arg: k.value for k in call.keywords})
    options = named.get("tfprof_options")
    if options is None:
        return None, None
    name = (table.resolve_tf(options) or "").removeprefix(_ANALYZER)
    return options, None if name in _OPTIONS else "options"


def _root(table: _aliases.AliasTable) -> str:
    for name, path in table.bindings.items():
        if path in ("tensorflow", "tensorflow.compat.v1"):
            return name
    raise Unsafe("no `import tensorflow as tf` to spell the replacement with")


def _print_edits(call: ast.Call, off: Offsets, table) -> list[Edit]:
    """print_model_analysis(...) -> tf.compat.v1.profiler.profile(...), the
    contrib options as the ProfileOptionBuilder's (contrib's default written out)."""
    builder = f"{_root(table)}.{_PROF}.ProfileOptionBuilder."
    out = [off.replace(call.func, f"{_root(table)}.{_PROF}.profile")]
    options, _ = _options_of(call, table)
    out += _api_changes.argument_edits(call, _PRINT, off)  # the keyword renames
    if options is None:
        default = f"options={builder}{_OPTIONS['TRAINABLE_VARS_PARAMS_STAT_OPTIONS']}"
        nodes = list(call.args) + list(call.keywords)
        if nodes:
            end = max(off.span(n)[1] for n in nodes)
            out.append(Edit(end, end, f", {default}"))
        else:
            end = off.span(call)[1] - 1
            out.append(Edit(end, end, default))
    return out


def full_node(node: ast.AST, api: str, table, parents: dict) -> ast.AST:
    """The outermost attribute of `node`'s chain that still resolves to `api`."""
    while table.resolve_tf(node) != api:
        parent = parents.get(id(node))
        if not isinstance(parent, ast.Attribute) or parent.value is not node:
            raise Unsafe(f"`{api}` is not spelled as one dotted name")
        node = parent
    return node


def parents_of(tree: ast.AST) -> dict[int, ast.AST]:
    """id(child) -> parent, for every node of `tree`."""
    return {id(c): p for p in _astutil.walk(tree) for c in ast.iter_child_nodes(p)}


def _name_key(api: str) -> str | None:
    """The known contrib name that `api` is or starts with (`X.copy` -> `X`)."""
    known = list(_NAMES) + [_ANALYZER + o for o in _OPTIONS]
    known += [_slim_layers.CONTRIB + n for n in _slim_layers.NAMES]
    return next((k for k in known if api == k or api.startswith(k + ".")), None)


def _name_edits(f, table, off: Offsets, parents) -> tuple[list[Edit], str | None]:
    """The one-name replacement of `f` and the module it needs imported."""
    key = _name_key(f.api)
    node = full_node(f.node, key, table, parents)
    if key.startswith(_ANALYZER):
        builder = f"{_root(table)}.{_PROF}.ProfileOptionBuilder."
        return [off.replace(node, builder + _OPTIONS[key[len(_ANALYZER) :]])], None
    module, rest = _NAMES.get(key) or ("tf_slim", key[len(_slim_layers.CONTRIB) :])
    if module is not None:
        bound = table.name_for(module)
        return [off.replace(node, f"{bound or module}.{rest}")], (
            None if bound else module
        )
    return [off.replace(node, f"{_root(table)}.{rest}")], None


def _is_gpu_test(test: ast.expr, var: str) -> bool:
    """`x.device_type == 'GPU'` (either side) for the comprehension variable."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    sides = [test.left, test.comparators[0]]
    attr = [s for s in sides if isinstance(s, ast.Attribute)]
    const = [s for s in sides if isinstance(s, ast.Constant)]
    return (
        isinstance(test.ops[0], ast.Eq)
        and len(attr) == len(const) == 1
        and attr[0].attr == "device_type"
        and isinstance(attr[0].value, ast.Name)
        and attr[0].value.id == var
        and const[0].value == "GPU"
    )


def _gpu_list(comp: ast.AST, parents, emg: str) -> tuple[ast.AST, str] | None:
    """(node, new text) for a GPU count or GPU name list made by `comp`.

    `len([x for x in protos if x.device_type == 'GPU'])` (or `sum(1 for ...)`)
    -> `len(emg.devices.resolve())`; `[x.name for x in ... if ...]` ->
    `emg.devices.resolve()` (device names; never empty: without a GPU, the
    simulated devices or `/cpu:0`).
    """
    count = _gpu_count(comp, parents)
    if count is not None:
        return count, f"len({emg}.devices.resolve())"
    if (
        isinstance(comp, ast.ListComp)
        and _gpu_count(comp, parents, counted=False) is comp
        and isinstance(comp.elt, ast.Attribute)
        and comp.elt.attr == "name"
        and getattr(comp.elt.value, "id", None) == comp.generators[0].target.id
    ):
        count = _device_count.requested(comp, parents)
        return comp, f"{emg}.devices.resolve({count})"
    return None


def _gpu_count(comp: ast.AST, parents, counted: bool = True):
    """The `len([...])`/`sum(1 for ...)` call counting GPUs around `comp`
    (with `counted=False`: `comp` itself if it filters GPUs)."""
    if not isinstance(comp, ast.ListComp | ast.GeneratorExp):
        return None
    gen = comp.generators
    if len(gen) != 1 or not isinstance(gen[0].target, ast.Name) or gen[0].is_async:
        return None
    if len(gen[0].ifs) != 1 or not _is_gpu_test(gen[0].ifs[0], gen[0].target.id):
        return None
    if not counted:
        return comp
    call = parents.get(id(comp))
    if not isinstance(call, ast.Call) or call.args != [comp] or call.keywords:
        return None
    func = getattr(call.func, "id", None)
    if func == "len" or (
        func == "sum" and isinstance(comp.elt, ast.Constant) and comp.elt.value == 1
    ):
        return call
    return None


def _assigned_once(stmt: ast.AST, name: str, parents) -> tuple[ast.AST, int] | None:
    """(scope, reads) when `stmt` is the only binding of `name` in its scope."""
    scope = parents.get(id(stmt))
    while scope is not None and not isinstance(
        scope, ast.FunctionDef | ast.AsyncFunctionDef | ast.Module
    ):
        scope = parents.get(id(scope))
    if scope is None:
        return None
    writes = [
        n
        for n in _astutil.nodes(scope, ast.Name)
        if n.id == name and not isinstance(n.ctx, ast.Load)
    ]
    return (scope, _astutil.reads(scope)[name]) if len(writes) == 1 else None


def _counted_local(stmt, parents, emg: str):
    """(the local's name, the count's (node, text)) for `name = list_local_devices()`
    read once, by a GPU count."""
    if not (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
    ):
        raise Unsafe("not counted where it is made")
    name = stmt.targets[0].id
    found = _assigned_once(stmt, name, parents)
    if found is None or found[1] != 1:
        raise Unsafe(f"`{name}` is used for more than the GPU count")
    use = next(
        n
        for n in _astutil.walk(found[0])
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
    )
    gen = parents.get(id(use))
    if not isinstance(gen, ast.comprehension) or gen.iter is not use:
        raise Unsafe(f"`{name}` is not only counted")
    counted = _gpu_list(parents.get(id(gen)), parents, emg)
    if counted is None:
        raise Unsafe(f"`{name}` is not only counted")
    return counted


def _device_edits(f, off: Offsets, calls, parents, emg: str) -> list[Edit]:
    """`len([x for x in device_lib.list_local_devices() if x.device_type ==
    'GPU'])` (inline, or over a local holding the list) -> len(emg.devices.resolve())."""
    call = calls.get(id(f.node))
    if call is None or call.args or call.keywords:
        raise Unsafe("not a plain list_local_devices() call")
    parent = parents.get(id(call))
    if isinstance(parent, ast.comprehension) and parent.iter is call:
        found = _gpu_list(parents.get(id(parent)), parents, emg)
        if found is not None:
            return [off.replace(*found)]
    found = _counted_local(parent, parents, emg)
    start, end = off.line_start(parent.lineno), off.line_end(parent.end_lineno)
    return [Edit(start, end, ""), off.replace(*found)]


_LAST: list = []  # [(tree, parents, calls)] of the last tree seen


def _maps(tree: ast.AST) -> tuple[dict, dict]:
    """(parents, calls by id of their func) of `tree`, built once per tree."""
    if not _LAST or _LAST[0][0] is not tree:
        calls = {id(c.func): c for c in _astutil.nodes(tree, ast.Call)}
        _LAST[:] = [(tree, parents_of(tree), calls)]
    return _LAST[0][1], _LAST[0][2]


def edits_for(f, tree, table, off: Offsets, emg: str) -> tuple[list[Edit], str | None]:
    """The exact rewrite of finding `f`, and a module to import for it.

    Raises:
      Unsafe: when `f` has none.
    """
    if _learn_names.handles(f.api):
        parents, calls = _maps(tree)
        return _learn_names.edits(f, table, off, calls, parents, emg, full_node), None
    loss, prof = f.rule is _rules.TF0_LOSS_RULE, f.rule is _rules.TFPROF_RULE
    flipped = f.rule is _rules.FLIPPED_LOSS_RULE
    if not (loss or prof or flipped or f.api == _DEVICE_LIB or _name_key(f.api)):
        raise Unsafe("no exact rewrite")
    parents, calls = _maps(tree)
    if loss:
        return _loss_args.tf0_edits(calls[id(f.node)], f.api, off), None
    if flipped:
        call = calls[id(f.node)]
        return _loss_args.flipped_edits(call, f.api, off, _root(table)), None
    if prof:
        return _print_edits(calls[id(f.node)], off, table), None
    if f.api == _DEVICE_LIB:
        return _device_edits(f, off, calls, parents, emg), None
    return _name_edits(f, table, off, parents)
