"""Device discovery and naming, without allocating accelerator memory."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

import tensorflow as tf

# The GPU runtime's threading lives in its own module (set before TensorFlow
# starts); the device API re-exports it as emg.devices.tune_gpu_runtime.
from estimator_multigpu._gpu_runtime import tune_gpu_runtime  # noqa: F401

_DEVICE_RE = re.compile(
    r"^(?P<prefix>(/job:[\w-]+)?(/replica:\d+)?(/task:\d+)?)"
    r"/(device:)?(?P<type>cpu|gpu|tpu):(?P<index>\d+)$",
    re.IGNORECASE,
)

# The n passed to the one successful `simulate` call of this process, by type.
_SIMULATED: dict[str, int] = {}

# `simulate` refuses more logical devices than this: each one is a tower that
# the model is built and run on, so thousands take minutes before any step.
MAX_SIMULATED_DEVICES = 64
# Logical CPUs per core beyond which `simulate` warns (and trainers refuse):
# the devices share the cores, so each one more slows every step.
SIMULATED_DEVICES_PER_CORE = 4


def cpu_cores() -> int:
    """The CPU cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def max_simulated_devices() -> int:
    """The most logical CPUs worth simulating here.

    `SIMULATED_DEVICES_PER_CORE` per core, at most `MAX_SIMULATED_DEVICES`.
    """
    return min(MAX_SIMULATED_DEVICES, SIMULATED_DEVICES_PER_CORE * cpu_cores())


def canonical(device: str) -> str:
    """Returns `device` in the short canonical form, e.g. `'/gpu:1'`.

    Args:
      device: a device string such as `'/GPU:1'`, `'/device:CPU:0'` or
        `'/job:worker/task:1/device:GPU:0'`.

    Raises:
      TypeError: if `device` is not a string.
      ValueError: if `device` is not a device name.
    """
    if not isinstance(device, str):
        raise TypeError(
            f"A device must be a string such as '/gpu:0'; received "
            f"{device!r} of type {type(device).__name__}."
        )
    match = _DEVICE_RE.match(device.strip())
    if not match:
        raise ValueError(
            f"Malformed device name {device!r}: expected a name such as "
            "'/gpu:0', '/cpu:0' or '/job:worker/task:0/device:GPU:0'."
        )
    kind = match.group("type").lower()
    return f"{match.group('prefix')}/{kind}:{int(match.group('index'))}"


def same_device(a: str, b: str) -> bool:
    """Whether two device strings (op `.device` or canonical) name one device."""
    spec_a, spec_b = tf.DeviceSpec.from_string(a), tf.DeviceSpec.from_string(b)
    return (spec_a.device_type or "").upper() == (
        spec_b.device_type or ""
    ).upper() and spec_a.device_index == spec_b.device_index


def _logical_count(device_type: str) -> int:
    """Counts logical devices of a type without initialising the runtime."""
    total = 0
    for physical in tf.config.list_physical_devices(device_type):
        config = tf.config.get_logical_device_configuration(physical)
        total += len(config) if config else 1
    return total


def available() -> list[str]:
    """The compute devices `resolve()` chooses from, in order.

    GPUs (logical GPUs where `simulate` split one) if there are any; else the
    logical CPUs made by `simulate`; else `['/cpu:0']`. Reads the device
    configuration only: the runtime is not initialised and no GPU memory is
    allocated.
    """
    num_gpus = _logical_count("GPU")
    if num_gpus:
        return [f"/gpu:{i}" for i in range(num_gpus)]
    return [f"/cpu:{i}" for i in range(max(1, _logical_count("CPU")))]


def _check_exists(device: str, argument: str) -> None:
    if device.startswith("/job:"):
        return  # A remote device: the cluster, not this process, knows it.
    kind, index = device[1:].split(":")
    count = _logical_count(kind.upper())
    if int(index) >= count:
        raise ValueError(
            f"`{argument}` names {device!r}, which does not exist here; this "
            f"process has {count} {kind.upper()} device(s): {available()}. "
            "Pass existing devices, or call emg.devices.simulate(n) first to "
            "split one device into n logical ones."
        )


# The device count for a program that fixes none at run time.
NUM_GPUS_ENV = "EMG_NUM_GPUS"


def num_gpus_from_env() -> int | None:
    """`EMG_NUM_GPUS` as a device count, or None when unset or empty.

    Raises:
      ValueError: it is set to something other than a whole number.
    """
    text = os.environ.get(NUM_GPUS_ENV, "").strip()
    if not text:
        return None
    if not (text.isascii() and text.isdigit()):
        raise ValueError(
            f"{NUM_GPUS_ENV} must be a whole number of devices (0 or more); "
            f"received {text!r}. Unset it, or set e.g. {NUM_GPUS_ENV}=2."
        )
    return int(text)


def env_num_gpus(default: int) -> int:
    """`EMG_NUM_GPUS` when set, else `default`: a count written in the code.

    A TF1 tower loop over a constant (`num_gpus = 2`, edited by hand for
    each machine) has no flag to choose its devices; `emg-migrate --fix`
    writes `resolve(num_gpus=emg.devices.env_num_gpus(num_gpus))` there, so
    `EMG_NUM_GPUS=1 python train.py` runs the unchanged program on one
    device, as the variable replicates an Estimator whose `RunConfig` names
    no devices. A count read from a flag is left as the flag says.

    Raises:
      TypeError: `default` is not an int.
      ValueError: `default` is negative, or `EMG_NUM_GPUS` is not a whole
        number.
    """
    if isinstance(default, bool) or not isinstance(default, int):
        raise TypeError(
            "env_num_gpus(default): the count written in the code must be an "
            f"int; received {default!r} ({type(default).__name__}). Pass a "
            f"whole number of devices (e.g. int(...) of it), or set {NUM_GPUS_ENV}."
        )
    if default < 0:
        raise ValueError(
            "env_num_gpus(default): the count written in the code must be 0 "
            f"or more; received {default}."
        )
    count = num_gpus_from_env()
    return default if count is None else count


def resolve(
    num_gpus: int | None = None, devices: Sequence[str] | None = None
) -> list[str]:
    """Chooses the devices to run on.

    An explicit `devices` list wins; else the first `num_gpus` devices of
    `available()`; else all of them. On a machine with no GPU the pool is the
    logical CPUs made by `simulate` (so multi-device code is testable on a
    CPU), or `['/cpu:0']`. There, a `num_gpus` larger than the pool, asked
    before TensorFlow starts, simulates `num_gpus` logical CPUs (one warning),
    as `allow_soft_placement` once ran a tower loop's towers on the CPU.

    Args:
      num_gpus: how many compute devices to use; 0 means `['/cpu:0']`.
      devices: explicit device names, e.g. `['/gpu:0', '/gpu:1']`.

    Returns:
      Canonical device strings, e.g. `['/gpu:0', '/gpu:1']`.

    Raises:
      TypeError: for a `num_gpus` that is not an int, or a `devices` that is a
        single string.
      ValueError: for negative counts; more devices than exist where they
        cannot be simulated (GPUs present, TensorFlow already started, or the
        CPU already split); an empty, duplicate or malformed device list.
    """
    if devices is not None:
        return _resolve_explicit(devices)
    pool = available()
    if num_gpus is None:
        return pool
    if isinstance(num_gpus, bool) or not isinstance(num_gpus, int):
        raise TypeError(f"`num_gpus` must be an int; received {num_gpus!r}.")
    if num_gpus < 0:
        raise ValueError(f"`num_gpus` must be >= 0; received {num_gpus}.")
    if num_gpus == 0:
        return ["/cpu:0"]
    if num_gpus > len(pool):
        return _simulate_missing(num_gpus, pool)
    return pool[:num_gpus]


def _simulate_missing(num_gpus: int, pool: list[str]) -> list[str]:
    """`num_gpus` logical CPUs for a machine without GPUs, with one warning.

    A TF1 tower loop over `/gpu:0..n-1` ran on a smaller machine because
    `allow_soft_placement` put the towers on the CPU; this keeps that
    working. A machine with some GPUs, but fewer than `num_gpus`, is refused:
    towers on the CPU would leave its GPUs idle, and splitting a GPU needs a
    memory limit only the user knows (`simulate(n, 'GPU', memory_limit_mb)`).
    """
    short = f"`num_gpus` ({num_gpus}) is more than the {len(pool)} device(s) "
    short += f"that exist here: {pool}."
    if _logical_count("GPU"):
        raise ValueError(
            f"{short} Pass num_gpus <= {len(pool)}, or split the GPUs with "
            "emg.devices.simulate(n, 'GPU', memory_limit_mb=...) before "
            "TensorFlow starts."
        )
    try:
        names = simulate(num_gpus)
    except (RuntimeError, ValueError) as error:
        raise ValueError(f"{short} {_why_not_simulated(error, pool)}") from error
    tf.get_logger().warning(
        "emg.devices.resolve(num_gpus=%d): this machine has no GPU; simulating "
        "%d logical devices on the CPU, where allow_soft_placement ran the "
        "towers of the original program. They share the CPU cores: fine to run "
        "the program, not to measure multi-GPU speed.",
        num_gpus,
        num_gpus,
    )
    return names


def _why_not_simulated(error: Exception, pool: list[str]) -> str:
    """Why `simulate` could not add the missing devices, and what to do."""
    if "came too late" in str(error):
        reason = (
            "TensorFlow has already started, so no devices can be simulated "
            "now. Call emg.devices.resolve(num_gpus=n) (or "
            "emg.devices.simulate(n)) at the start of the program, before any "
            "TensorFlow op or tensor is created"
        )
    elif "CPU" in _SIMULATED:
        reason = (
            f"The CPU was already split into {_SIMULATED['CPU']} by "
            "emg.devices.simulate, and a process splits once. Simulate the "
            "largest count you need first"
        )
    else:
        reason = str(error).rstrip(".")
    return f"{reason}; or pass num_gpus <= {len(pool)}."


def _resolve_explicit(devices: Sequence[str]) -> list[str]:
    if isinstance(devices, str):
        raise TypeError(
            f"`devices` must be a list of device names, not the string "
            f"{devices!r}; pass [{devices!r}]."
        )
    names = [canonical(d) for d in devices]
    if not names:
        raise ValueError(
            "`devices` is empty; pass at least one device, e.g. ['/gpu:0'], or "
            f"devices=None to use all of {available()}."
        )
    duplicates = sorted({d for d in names if names.count(d) > 1})
    if duplicates:
        raise ValueError(
            f"`devices` names {duplicates} more than once (received "
            f"{list(devices)}); list each device once."
        )
    for name in names:
        _check_exists(name, "devices")
    return names


def simulate(
    n: int, device_type: str = "CPU", memory_limit_mb: int = 2048
) -> list[str]:
    """Splits the first physical device of a type into `n` logical devices.

    Must run before TensorFlow initialises its runtime (before any op or
    tensor is created). Calling it again with the same `n` returns the same
    names; a different `n` is an error, since a process can split only once.
    Splitting the CPU into more than `max_simulated_devices()` devices (4 per
    core) logs a warning: the devices share the cores.

    Args:
      n: number of logical devices, 1 to `MAX_SIMULATED_DEVICES` (64).
      device_type: `'CPU'` or `'GPU'`.
      memory_limit_mb: memory of each logical GPU (ignored for CPUs).

    Returns:
      The logical device names, e.g. `['/cpu:0', '/cpu:1']`.

    Raises:
      ValueError: for a bad `n` or `device_type`, or no such physical device.
      RuntimeError: if TensorFlow is already initialised.
    """
    kind = _check_simulate_args(n, device_type)
    physical = tf.config.list_physical_devices(kind)
    if not physical:
        raise ValueError(f"There is no physical {kind} device to split into {n}.")
    names = [f"/{kind.lower()}:{i}" for i in range(n)]
    current = tf.config.get_logical_device_configuration(physical[0])
    if _SIMULATED.get(kind) == n or (current and len(current) == n):
        return names
    if kind in _SIMULATED:
        raise RuntimeError(
            f"emg.devices.simulate({n}) called after simulate({_SIMULATED[kind]}): "
            "a process splits its devices once. Call simulate() once, with the "
            "largest number of devices you need, and use subsets of them."
        )
    config = tf.config.LogicalDeviceConfiguration
    logical = [
        config(memory_limit=memory_limit_mb) if kind == "GPU" else config()
        for _ in range(n)
    ]
    try:
        tf.config.set_logical_device_configuration(physical[0], logical)
    except RuntimeError as error:
        have = len(current) if current else 1
        raise RuntimeError(
            f"emg.devices.simulate({n}) came too late: TensorFlow is already "
            f"initialised with {have} logical {kind} device(s). Call simulate() "
            "at the start of the program, before any TensorFlow op or tensor is "
            f"created. ({error})"
        ) from error
    _SIMULATED[kind] = n
    if kind == "CPU" and n > max_simulated_devices():
        tf.get_logger().warning(
            "Splitting the CPU into %d logical devices on %d core(s): they share "
            "the cores, so each device adds a copy of the model to build and run "
            "every step without adding compute. Up to %d (%d per core) keeps "
            "steps reasonable.",
            n,
            cpu_cores(),
            max_simulated_devices(),
            SIMULATED_DEVICES_PER_CORE,
        )
    tf.get_logger().info(
        "Split %s into %d logical devices: %s", physical[0].name, n, names
    )
    return names


def _check_simulate_args(n, device_type) -> str:
    """Validates `simulate`'s arguments; returns the upper-case device type."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"`n` must be an int >= 1; received {n!r}.")
    if n > MAX_SIMULATED_DEVICES:
        raise ValueError(
            f"`n` ({n}) is more than {MAX_SIMULATED_DEVICES} logical devices "
            "(emg.devices.MAX_SIMULATED_DEVICES): every device gets its own copy "
            "of the model, so building and running that many takes minutes or "
            f"hours before the first step. Pass n <= {MAX_SIMULATED_DEVICES}; "
            f"{max_simulated_devices()} or fewer keeps steps reasonable on this "
            f"machine's {cpu_cores()} core(s)."
        )
    kind = str(device_type).upper()
    if kind not in ("CPU", "GPU"):
        raise ValueError(
            f"`device_type` must be 'CPU' or 'GPU'; received {device_type!r}."
        )
    return kind


def session_config(
    config: tf.compat.v1.ConfigProto | None = None,
) -> tf.compat.v1.ConfigProto:
    """A copy of `config` whose sessions see this process's logical devices.

    `tf.compat.v1.Session(config=...)` builds its devices from the
    `ConfigProto` alone: only a session without one (`config=None`) sees the
    devices `simulate` or `tf.config.set_logical_device_configuration` made.
    With any explicit config (even an empty `ConfigProto()`) it sees one CPU,
    so towers on `/cpu:1` are soft-placed on `/cpu:0`, or fail without
    `allow_soft_placement`. This copy raises `device_count['CPU']` to the
    logical CPUs and, where a GPU is split, sets
    `gpu_options.experimental.virtual_devices` (and `visible_device_list`) as
    TensorFlow does for a session without a config. The rest of `config`
    stays, including `device_count={'GPU': 0}`, which hides the GPUs.

    Args:
      config: the session config to keep, or None for an empty one.

    Returns:
      A new `ConfigProto`; `config` is not changed.

    Raises:
      TypeError: if `config` is not a `tf.compat.v1.ConfigProto`.
      ValueError: if `config.gpu_options.visible_device_list` names a GPU
        this process does not see (where it has GPUs).
    """
    if config is not None and not isinstance(config, tf.compat.v1.ConfigProto):
        _raise_not_a_config(config)
    proto = tf.compat.v1.ConfigProto()
    if config is not None:
        proto.CopyFrom(config)
    _keep_logical_cpus(proto)
    _keep_logical_gpus(proto)
    return proto


def _raise_not_a_config(config) -> None:
    """The TypeError for a `config` that is no `ConfigProto`."""
    # An empty protobuf message's repr is '', which would read as nothing.
    received = repr(config) or f"an empty {type(config).__name__} message"
    fix = "tf.compat.v1.ConfigProto(...)"
    if isinstance(config, tf.compat.v1.GPUOptions):
        fix = "tf.compat.v1.ConfigProto(gpu_options=...)"
    raise TypeError(
        "`config` must be a tf.compat.v1.ConfigProto or None; received "
        f"{received} of type {type(config).__name__}. Pass {fix}."
    )


def _keep_logical_cpus(proto: tf.compat.v1.ConfigProto) -> None:
    """At least as many session CPUs as logical CPUs (a session's default is 1)."""
    count = _logical_count("CPU")
    if count > proto.device_count.get("CPU", 1):
        proto.device_count["CPU"] = count


def _keep_logical_gpus(proto: tf.compat.v1.ConfigProto) -> None:
    """The split of the visible GPUs, unless the config has its own or hides them."""
    gpu_options = proto.gpu_options
    if (
        proto.device_count.get("GPU", 1) == 0
        or gpu_options.experimental.virtual_devices
    ):
        return
    physical = tf.config.list_physical_devices("GPU")
    if not physical:
        return  # No GPU to split; a visible_device_list stays as given.
    indices = _visible_gpu_indices(gpu_options.visible_device_list, physical)
    splits = [tf.config.get_logical_device_configuration(physical[i]) for i in indices]
    if not any(splits):
        return  # No GPU is split: the session makes the same devices itself.
    if gpu_options.per_process_gpu_memory_fraction:
        tf.get_logger().warning(
            "session_config: gpu_options.per_process_gpu_memory_fraction (%s) "
            "is dropped: the GPUs are split into logical devices, whose "
            "memory_limit sets their memory, and TensorFlow refuses both.",
            gpu_options.per_process_gpu_memory_fraction,
        )
        gpu_options.per_process_gpu_memory_fraction = 0
    gpu_options.visible_device_list = ",".join(str(i) for i in indices)
    for split in splits:
        _add_virtual_devices(gpu_options.experimental.virtual_devices.add(), split)
    count = sum(len(split) if split else 1 for split in splits)
    if "GPU" in proto.device_count and proto.device_count["GPU"] < count:
        proto.device_count["GPU"] = count


def _visible_gpu_indices(visible_device_list: str, physical: list) -> list[int]:
    """Indices of the GPUs the session uses: its own list, else the visible ones.

    Raises:
      ValueError: if `visible_device_list` names no GPU of `physical`.
    """
    if visible_device_list:
        return [
            _gpu_index(entry.strip(), visible_device_list, len(physical))
            for entry in visible_device_list.split(",")
        ]
    visible = tf.config.get_visible_devices("GPU")
    return [i for i, device in enumerate(physical) if device in visible]


def _gpu_index(entry: str, visible_device_list: str, count: int) -> int:
    """One entry of `visible_device_list` as an index of the visible GPUs."""
    if entry.isdigit() and int(entry) < count:
        return int(entry)
    why = f"{entry} is not one" if entry.isdigit() else f"{entry!r} is no index"
    raise ValueError(
        f"`gpu_options.visible_device_list` ({visible_device_list!r}) names "
        f"GPUs by their index among the {count} visible GPU(s) (0 to "
        f"{count - 1}); {why}. Pass indices below {count} (CUDA_VISIBLE_DEVICES "
        "renumbers the GPUs it leaves from 0), or leave it empty."
    )


def _add_virtual_devices(virtual, split) -> None:
    """One physical GPU's logical devices, as `GPUOptions` describes them."""
    for device in split or []:
        virtual.memory_limit_mb.append(device.memory_limit)
        if device.experimental_priority is not None:
            virtual.priority.append(device.experimental_priority)
        if device.experimental_device_ordinal is not None:
            virtual.device_ordinal.append(device.experimental_device_ordinal)
