"""TPUEstimator scripts on N GPUs: a --num_gpus flag, and the gradient clip of all towers.

Two edits for modules that use TPUEstimator (a `tpu-estimator` finding):

- Where the script defines a `use_tpu` flag (`flags.DEFINE_bool("use_tpu",
  ...)`, the shape of BERT's run_classifier.py and its forks), a `num_gpus`
  flag (default 1) is defined after it and its TPU `RunConfig(...)` call gets
  `num_gpus=FLAGS.num_gpus`, so `--num_gpus=2` splits each batch over two
  GPUs without another edit, as the tower-loop rewrite's device count does.
- `grads, _ = tf.clip_by_global_norm(grads, clip_norm=c)` before
  `optimizer.apply_gradients(zip(grads, tvars), ...)` in one function clips
  each tower's share once the model_fn runs as towers; the clip goes and the
  call becomes `emg.TowerOptimizer(optimizer, clip_global_norm=c)
  .apply_gradients(...)`, which clips the gradients summed over all towers
  (on one device: the same step).
"""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import _astutil
from estimator_multigpu.migrate._edits import Edit, EditSet

_RUN_CONFIGS = ("tf.contrib.tpu.RunConfig", "tf.estimator.tpu.RunConfig")
_DEFINE_BOOLS = ("DEFINE_bool", "DEFINE_boolean")
_FLAG_HELP = "How many GPUs TPUEstimator(use_tpu=False) splits each batch over."
_CLIP = "tf.clip_by_global_norm"


def _uses_tpu_estimator(m) -> bool:
    return any(f.rule.rule_id == "tpu-estimator" for f in m.findings)


def _use_tpu_definition(tree: ast.Module) -> ast.Expr | None:
    """The module-level `<flags>.DEFINE_bool("use_tpu", ...)` statement."""
    for stmt in tree.body:
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr in _DEFINE_BOOLS
            and call.args
            and isinstance(call.args[0], ast.Constant)
            and call.args[0].value == "use_tpu"
        ):
            return stmt
    return None


def _flags_name(tree: ast.Module) -> str | None:
    """`FLAGS` in `FLAGS.use_tpu`: the name the script reads its flags from."""
    for node in _astutil.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr == "use_tpu"
            and isinstance(node.value, ast.Name)
        ):
            return node.value.id
    return None


def _defines_num_gpus(tree: ast.Module) -> bool:
    return any(
        isinstance(n, ast.Constant) and n.value == "num_gpus"
        for n in _astutil.walk(tree)
    )


def _run_config_calls(m) -> list[ast.Call]:
    calls = [n for n in _astutil.nodes(m.tree, ast.Call)]
    return [c for c in calls if m.table.resolve_tf(c.func) in _RUN_CONFIGS]


def _keyword_edit(m, call: ast.Call, text: str) -> Edit | None:
    """Adds `text` as the call's last argument; None if it names devices or has **."""
    names = {k.arg for k in call.keywords}
    if names & {"devices", "num_gpus", "train_distribute", None}:
        return None
    last = (call.args + [k.value for k in call.keywords])[-1:]
    if not last:
        start = m.off.span(call)[1] - 1  # Just before ")".
        return Edit(start, start, text)
    end = m.off.span(last[0])[1]
    return Edit(end, end, f", {text}")


def device_flag_edits(m, ctx) -> list[Edit]:
    """The `num_gpus` flag and `RunConfig(num_gpus=FLAGS.num_gpus)` (see module doc)."""
    del ctx
    if m.tree is None or not _uses_tpu_estimator(m):
        return m.edits
    definition, flags = _use_tpu_definition(m.tree), _flags_name(m.tree)
    if definition is None or flags is None:
        return m.edits
    new = [
        e
        for e in (
            _keyword_edit(m, c, f"num_gpus={flags}.num_gpus")
            for c in _run_config_calls(m)
        )
        if e is not None
    ]
    if not new:
        return m.edits
    if not _defines_num_gpus(m.tree):
        receiver = m.off.segment(definition.value.func.value)
        line = f'{receiver}.DEFINE_integer("num_gpus", 1, "{_FLAG_HELP}")'
        end = m.off.line_end(definition.end_lineno)
        new.append(Edit(end, end, line + m.off.newline))
    return _added(m, new)


def _added(m, new: list[Edit]) -> list[Edit]:
    placed = EditSet(m.edits)
    if any(placed.overlaps(e) for e in new):
        return m.edits
    return list(m.edits) + new


def _clip_call(m, stmt: ast.stmt) -> tuple[ast.Tuple, ast.Call] | None:
    """(target pair, call) of `a, b = tf.clip_by_global_norm(...)`, else None."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return None
    target, call = stmt.targets[0], stmt.value
    if not (isinstance(call, ast.Call) and m.table.resolve_tf(call.func) == _CLIP):
        return None
    if not (isinstance(target, ast.Tuple) and len(target.elts) == 2):
        return None
    return target, call


def _clip_of(m, stmt: ast.stmt) -> tuple[str, ast.expr] | None:
    """`(grads name, clip_norm)` of `grads, _ = tf.clip_by_global_norm(grads, c)`."""
    found = _clip_call(m, stmt)
    if found is None:
        return None
    target, call = found
    grads, norm = target.elts
    if not (isinstance(grads, ast.Name) and isinstance(norm, ast.Name)):
        return None
    if not (call.args and isinstance(call.args[0], ast.Name)):
        return None
    if call.args[0].id != grads.id or not norm.id.startswith("_"):
        return None
    clip = call.args[1] if len(call.args) > 1 else None
    clip = next((k.value for k in call.keywords if k.arg == "clip_norm"), clip)
    return (grads.id, clip) if clip is not None else None


def _zipped_grads(arg: ast.expr) -> str | None:
    """`grads` of `zip(grads, ...)` or `list(zip(grads, ...))`, else None."""
    if (
        isinstance(arg, ast.Call)
        and isinstance(arg.func, ast.Name)
        and arg.func.id == "list"
        and len(arg.args) == 1
    ):
        arg = arg.args[0]
    if (
        isinstance(arg, ast.Call)
        and isinstance(arg.func, ast.Name)
        and arg.func.id == "zip"
        and arg.args
        and isinstance(arg.args[0], ast.Name)
    ):
        return arg.args[0].id
    return None


def _apply_call(stmts: list[ast.stmt], grads: str) -> ast.Call | None:
    """The `<optimizer>.apply_gradients(zip(grads, ...), ...)` call in `stmts`."""
    for node in (n for s in stmts for n in _astutil.walk(s)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "apply_gradients"
            and node.args
            and _zipped_grads(node.args[0]) == grads
        ):
            return node
    return None


def _clip_edits_in(m, body: list[ast.stmt]) -> list[Edit]:
    for index, stmt in enumerate(body):
        clip = _clip_of(m, stmt)
        if clip is None:
            continue
        call = _apply_call(body[index + 1 :], clip[0])
        if call is None:
            continue
        optimizer = m.off.segment(call.func.value)
        wrapped = (
            f"{m.emg}.TowerOptimizer({optimizer}, clip_global_norm="
            f"{m.off.segment(clip[1])})"
        )
        return [
            Edit(m.off.line_start(stmt.lineno), m.off.line_end(stmt.end_lineno), ""),
            m.off.replace(call.func.value, wrapped),
        ]
    return []


def clip_edits(m, ctx) -> list[Edit]:
    """The in-tower clip onto `TowerOptimizer(clip_global_norm=)` (see module doc)."""
    del ctx
    if m.tree is None or not _uses_tpu_estimator(m):
        return m.edits
    new = []
    for node in _astutil.walk(m.tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            new += _clip_edits_in(m, node.body)
    return _added(m, new) if new else m.edits
