"""slim model_deploy clones (create_clones, optimize_clones, apply_gradients) rewritten to `emg.towers.create_clones`.

`clones = model_deploy.create_clones(config, clone_fn, args)` becomes
`emg.towers.create_clones(clone_fn, args, devices=emg.devices.resolve(
num_gpus=<config's num_clones>))`; `total_loss, grads = model_deploy.
optimize_clones(clones, optimizer, var_list=...)` and the
`optimizer.apply_gradients(grads, global_step=...)` after it become
`total_loss, update = clones.minimize(optimizer, var_list=..., global_step=...)`;
`config.clone_scope(0)` becomes `""` (the first clone has the graph's own
names, as a single-device run). The DeploymentConfig stays for its device
helpers (variables_device(), inputs_device(), optimizer_device()).
"""

from __future__ import annotations

import ast
import dataclasses

from estimator_multigpu.migrate import (
    _astutil,
    _device_hoist,
    _tower_rewrite,
)
from estimator_multigpu.migrate._edits import EditSet, Offsets


def _deploy_call(node, table, name: str) -> bool:
    func = getattr(node, "func", None)
    if not isinstance(node, ast.Call) or not isinstance(func, ast.Attribute):
        return False
    base = table.resolve(func.value) or ""
    return func.attr == name and base.rsplit(".", 1)[-1] == "model_deploy"


def _assigned(block, table, name: str):
    """`(index, statement)` of the one `... = model_deploy.<name>(...)` in `block`."""
    found = [
        (i, s)
        for i, s in enumerate(block)
        if isinstance(s, ast.Assign) and _deploy_call(s.value, table, name)
    ]
    return found[0] if len(found) == 1 else (None, None)


def _num_clones(block, index: int, config: str, table, off: Offsets) -> str | None:
    for stmt in reversed(block[:index]):
        if isinstance(stmt, ast.Assign) and [ast.unparse(t) for t in stmt.targets] == [
            config
        ]:
            if not _deploy_call(stmt.value, table, "DeploymentConfig"):
                return None
            kw = {k.arg: k.value for k in stmt.value.keywords}
            value = kw.get(
                "num_clones", stmt.value.args[0] if stmt.value.args else None
            )
            return "1" if value is None else off.text(value)
    return None


def _apply(block, start: int, grads: str, optimizer: str):
    """The `x = optimizer.apply_gradients(grads[, global_step=...])` after `start`."""
    for stmt in block[start + 1 :]:
        call = getattr(stmt, "value", None)
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and _astutil.call_target(call) == "apply_gradients"
            and ast.unparse(call.func.value) == optimizer
            and [ast.unparse(a) for a in call.args] == [grads]
            and {k.arg for k in call.keywords} <= {"global_step"}
        ):
            return stmt
        if grads in _astutil.reads(stmt):
            return None
    return None


@dataclasses.dataclass
class _Clones:
    """The statements of one create_clones ... optimize_clones ... apply shape."""

    create: ast.Assign
    optimize: ast.Assign
    apply: ast.Assign
    clones: str  # the clones list's name
    config: str  # the DeploymentConfig's spelling
    count: str  # the clone count's text
    optimizer: str


def _created(block, table, off: Offsets):
    """(index, create statement, at, optimize statement, count), or None."""
    index, create = _assigned(block, table, "create_clones")
    at, optimize = _assigned(block, table, "optimize_clones")
    if create is None or optimize is None or at < index:
        return None
    call = create.value
    if len(call.args) < 2 or call.keywords or len(create.targets) != 1:
        return None
    config = ast.unparse(call.args[0])
    count = _num_clones(block, index, config, table, off)
    return None if count is None else (create, at, optimize, count)


def _optimized(optimize: ast.Assign, clones: str) -> bool:
    """Whether `optimize` is `total, grads = optimize_clones(clones, opt[, var_list])`."""
    call, target = optimize.value, optimize.targets[0]
    return (
        len(call.args) == 2
        and ast.unparse(call.args[0]) == clones
        and not {k.arg for k in call.keywords} - {"var_list"}
        and isinstance(target, ast.Tuple)
        and len(target.elts) == 2
    )


def _recognise(block, table, off: Offsets) -> _Clones | None:
    """The clones shape in `block`, or None when it is not the canonical one."""
    created = _created(block, table, off)
    if created is None:
        return None
    create, at, optimize, count = created
    clones = ast.unparse(create.targets[0])
    if not _optimized(optimize, clones):
        return None
    optimizer = ast.unparse(optimize.value.args[1])
    grads = ast.unparse(optimize.targets[0].elts[1])
    apply = _apply(block, at, grads, optimizer)
    read = sum(_astutil.reads(s)[grads] for s in block)
    if apply is None or read != 1:
        return None
    if not all(_tower_rewrite.alone(off, s) for s in (create, optimize, apply)):
        return None
    config = ast.unparse(create.value.args[0])
    return _Clones(create, optimize, apply, clones, config, count, optimizer)


def _minimize_text(c: _Clones, off: Offsets) -> str:
    """`total, train_op = clones.minimize(optimizer, ...)` for the optimize line."""
    keywords = c.optimize.value.keywords
    args = [c.optimizer] + [f"var_list={off.text(k.value)}" for k in keywords]
    args += [f"global_step={off.text(k.value)}" for k in c.apply.value.keywords]
    text = f"{off.text(c.optimize.targets[0].elts[0])}, {off.text(c.apply.targets[0])}"
    return text + f" = {c.clones}.minimize({', '.join(args)})"


def _scope_edits(block, c: _Clones, off: Offsets) -> list:
    """`clone_scope(0)` of the config becomes `""` (the first clone's scope)."""
    return [
        off.replace(node, '""')
        for node in _astutil.walk_scope(block)
        if isinstance(node, ast.Call)
        and _astutil.call_target(node) == "clone_scope"
        and ast.unparse(node.func.value) == c.config
        and [ast.unparse(a) for a in node.args] == ["0"]
    ]


def _plan(block, table, off: Offsets, emg: str, hoist=None):
    """The edits for the clones in `block`, or None.

    `hoist(create statement, count text)`: the `_device_hoist.Hoist` that
    resolves the devices early, or None to resolve them in the call.
    """
    c = _recognise(block, table, off)
    if c is None:
        return None
    call = c.create.value
    rest = ", ".join(off.text(a) for a in call.args[1:])
    early = hoist(c.create, c.count) if hoist else None
    devices = early.name if early else f"{emg}.devices.resolve(num_gpus={c.count})"
    edits = [
        off.replace(call, f"{emg}.towers.create_clones({rest}, devices={devices})")
    ]
    edits += [early.edit] if early else []
    edits.append(off.replace(c.optimize, _minimize_text(c, off)))
    edits.append(_tower_rewrite.delete_lines(off, c.apply))
    return edits + _scope_edits(block, c, off)


def edits(tree, table, off: Offsets, findings, out: list, emg: str) -> list:
    """`out` plus the clones' edits; their slim-clones findings marked fixed."""
    new = []
    taken = _astutil.writes(tree) | set(_astutil.reads(tree))
    placed = EditSet(out)  # the edits made so far, searched by bisection

    def hoist(node, count):
        return _device_hoist.hoist(tree, node, count, off, emg, taken, placed)

    for scope in _astutil.scopes(tree):
        for block in _astutil.blocks(scope):
            planned = _plan(block, table, off, emg, hoist)
            if planned and not any(placed.overlaps(e) for e in planned):
                new += planned
                for e in planned:
                    if not placed.overlaps(e):  # (a plan's own edits may touch)
                        placed.add(e)
    if new:
        # The DeploymentConfig stays (its device helpers), and so does its finding.
        done = ("model_deploy.create_clones", "model_deploy.optimize_clones")
        why = _device_hoist.late(new)
        for f in findings:
            if f.rule.rule_id == "slim-clones" and f.api in done:
                f.fixed = True
            if why and f.rule.rule_id == "slim-clones" and f.api == done[0]:
                _device_hoist.keep_unfixed(f, why)  # the devices resolve too late
    return out + new
