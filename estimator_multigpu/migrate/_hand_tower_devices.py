"""The GPU names of a tower loop left for a hand rewrite: `emg.devices.resolve(num_gpus=n)[i]`.

A tower loop `--fix` does not rewrite (its finding stays, for a hand edit)
still places tower i on `'/gpu:%d' % i`. On a machine without GPUs that name
does not exist, and even one tower fails ("Cannot assign a device for
operation ...: GPU:0"). Each such name in the body of `for i in range(n)`
(`'/gpu:%d' % i`, `'/device:GPU:{}'.format(i)`, an f-string, `'/gpu:' +
str(i)`, `tf.DeviceSpec(device_type='GPU', device_index=i)`, as a `tf.device`
argument or anywhere else) becomes `<devices>[i]`,
`<devices> = emg.devices.resolve(num_gpus=n)` being assigned as early as its
count allows (`_device_hoist`): the same first n GPUs on a GPU machine, the
simulated devices (or the CPU) on one without. A `tf.device('/gpu:0')` after
the loop in its scope, where the towers' results are combined, becomes
`<devices>[0]`.
"""

from __future__ import annotations

import ast
import functools
import re

from estimator_multigpu.migrate import _astutil, _device_hoist, _tower_devices
from estimator_multigpu.migrate._edits import Edit, EditSet, Offsets

API = "tower loop"
_FIRST_GPU = re.compile(r"/?(device:)?gpu:0", re.IGNORECASE)


def gpu_names(loop: ast.For) -> list[ast.expr]:
    """The outermost GPU names of the loop variable in `loop`'s body."""
    if not isinstance(loop.target, ast.Name):
        return []
    var, out = loop.target.id, []
    todo = list(loop.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.expr) and _tower_devices.is_gpu_index(node, var):
            out.append(node)
        else:
            todo.extend(ast.iter_child_nodes(node))
    return sorted(out, key=lambda n: (n.lineno, n.col_offset))


@functools.lru_cache(maxsize=2)
def _scope_bodies(tree: ast.Module) -> dict[int, list[ast.stmt]]:
    """id(node) -> the body of the innermost function holding it, for the
    nodes of every function and of the module (outside any class body), found
    in one pass per tree (a module is never changed in place)."""
    out = {}
    for scope in _astutil.scopes(tree):
        for node in _astutil.walk_scope(scope.body):
            out[id(node)] = scope.body
    return out


def _scope_of(tree: ast.Module, loop: ast.For) -> list[ast.stmt]:
    """The body of the innermost function (or the module) holding `loop`."""
    return _scope_bodies(tree).get(id(loop), tree.body)


def first_gpu_after(tree: ast.Module, loop: ast.For) -> list[ast.Constant]:
    """The `tf.device('/gpu:0')` names after `loop` in its own scope: where
    the towers' results are combined on the first GPU."""
    return [
        node.args[0]
        for node in _astutil.walk_scope(_scope_of(tree, loop))
        if _astutil.call_target(node) == "device"
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
        and _FIRST_GPU.fullmatch(node.args[0].value)
        and node.lineno > loop.end_lineno
    ]


def _loop_edits(tree, loop, off: Offsets, emg: str, taken, placed):
    """(the edits that name `loop`'s towers' devices by `resolve`, its call's
    text), or ([], "") when the loop names no GPU of `range(n)`."""
    names = gpu_names(loop)
    count = _tower_devices.resolve_count(loop, names[0]) if names else None
    if count is None:
        return [], ""
    call = f"{emg}.devices.resolve(num_gpus={off.text(count)})"
    hoist = _device_hoist.hoist(tree, loop, off.text(count), off, emg, taken, placed)
    devices = hoist.name if hoist else call
    out = [off.replace(n, f"{devices}[{loop.target.id}]") for n in names]
    out += [off.replace(n, f"{devices}[0]") for n in first_gpu_after(tree, loop)]
    return out + ([hoist.edit] if hoist else []), call


def edits(tree, off: Offsets, findings, prior: list[Edit], emg: str, notes) -> list:
    """`prior` plus the edits that place each unrewritten tower loop's towers
    on `resolve`'s devices; the loops stay unfixed (a note says what changed,
    and why the devices may resolve too late, if they may)."""
    out, placed = list(prior), EditSet(prior)
    taken = _astutil.writes(tree) | set(_astutil.reads(tree))
    for f in findings:
        if f.fixed or f.api != API or not isinstance(f.node, ast.For):
            continue
        new, call = _loop_edits(tree, f.node, off, emg, taken, placed)
        if not new or any(placed.overlaps(e) for e in new):
            continue
        for e in new:
            placed.add(e)
        out += new
        why = _device_hoist.late(new)
        var = f.node.target.id
        text = f"tower loop left for a hand rewrite; its towers' devices are now {call}[{var}]"
        notes.append((f.line, text + (f" ({why})" if why else "")))
    return out
