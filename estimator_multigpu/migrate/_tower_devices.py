"""The towers' devices of a rewritten tower loop: `emg.devices.resolve` for GPU i over range(n)."""

from __future__ import annotations

import ast
import re

from estimator_multigpu.migrate._edits import Offsets

_DEVICE_SPEC = "DeviceSpec"
_GPU_INDEX = re.compile(r"/(device:)?gpu:\{\}", re.IGNORECASE)


def _is_var(node: ast.AST, var: str) -> bool:
    return isinstance(node, ast.Name) and node.id == var


def _percent_template(device: ast.expr, var: str) -> str | None:
    """`'/gpu:%d' % i` -> `'/gpu:{}'`, else None."""
    if (
        isinstance(device, ast.BinOp)
        and isinstance(device.op, ast.Mod)
        and isinstance(device.left, ast.Constant)
        and isinstance(device.left.value, str)
        and _is_var(device.right, var)
    ):
        return re.sub(r"%[ds]", "{}", device.left.value)
    return None


def _format_template(device: ast.expr, var: str) -> str | None:
    """`'/gpu:{}'.format(i)` -> `'/gpu:{}'`, else None."""
    if (
        isinstance(device, ast.Call)
        and isinstance(device.func, ast.Attribute)
        and device.func.attr == "format"
        and isinstance(device.func.value, ast.Constant)
        and isinstance(device.func.value.value, str)
        and len(device.args) == 1
        and not device.keywords
        and _is_var(device.args[0], var)
    ):
        return device.func.value.value
    return None


def _fstring_template(device: ast.expr, var: str) -> str | None:
    """`f'/gpu:{i}'` -> `'/gpu:{}'`, else None."""
    if not isinstance(device, ast.JoinedStr):
        return None
    parts = []
    for value in device.values:
        if isinstance(value, ast.Constant):
            parts.append(str(value.value))
        elif isinstance(value, ast.FormattedValue) and _is_var(value.value, var):
            parts.append("{}")
        else:
            return None
    return "".join(parts)


def _concat_template(device: ast.expr, var: str) -> str | None:
    """`'/gpu:' + str(i)` -> `'/gpu:{}'`, else None."""
    if not (
        isinstance(device, ast.BinOp)
        and isinstance(device.op, ast.Add)
        and isinstance(device.left, ast.Constant)
        and isinstance(device.left.value, str)
        and isinstance(device.right, ast.Call)
    ):
        return None
    call = device.right
    if (
        isinstance(call.func, ast.Name)
        and call.func.id == "str"
        and len(call.args) == 1
        and not call.keywords
        and _is_var(call.args[0], var)
    ):
        return device.left.value + "{}"
    return None


def _device_spec_template(device: ast.expr, var: str) -> str | None:
    """`tf.DeviceSpec(device_type='GPU', device_index=i)` -> `'/device:GPU:{}'`,
    else None (keywords only: the era's code names them, and a job, replica
    or task keeps the spec off this rewrite)."""
    if not (
        isinstance(device, ast.Call)
        and _DEVICE_SPEC
        == getattr(device.func, "attr", getattr(device.func, "id", None))
        and not device.args
    ):
        return None
    kw = {k.arg: k.value for k in device.keywords}
    kind = kw.get("device_type")
    if (
        set(kw) == {"device_type", "device_index"}
        and isinstance(kind, ast.Constant)
        and isinstance(kind.value, str)
        and _is_var(kw["device_index"], var)
    ):
        return f"/device:{kind.value}:{{}}"
    return None


_TEMPLATES = (
    _percent_template,
    _format_template,
    _fstring_template,
    _concat_template,
    _device_spec_template,
)


def _device_template(device: ast.expr, var: str) -> str | None:
    """`device` as a template with `{}` for loop variable `var`, else None.

    `'/gpu:%d' % i`, `'/gpu:{}'.format(i)`, `f'/gpu:{i}'` and `'/gpu:' +
    str(i)` give `'/gpu:{}'`.
    """
    for template in _TEMPLATES:
        found = template(device, var)
        if found is not None:
            return found
    return None


def _device_string(device: ast.expr) -> ast.expr:
    """The device name a device-function helper is called with.

    `assign_to_device('/gpu:{}'.format(i), ps_device='/cpu:0')` (a helper that
    keeps variables on a parameter device, as emg's `variable_device='auto'`
    does) gives `'/gpu:{}'.format(i)`; other expressions are returned as is.
    """
    if (
        isinstance(device, ast.Call)
        and isinstance(device.func, ast.Name)
        and device.args
        and all(isinstance(a, ast.Constant) for a in device.args[1:])
        and all(isinstance(k.value, ast.Constant) for k in device.keywords)
    ):
        return device.args[0]
    return device


def is_gpu_index(device: ast.expr, var: str) -> bool:
    """True for the name of GPU `var` (`'/gpu:%d' % i`, `'/device:GPU:{}'.format(i)`,
    an f-string, `'/gpu:' + str(i)`, `tf.DeviceSpec(device_type='GPU',
    device_index=i)`)."""
    template = _device_template(device, var)
    return template is not None and _GPU_INDEX.fullmatch(template) is not None


def resolve_count(loop: ast.For, device: ast.expr) -> ast.expr | None:
    """The `n` of `range(n)` when the towers are GPU i over it, else None.

    (`xrange(n)`, as the era's scripts import it from `six.moves`, too.)
    """
    target, loop_iter = loop.target, loop.iter
    if (
        isinstance(target, ast.Name)
        and isinstance(loop_iter, ast.Call)
        and isinstance(loop_iter.func, ast.Name)
        and loop_iter.func.id in ("range", "xrange")  # six.moves' xrange too.
        and len(loop_iter.args) == 1
        and not loop_iter.keywords
    ):
        template = _device_template(_device_string(device), target.id)
        if template is not None and _GPU_INDEX.fullmatch(template):
            return loop_iter.args[0]
    return None


def devices_text(
    loop: ast.For, device: ast.expr, off: Offsets, emg: str, hoisted: str = ""
) -> str:
    """The towers' devices: `emg.devices.resolve` for GPU i over `range(n)`.

    `resolve(num_gpus=n)` is the same first n GPUs on a GPU machine, and the
    logical devices of `emg.devices.simulate` (or the CPU) on one without,
    where a literal `/gpu:i` does not exist. Any other device expression is
    kept as the loop wrote it.

    Args:
      loop: the tower loop.
      device: its `tf.device(...)` argument.
      off: positions in the module's source.
      emg: how the module spells `estimator_multigpu`.
      hoisted: the name the resolved devices were assigned to earlier
        (`_device_hoist`), if any: it stands for the call.
    """
    count = resolve_count(loop, device)
    if count is not None:
        return hoisted or f"{emg}.devices.resolve(num_gpus={off.text(count)})"
    target, loop_iter = loop.target, loop.iter
    return f"[{off.text(device)} for {off.text(target)} in {off.text(loop_iter)}]"
