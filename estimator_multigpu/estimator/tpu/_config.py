"""`TPUConfig`, `InputPipelineConfig` and the TPU `RunConfig`, accepted on GPUs."""

from __future__ import annotations

import collections
import re

import numpy as np

from estimator_multigpu.estimator import _run_config

_ITERATIONS_RE = re.compile(r"^(?P<value>[1-9]\d*)((?P<suffix>[s|m|h])$|$)")
_SECONDS = {"s": 1, "m": 60, "h": 3600}

IterationsPerLoopCounter = collections.namedtuple(
    "IterationsPerLoopCounter", ["value", "unit"]
)


class InputPipelineConfig:
    """TPUEstimator's input pipeline modes (`TPUConfig.per_host_input_for_training`).

    Accepted for code that names them; on GPUs the `input_fn` is called once
    per step for the global batch, which the towers split (every mode reads
    the same).
    """

    PER_SHARD_V1 = 1
    PER_HOST_V1 = 2
    PER_HOST_V2 = 3
    BROADCAST = 4
    SLICED = 5


def check_positive_integer(value, name: str) -> None:
    """TPUEstimator's check, with its messages.

    Raises:
      TypeError: for a value that is not an int.
      ValueError: for a value <= 0.
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be int, got {type(value)}")
    if value <= 0:
        raise ValueError(f"{name} must be positive, got {value}")


def parse_iterations_per_loop(iterations_per_loop) -> IterationsPerLoopCounter:
    """`iterations_per_loop` (`100`, `'60s'`, `'5m'`, `'1h'`) as `(value, unit)`.

    Raises:
      ValueError: for any other value, with TPUEstimator's message.
    """
    match = _ITERATIONS_RE.match(str(iterations_per_loop))
    if match is None:
        raise ValueError(
            "Invalid TPUConfig `iterations_per_loop` value. Value must be positive "
            "integer value or time-based value `<N><s|m|h>` where <N> is any"
            "positive integer and `s`, `m`, `h` are unit of time in seconds, "
            "minutes, hours respectively. Examples of valid values: `3600s`, "
            f"`60m`, `1h`. (received {iterations_per_loop!r})"
        )
    suffix = match.group("suffix")
    value = int(match.group("value")) * _SECONDS.get(suffix, 1)
    return IterationsPerLoopCounter(value, "seconds" if suffix else "count")


_TPU_CONFIG_FIELDS = (
    "iterations_per_loop",
    "num_shards",
    "num_cores_per_replica",
    "per_host_input_for_training",
    "tpu_job_name",
    "initial_infeed_sleep_secs",
    "input_partition_dims",
    "eval_training_input_configuration",
    "experimental_host_call_every_n_steps",
    "experimental_allow_per_host_v2_parallel_get_next",
    "experimental_feed_hook",
)


class TPUConfig(collections.namedtuple("TPUConfig", _TPU_CONFIG_FIELDS)):
    """`tf.compat.v1.estimator.tpu.TPUConfig`: same fields, defaults and checks.

    On GPUs every field is accepted and kept, and none changes a step:
    `iterations_per_loop` only sets how often the examples/sec hook logs
    (TPUEstimator's own rule, also with `use_tpu=False`), `num_shards` is
    ignored (the devices come from `RunConfig(devices=...)`/`num_gpus`), and
    `per_host_input_for_training` is ignored because the `input_fn` is
    called once for the global batch, which the towers split.

    Args:
      iterations_per_loop: steps per TPU loop (`100`, or `'60s'`, `'5m'`,
        `'1h'`); off TPU it divides `log_step_count_steps` for the
        examples/sec hook.
      num_shards: TPU cores (ignored; checked to be a positive int).
      num_cores_per_replica: cores per model replica (1, 2, 4, ..., 128).
      per_host_input_for_training: an `InputPipelineConfig` mode, or
        True/False (PER_HOST_V1/PER_SHARD_V1).
      tpu_job_name: the TPU job (kept).
      initial_infeed_sleep_secs: a positive int or None (kept).
      input_partition_dims: PER_HOST_V2 only, with `num_cores_per_replica`.
      eval_training_input_configuration: PER_HOST_V1 or SLICED.
      experimental_host_call_every_n_steps: kept (the host_call runs every
        step off TPU).
      experimental_allow_per_host_v2_parallel_get_next: kept.
      experimental_feed_hook: kept.

    Raises:
      ValueError, TypeError: with TPUConfig's messages, for the values it
        refuses.
    """

    def __new__(
        cls,
        iterations_per_loop=2,
        num_shards=None,
        num_cores_per_replica=None,
        per_host_input_for_training=True,
        tpu_job_name=None,
        initial_infeed_sleep_secs=None,
        input_partition_dims=None,
        eval_training_input_configuration=InputPipelineConfig.PER_HOST_V1,
        experimental_host_call_every_n_steps=1,
        experimental_allow_per_host_v2_parallel_get_next=False,
        experimental_feed_hook=None,
    ):
        parse_iterations_per_loop(iterations_per_loop)
        if num_shards is not None:
            check_positive_integer(num_shards, "TPUConfig num_shards")
        _check_partition_dims(
            input_partition_dims, per_host_input_for_training, num_cores_per_replica
        )
        if num_cores_per_replica is not None and num_cores_per_replica not in (
            1,
            2,
            4,
            8,
            16,
            32,
            64,
            128,  # fmt: skip
        ):
            raise ValueError(
                "num_cores_per_replica must be 1, 2, 4, 8, 16, 32, 64, 128; "
                f"got {num_cores_per_replica}"
            )
        if eval_training_input_configuration not in (
            InputPipelineConfig.PER_HOST_V1,
            InputPipelineConfig.SLICED,
        ):
            raise ValueError(
                "eval_training_input_configuration must be PER_HOST_V1 or SLICED;"
                f" got {eval_training_input_configuration}"
            )
        if per_host_input_for_training is False:
            per_host_input_for_training = InputPipelineConfig.PER_SHARD_V1
        elif per_host_input_for_training is True:
            per_host_input_for_training = InputPipelineConfig.PER_HOST_V1
        if initial_infeed_sleep_secs:
            check_positive_integer(
                initial_infeed_sleep_secs, "TPUConfig initial_infeed_sleep_secs"
            )
        return super().__new__(
            cls,
            iterations_per_loop,
            num_shards,
            num_cores_per_replica,
            per_host_input_for_training,
            tpu_job_name,
            initial_infeed_sleep_secs,
            input_partition_dims,
            eval_training_input_configuration,
            experimental_host_call_every_n_steps,
            experimental_allow_per_host_v2_parallel_get_next,
            experimental_feed_hook,
        )


def _check_partition_dims(dims, per_host, cores_per_replica) -> None:
    if dims is None:
        return
    if len(dims) not in (1, 2):
        raise ValueError(
            "input_partition_dims must be a list/tuple with one or two elements."
        )
    if per_host is not InputPipelineConfig.PER_HOST_V2:
        raise ValueError("input_partition_dims is only supported in PER_HOST_V2 mode.")
    if cores_per_replica is None:
        raise ValueError("input_partition_dims requires setting num_cores_per_replica.")


class RunConfig(_run_config.RunConfig):
    """`tf.compat.v1.estimator.tpu.RunConfig`: an `emg.estimator.RunConfig` with a `TPUConfig`.

    Takes `tpu_config`, `evaluation_master`, `master` and `cluster` (a
    `TPUClusterResolver`) as TPUEstimator's does, and every
    `emg.estimator.RunConfig` argument (`devices`, `num_gpus` included) as
    keywords. On GPUs `master`, `evaluation_master` and `cluster` are kept
    but not used: training and evaluation run in this process, on the
    devices the config names.
    """

    def __init__(
        self,
        tpu_config: TPUConfig | None = None,
        evaluation_master: str | None = None,
        master: str | None = None,
        cluster=None,
        **kwargs,
    ):
        """Builds a RunConfig.

        Args:
          tpu_config: a `TPUConfig`; default `TPUConfig()`.
          evaluation_master: kept as `evaluation_master` (default: `master`).
          master: kept as `master`.
          cluster: a cluster resolver, kept as `cluster` (not with `master`).
          **kwargs: `emg.estimator.RunConfig` arguments.

        Raises:
          ValueError: for both `master` and `cluster`, or a bad RunConfig
            argument.
        """
        super().__init__(**kwargs)
        self._tpu_config = tpu_config or TPUConfig()
        self._cluster = cluster
        if master is not None:
            if cluster is not None:
                raise ValueError(
                    "Both master and cluster are set (pass one of them; on GPUs "
                    "neither is needed)."
                )
            self._master = master
        elif cluster:
            self._master = cluster.master()
        if evaluation_master is not None:
            self._evaluation_master = evaluation_master
        elif not self._evaluation_master and self.task_type != "evaluator":
            self._evaluation_master = self._master

    @property
    def tpu_config(self) -> TPUConfig:
        """The `TPUConfig` (accepted, see its docstring for what GPUs use)."""
        return self._tpu_config

    @property
    def cluster(self):
        """The cluster resolver given, or None."""
        return self._cluster

    def replace(self, **kwargs) -> RunConfig:
        """A copy with the named properties (`tpu_config` too) replaced."""
        if "tpu_config" not in kwargs:
            return super().replace(**kwargs)
        tpu_config = kwargs.pop("tpu_config")
        new = super().replace(**kwargs)
        new._tpu_config = tpu_config
        return new
