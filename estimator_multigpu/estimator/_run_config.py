"""`RunConfig`: where and how often an Estimator saves, logs and runs."""

from __future__ import annotations

import copy
import inspect
import os
from collections.abc import Sequence

import tensorflow as tf

from estimator_multigpu import devices as devices_lib
from estimator_multigpu.estimator import (
    _cluster,
    _run_config_properties,
    _strategies,
)

_USE_DEFAULT = object()
_STRATEGY_FIELDS = ("_train_distribute", "_eval_distribute", "_experimental_distribute")

# tf.estimator.RunConfig's constructor arguments, in its order.
TF_FIELDS = (
    "model_dir",
    "tf_random_seed",
    "save_summary_steps",
    "save_checkpoints_steps",
    "save_checkpoints_secs",
    "session_config",
    "keep_checkpoint_max",
    "keep_checkpoint_every_n_hours",
    "log_step_count_steps",
    "train_distribute",
    "device_fn",
    "protocol",
    "eval_distribute",
    "experimental_distribute",
    "experimental_max_worker_delay_secs",
    "session_creation_timeout_secs",
    "checkpoint_save_graph_def",
)
_REPLACEABLE = TF_FIELDS + ("devices", "num_gpus", "log_examples_per_sec")

_SAVE_CKPT_ERR = (
    "`save_checkpoints_steps` and `save_checkpoints_secs` cannot be both set."
)


def get_default_session_config() -> tf.compat.v1.ConfigProto:
    """The session config tf.estimator uses: soft placement, one rewrite pass."""
    # RewriterConfig has no public tf.* name; its fields are set by name.
    rewrite = {"meta_optimizer_iterations": "ONE"}
    graph_options = tf.compat.v1.GraphOptions(rewrite_options=rewrite)
    return tf.compat.v1.ConfigProto(
        allow_soft_placement=True, graph_options=graph_options
    )


def _resolve_save_defaults(steps, secs):
    """tf.estimator's rule: by default a checkpoint every 600 seconds."""
    if steps is _USE_DEFAULT and secs is _USE_DEFAULT:
        return None, 600
    if secs is _USE_DEFAULT:
        return steps, None
    if steps is _USE_DEFAULT:
        return None, secs
    if steps is not None and secs is not None:
        raise ValueError(_SAVE_CKPT_ERR)
    return steps, secs


class RunConfig(_run_config_properties.RunConfigProperties):
    """Configuration of an `Estimator` run; same arguments as tf.estimator's.

    Arguments keep tf.estimator's order; `TF_CONFIG` is read into the cluster
    properties (`is_chief`, `master`, `num_worker_replicas`, ...) as there.
    `devices` / `num_gpus`, or a `MirroredStrategy` / `OneDeviceStrategy` as
    `train_distribute`, replicate the `model_fn` over those devices with
    `replicate_model_fn`; with none of them, the environment variable
    `EMG_NUM_GPUS=N` does the same as `num_gpus=N`, so an unchanged program
    runs on N devices. `Estimator.train` runs in this one process: a
    `TF_CONFIG` naming a non-chief task or a cluster of several training tasks
    makes it raise; `train_and_evaluate` runs each task of such a cluster
    (worker 0 is the chief of a cluster without a `chief` job).
    """

    def __init__(
        self,
        model_dir: str | os.PathLike | None = None,
        tf_random_seed: int | None = None,
        save_summary_steps: int = 100,
        save_checkpoints_steps=_USE_DEFAULT,
        save_checkpoints_secs=_USE_DEFAULT,
        session_config: tf.compat.v1.ConfigProto | None = None,
        keep_checkpoint_max: int = 5,
        keep_checkpoint_every_n_hours: float = 10000,
        log_step_count_steps: int | None = 100,
        train_distribute=None,
        device_fn=None,
        protocol: str | None = None,
        eval_distribute=None,
        experimental_distribute=None,
        experimental_max_worker_delay_secs: int | None = None,
        session_creation_timeout_secs: int = 7200,
        checkpoint_save_graph_def: bool = True,
        devices: Sequence[str] | None = None,
        num_gpus: int | None = None,
        log_examples_per_sec: bool = False,
    ):
        """Builds a `RunConfig`, with tf.estimator's arguments in its order.

        Args:
          model_dir: where checkpoints, event files and exports go; None: the
            Estimator's, or a temporary folder.
          tf_random_seed: the graph-level random seed, or None.
          save_summary_steps: save summaries every this many steps.
          save_checkpoints_steps: a checkpoint every this many steps (not with
            `save_checkpoints_secs`).
          save_checkpoints_secs: a checkpoint every this many seconds; by
            default 600 when neither is given.
          session_config: the `tf.compat.v1.ConfigProto` of the sessions;
            default `get_default_session_config()`.
          keep_checkpoint_max: how many recent checkpoints to keep (0 or None:
            all).
          keep_checkpoint_every_n_hours: keep one checkpoint per this many
            hours for good.
          log_step_count_steps: log `global_step/sec` (and the loss) every
            this many steps; None: never.
          train_distribute: None, or a `tf.distribute.MirroredStrategy` /
            `OneDeviceStrategy` whose devices the model is replicated over.
          eval_distribute: accepted as tf.estimator takes it; evaluation runs
            on the training devices, so it must name the same devices as
            `train_distribute` when both are given.
          device_fn: `device_fn(op) -> device` for every op the model_fn
            makes, or None.
          protocol: the server protocol (`'grpc'`), or None.
          experimental_distribute: tf.estimator's `DistributeConfig`, or None.
          experimental_max_worker_delay_secs: the longest a worker waits
            before it starts, or None.
          session_creation_timeout_secs: how long a worker waits for the
            chief's session, and the trainer for the cluster's parameter
            servers.
          checkpoint_save_graph_def: whether checkpoints save the graph.
          devices: compute devices to replicate the model over, e.g.
            `['/gpu:0', '/gpu:1']`.
          num_gpus: replicate over the first `num_gpus` devices instead.
          log_examples_per_sec: also log and record `examples/sec` beside
            `global_step/sec` (off by default, as in tf.estimator).

        Raises:
          ValueError: for both checkpoint frequencies, more than one way of
            naming devices, a strategy that cannot be honoured, or an
            out-of-range value.
        """
        steps, secs = _resolve_save_defaults(
            save_checkpoints_steps, save_checkpoints_secs
        )
        env = _cluster.tf_config()
        self._model_dir = _cluster.model_dir_from(env, _as_path(model_dir))
        self._tf_random_seed = tf_random_seed
        self._save_summary_steps = save_summary_steps
        self._save_checkpoints_steps = steps
        self._save_checkpoints_secs = secs
        self._session_config = session_config
        self._keep_checkpoint_max = keep_checkpoint_max
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._log_step_count_steps = log_step_count_steps
        self._train_distribute = train_distribute
        self._device_fn = device_fn
        self._protocol = protocol
        self._eval_distribute = eval_distribute
        self._experimental_distribute = experimental_distribute
        self._experimental_max_worker_delay_secs = experimental_max_worker_delay_secs
        self._session_creation_timeout_secs = session_creation_timeout_secs
        self._checkpoint_save_graph_def = checkpoint_save_graph_def
        self._devices = devices
        self._num_gpus = num_gpus
        self._env_num_gpus = _num_gpus_from_env()
        self._log_examples_per_sec = log_examples_per_sec
        self._set_cluster(_cluster.properties(env))
        if session_config is None and self._cluster_spec:
            self._session_config = _cluster.distributed_session_config(
                self._task_type, self._task_id, get_default_session_config()
            )
        _validate(self)

    def _set_cluster(self, properties: dict) -> None:
        """Stores the cluster properties `TF_CONFIG` describes."""
        self._cluster_spec = properties["cluster_spec"]
        self._task_type = properties["task_type"]
        self._task_id = properties["task_id"]
        self._global_id_in_cluster = properties["global_id_in_cluster"]
        self._master = properties["master"]
        self._evaluation_master = properties["evaluation_master"]
        self._is_chief = properties["is_chief"]
        self._num_ps_replicas = properties["num_ps_replicas"]
        self._num_worker_replicas = properties["num_worker_replicas"]
        self._service = properties["service"]

    def replace(self, **kwargs) -> RunConfig:
        """Returns a copy with the named properties replaced.

        Raises:
          ValueError: for a property that cannot be replaced or a bad value.
        """
        new = copy.deepcopy(self)
        for key, value in kwargs.items():
            if key not in _REPLACEABLE:
                raise ValueError(
                    f"Replacing {key} is not supported. Allowed properties are "
                    f"{list(_REPLACEABLE)}."
                )
            setattr(new, "_" + key, _as_path(value) if key == "model_dir" else value)
        _fix_save_frequency(new, kwargs)
        _validate(new)
        return new

    def __deepcopy__(self, memo) -> RunConfig:
        """A copy sharing the (uncopyable) distribution strategies."""
        new = copy.copy(self)
        for key, value in vars(self).items():
            if key not in _STRATEGY_FIELDS:
                setattr(new, key, copy.deepcopy(value, memo))
        return new

    @property
    def compute_devices(self) -> list[str] | None:
        """Devices the model is replicated over, or None for no replication."""
        strategy_devices = self._strategy_devices()[0]
        if strategy_devices is not None:
            return devices_lib.resolve(devices=strategy_devices)
        if self._devices is None and self._num_gpus is None:
            if self._env_num_gpus is None:
                return None
            return devices_lib.resolve(num_gpus=self._env_num_gpus)
        return devices_lib.resolve(num_gpus=self._num_gpus, devices=self._devices)

    def _strategy_devices(self) -> tuple:
        """`(train, eval)` devices of the distribution strategies, or Nones."""
        train, evaluation = _strategies.from_distribute_config(
            self._experimental_distribute
        )
        train = self._train_distribute or train
        evaluation = self._eval_distribute or evaluation
        return (
            _strategies.devices_of(train, "train_distribute"),
            _strategies.devices_of(evaluation, "eval_distribute"),
        )

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={getattr(self, '_' + k)!r}" for k in _REPLACEABLE)
        return f"RunConfig({fields})"


def _as_path(model_dir) -> str | None:
    """`model_dir` as a str; TypeError for what is not a path."""
    if model_dir is None:
        return None
    if not isinstance(model_dir, (str, bytes, os.PathLike)):
        raise TypeError(
            "RunConfig `model_dir` must be a path (a str or os.PathLike); "
            f"received {model_dir!r} of type {type(model_dir).__name__}."
        )
    return os.fsdecode(model_dir)


def _fix_save_frequency(config: RunConfig, replaced) -> None:
    """Setting one checkpoint frequency with `replace` clears the other."""
    steps, secs = config._save_checkpoints_steps, config._save_checkpoints_secs
    both = "save_checkpoints_steps" in replaced and "save_checkpoints_secs" in replaced
    if both and steps is not None and secs is not None:
        raise ValueError(_SAVE_CKPT_ERR)
    if "save_checkpoints_steps" in replaced and steps is not None:
        config._save_checkpoints_secs = None
    elif "save_checkpoints_secs" in replaced and secs is not None:
        config._save_checkpoints_steps = None


_CHECKS = (  # (field, valid, tf.estimator's message, what we expect)
    ("model_dir", bool, "model_dir should be non-empty", "a non-empty path"),
    ("save_summary_steps", lambda v: v >= 0, None, ">= 0"),
    ("save_checkpoints_steps", lambda v: v >= 0, None, ">= 0"),
    ("save_checkpoints_secs", lambda v: v >= 0, None, ">= 0"),
    ("keep_checkpoint_max", lambda v: v >= 0, None, ">= 0"),
    ("keep_checkpoint_every_n_hours", lambda v: v > 0, None, "> 0"),
    ("log_step_count_steps", lambda v: v > 0, None, "> 0"),
    ("session_creation_timeout_secs", lambda v: v > 0, None, "> 0"),
    (
        "tf_random_seed",
        lambda v: isinstance(v, int),
        "tf_random_seed must be integer.",
        "an int",
    ),
    (
        "experimental_max_worker_delay_secs",
        lambda v: isinstance(v, int),
        "experimental_max_worker_delay_secs must be an integer if set.",
        "an int",
    ),
    (
        "session_config",
        lambda v: isinstance(v, tf.compat.v1.ConfigProto),
        "session_config must be instance of ConfigProto",
        "a ConfigProto",
    ),
    (
        "device_fn",
        lambda v: callable(v) and _arg_names(v) == ["op"],
        'device_fn must be callable with exactly one argument "op".',
        "a callable taking one argument `op`",
    ),
    (
        "protocol",
        lambda v: v in ("grpc", "grpc+verbs"),
        "protocol should be grpc or grpc+verbs",
        "None, 'grpc' or 'grpc+verbs'",
    ),
)


def _arg_names(fn) -> list[str] | None:
    try:
        return list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return None


NUM_GPUS_ENV = devices_lib.NUM_GPUS_ENV


def _num_gpus_from_env() -> int | None:
    """`EMG_NUM_GPUS` as a device count, or None when unset or empty.

    It replicates a config that names no devices (no `devices`, `num_gpus`
    or strategy), so an unchanged single-device Estimator program runs on N
    devices, as `TF_CONFIG` gives one its cluster.
    """
    return devices_lib.num_gpus_from_env()


def _validate(config: RunConfig) -> None:
    """tf.estimator's checks (its message first, ours after), then devices."""
    for name, ok, tf_message, want in _CHECKS:
        value = getattr(config, "_" + name)
        if value is not None and not ok(value):
            tf_message = tf_message or f"{name} should be {want}"
            raise ValueError(
                f"{tf_message} (RunConfig `{name}` must be {want}; received {value!r})."
            )
    _validate_devices(config)


def _validate_devices(config: RunConfig) -> None:
    """One way of naming devices; strategies we honour; devices that exist."""
    named = [
        f"`{name}`"
        for name in ("devices", "num_gpus", "train_distribute")
        if getattr(config, "_" + name) is not None
    ]
    if config._devices is not None and config._num_gpus is not None:
        raise ValueError(
            f"RunConfig got both `devices` ({config._devices!r}) and `num_gpus` "
            f"({config._num_gpus!r}); pass only one of them."
        )
    if len(named) > 1:
        raise ValueError(
            f"RunConfig got {' and '.join(named)}: they name the devices to "
            "replicate over in different ways; pass only one of them."
        )
    train, evaluation = config._strategy_devices()
    if train is not None and evaluation is not None and train != evaluation:
        raise ValueError(
            f"RunConfig `train_distribute` runs on {train} but `eval_distribute` "
            f"on {evaluation}; emg.estimator evaluates on the training devices. "
            "Pass the same strategy (or eval_distribute=None)."
        )
    config.compute_devices  # noqa: B018  (raises for unknown devices)
