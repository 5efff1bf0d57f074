"""The GPU names of a tower loop left for a hand rewrite: `emg.devices.resolve(num_gpus=n)[i]`.

A tower loop `--fix` does not rewrite (its finding stays, for a hand edit)
still places tower i on `'/gpu:%d' % i`. On a machine without GPUs that name
does not exist, and even one tower fails ("Cannot assign a device for
operation ...: GPU:0"). Each such name in the body of `for i in range(n)`
(`'/gpu:%d' % i`, `'/device:GPU:{}'.format(i)`, an f-string, `'/gpu:' +
str(i)`, as a `tf.device` argument or anywhere else) becomes `<devices>[i]`,
`<devices> = emg.devices.resolve(num_gpus=n)` being assigned as early as its
count allows (`_device_hoist`): the same first n GPUs on a GPU machine, the
simulated devices (or the CPU) on one without.
"""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import _astutil, _device_hoist, _tower_devices
from estimator_multigpu.migrate._edits import Edit, EditSet, Offsets

API = "tower loop"


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
