"""`RunConfig(train_distribute=...)`: a tf.distribute strategy as our towers' devices."""

from __future__ import annotations

import tensorflow as tf

_SUPPORTED = (
    tf.distribute.MirroredStrategy,
    tf.compat.v1.distribute.MirroredStrategy,
    tf.distribute.OneDeviceStrategy,
    tf.compat.v1.distribute.OneDeviceStrategy,
)

_PARAMETER_SERVER = (
    tf.distribute.experimental.ParameterServerStrategy,
    tf.compat.v1.distribute.experimental.ParameterServerStrategy,
)
_MULTI_WORKER = (
    tf.distribute.MultiWorkerMirroredStrategy,
    tf.compat.v1.distribute.experimental.MultiWorkerMirroredStrategy,
)


def devices_of(strategy, argument: str) -> list[str] | None:
    """The devices a `MirroredStrategy` / `OneDeviceStrategy` runs on.

    Args:
      strategy: a `tf.distribute.Strategy`, or None.
      argument: the `RunConfig` argument it came from, for error messages.

    Returns:
      Its devices (e.g. `['/gpu:0', '/gpu:1']`), or None for no strategy.

    Raises:
      ValueError: for a strategy the runner cannot honour (multi-worker,
        parameter-server, TPU, central storage), naming what to use.
    """
    if strategy is None:
        return None
    if type(strategy) in _SUPPORTED:
        return [_local_name(d) for d in strategy.extended.worker_devices]
    raise ValueError(_refusal(strategy, argument))


# tf.estimator's refusal of the TF2 ParameterServerStrategy (it ran the v1 one).
_TF_ESTIMATOR_PS_REFUSAL = (
    "Please use `tf.compat.v1.distribute.experimental.ParameterServerStrategy` "
    "for parameter server strategy with estimator. "
)


def _refusal(strategy, argument: str) -> str:
    """Why `strategy` is refused, and what to use instead."""
    name = type(strategy).__name__
    if isinstance(strategy, _PARAMETER_SERVER):
        tf_estimator_text = ""
        if type(strategy) is tf.distribute.experimental.ParameterServerStrategy:
            tf_estimator_text = _TF_ESTIMATOR_PS_REFUSAL
        return (
            f"{tf_estimator_text}"
            f"RunConfig `{argument}` got a {name}; emg.estimator does not run "
            "a ParameterServerStrategy. For parameter servers, leave "
            f"`{argument}` unset and give `TF_CONFIG` a `ps` job: "
            "`emg.estimator.train_and_evaluate` places the variables on the ps "
            "tasks (tf.estimator's parameter-server mode)."
        )
    if isinstance(strategy, _MULTI_WORKER):
        return (
            f"RunConfig `{argument}` got a MultiWorkerMirroredStrategy ({name}); "
            "emg.estimator does not all-reduce across workers. For "
            "MultiWorkerMirroredStrategy training use `emg.distribute` "
            "(`emg.distribute.multi_worker_strategy()`), or leave "
            f"`{argument}` unset and give `TF_CONFIG` a `ps` job for "
            "`emg.estimator.train_and_evaluate` "
            "(`emg.estimator.sync_replicas_optimizer` for synchronous steps)."
        )
    return (
        f"RunConfig `{argument}` got a {name}; emg.estimator "
        "runs a model on the devices of one machine only and honours "
        "tf.distribute.MirroredStrategy or OneDeviceStrategy there. Pass "
        f"{argument}=tf.distribute.MirroredStrategy([...]) or "
        "RunConfig(devices=[...]); for several machines use emg.distribute, or "
        "`emg.estimator.train_and_evaluate` on a TF_CONFIG cluster."
    )


def _local_name(device: str) -> str:
    """`/job:localhost/replica:0/task:0/device:GPU:1` as `/gpu:1`."""
    spec = tf.DeviceSpec.from_string(device)
    if spec.job not in (None, "localhost") or spec.device_type is None:
        return device
    return f"/{spec.device_type.lower()}:{spec.device_index or 0}"


def from_distribute_config(distribute_config) -> tuple:
    """`(train_distribute, eval_distribute)` of an `experimental_distribute`."""
    if distribute_config is None:
        return None, None
    if getattr(distribute_config, "remote_cluster", None):
        raise ValueError(
            "RunConfig `experimental_distribute` has a remote_cluster "
            f"({distribute_config.remote_cluster!r}); emg.estimator trains in "
            "one process only. Drop remote_cluster."
        )
    return (
        getattr(distribute_config, "train_distribute", None),
        getattr(distribute_config, "eval_distribute", None),
    )
