"""Warns when the RunConfig a replicated model_fn gets has sessions that cannot see its towers' CPUs."""

from __future__ import annotations

from collections.abc import Sequence

import tensorflow as tf

from estimator_multigpu import devices as devices_lib


def _session_cpus(config) -> int | None:
    """How many CPUs the sessions of `config` (a RunConfig) see; None when
    unknown or when the runner applies `devices.session_config` itself."""
    if config is None or type(config).__module__.startswith("estimator_multigpu"):
        return None
    if not hasattr(config, "session_config"):
        return None
    proto = config.session_config
    if proto is None:  # tf.estimator's default config has no device_count.
        return 1
    if not isinstance(proto, tf.compat.v1.ConfigProto):
        return None
    return proto.device_count.get("CPU", 1)


def _cpu_index(device: str) -> int | None:
    """The index of a CPU device (`'/cpu:1'` -> 1), else None."""
    spec = tf.DeviceSpec.from_string(devices_lib.canonical(device))
    if (spec.device_type or "").upper() != "CPU":
        return None
    return spec.device_index or 0


def hidden_devices(config, devices: Sequence[str]) -> str | None:
    """The warning for towers on CPUs the config's sessions cannot see, else None.

    Args:
      config: the `config` (RunConfig) the model_fn received, or None.
      devices: the towers' devices.
    """
    seen = _session_cpus(config)
    if seen is None:
        return None
    hidden = [d for d in devices if (_cpu_index(d) or 0) >= seen]
    if not hidden:
        return None
    return (
        f"replicate_model_fn: the towers run on {list(devices)}, but the "
        f"RunConfig's session_config sees {seen} CPU(s) (device_count['CPU']; a "
        "session with its own ConfigProto sees one CPU, not the logical devices), "
        f"so {hidden} are soft-placed on /cpu:0 or fail to place. Pass "
        "tf.estimator.RunConfig(session_config=emg.devices.session_config(...))."
    )


def warn_once(state: list, config, devices: Sequence[str]) -> None:
    """Logs `hidden_devices`' warning the first time it applies (`state` keeps that)."""
    if state:
        return
    message = hidden_devices(config, devices)
    if message:
        state.append(True)
        tf.get_logger().warning(message)
