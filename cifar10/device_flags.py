"""What the trainer's device flags ask for that this machine cannot give."""

from __future__ import annotations

from collections.abc import Sequence

# Measured: ResNet-20, 1 step, 2 vs 8 simulated devices on 2 cores (11 s, 43 s).
BUILD_SECONDS_PER_DEVICE = 5


def _minutes(num_devices: int) -> int:
    return max(1, round(num_devices * BUILD_SECONDS_PER_DEVICE / 60))


def too_many_simulated(value: int) -> str | None:
    """Why `--simulate_devices=value` is refused, or None if it is fine."""
    from estimator_multigpu import devices

    bound = devices.max_simulated_devices()
    if value <= bound:
        return None
    return (
        f"--simulate_devices={value} asks for more logical devices than this "
        f"machine's {devices.cpu_cores()} CPU core(s) run usefully: at most "
        f"{bound} ({devices.SIMULATED_DEVICES_PER_CORE} per core, never more "
        f"than {devices.MAX_SIMULATED_DEVICES}). Each device builds and runs "
        "its own copy of the model on the same cores: ResNet-20 takes about "
        f"{BUILD_SECONDS_PER_DEVICE} s per device to build on 2 cores, so "
        f"{value} devices would take about {_minutes(value)} minute(s) before "
        f"the first step. Pass --simulate_devices={bound} or fewer."
    )


def _simulate_hint(wanted: int) -> str:
    from estimator_multigpu import devices

    bound = devices.max_simulated_devices()
    if wanted > bound:
        return (
            f"this machine simulates at most {bound} (see --simulate_devices), "
            f"so ask for {bound} devices or fewer"
        )
    return f"pass --simulate_devices={wanted} to split the CPU into {wanted}"


def missing_devices(
    num_gpus: int | None, names: Sequence[str] | None, simulate: int
) -> str | None:
    """What `--num_gpus`/`--devices` ask for that a machine without GPUs lacks.

    Args:
      num_gpus: the `--num_gpus` value.
      names: the `--devices` value.
      simulate: the `--simulate_devices` value.

    Returns:
      The message naming the flag to pass, or None when the devices will exist
      (or the machine has GPUs, which the library checks itself).
    """
    import tensorflow as tf  # Listing devices does not initialise the runtime.

    from estimator_multigpu import devices

    if tf.config.list_physical_devices("GPU"):
        return None
    count = max(simulate or 1, len(devices.available()))
    if names is not None:
        return _missing_named(names, count, simulate)
    if num_gpus and num_gpus > count:
        return (
            f"--num_gpus={num_gpus} asks for {num_gpus} devices, but this machine "
            f"has no GPU and --simulate_devices={simulate} makes {count} logical "
            f"CPU device(s): {_simulate_hint(num_gpus)}; or pass "
            f"--num_gpus={count} or fewer."
        )
    return None


def _missing_named(names: Sequence[str], count: int, simulate: int) -> str | None:
    from estimator_multigpu import devices

    try:
        names = [devices.canonical(name) for name in names]
    except (TypeError, ValueError) as error:
        return f"--devices: {error}"
    local = [name for name in names if not name.startswith("/job:")]
    others = [name for name in local if not name.startswith("/cpu:")]
    if others:
        cpus = ",".join(f"/cpu:{i}" for i in range(len(names)))
        return (
            f"--devices names {others[0]!r}, but this machine has no GPU: pass "
            f"--devices={cpus} --simulate_devices={len(names)} to run on "
            f"{len(names)} logical CPU devices, or leave out --devices."
        )
    high = max((int(name.split(":")[1]) for name in local), default=-1)
    if high >= count:
        return (
            f"--devices names '/cpu:{high}', but --simulate_devices={simulate} "
            f"makes {count} logical CPU device(s) here: "
            f"{_simulate_hint(high + 1)}."
        )
    return None
