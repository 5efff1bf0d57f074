"""`RunConfig`: where and how often an Estimator saves, logs and runs."""

from __future__ import annotations

import copy
import os
from collections.abc import Sequence

import tensorflow as tf
from tensorflow.core.protobuf import rewriter_config_pb2

from estimator_multigpu import devices as devices_lib

_USE_DEFAULT = object()

_REPLACEABLE = (
    "model_dir",
    "tf_random_seed",
    "save_summary_steps",
    "save_checkpoints_steps",
    "save_checkpoints_secs",
    "session_config",
    "keep_checkpoint_max",
    "keep_checkpoint_every_n_hours",
    "log_step_count_steps",
    "device_fn",
    "session_creation_timeout_secs",
    "checkpoint_save_graph_def",
    "devices",
    "num_gpus",
)

_SAVE_CKPT_ERR = (
    "`save_checkpoints_steps` and `save_checkpoints_secs` cannot be both set."
)


def get_default_session_config() -> tf.compat.v1.ConfigProto:
    """The session config tf.estimator uses: soft placement, one rewrite pass."""
    rewrite = rewriter_config_pb2.RewriterConfig(
        meta_optimizer_iterations=rewriter_config_pb2.RewriterConfig.ONE
    )
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


class RunConfig:
    """Configuration of an `Estimator` run; same arguments as tf.estimator's.

    Local (single-process) fields only; the multi-worker fields read as a
    single chief worker. `devices` / `num_gpus` add in-graph replication: an
    `Estimator` with either set wraps its `model_fn` in `replicate_model_fn`.
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
        device_fn=None,
        session_creation_timeout_secs: int = 7200,
        checkpoint_save_graph_def: bool = True,
        devices: Sequence[str] | None = None,
        num_gpus: int | None = None,
    ):
        """Builds a `RunConfig`; see `tf.estimator.RunConfig` for the fields.

        Args:
          devices: compute devices to replicate the model over, e.g.
            `['/gpu:0', '/gpu:1']`.
          num_gpus: replicate over the first `num_gpus` devices instead.

        Raises:
          ValueError: for both checkpoint frequencies, both `devices` and
            `num_gpus`, or an out-of-range value.
        """
        steps, secs = _resolve_save_defaults(
            save_checkpoints_steps, save_checkpoints_secs
        )
        self._model_dir = _as_path(model_dir)
        self._tf_random_seed = tf_random_seed
        self._save_summary_steps = save_summary_steps
        self._save_checkpoints_steps = steps
        self._save_checkpoints_secs = secs
        self._session_config = session_config
        self._keep_checkpoint_max = keep_checkpoint_max
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._log_step_count_steps = log_step_count_steps
        self._device_fn = device_fn
        self._session_creation_timeout_secs = session_creation_timeout_secs
        self._checkpoint_save_graph_def = checkpoint_save_graph_def
        self._devices = devices
        self._num_gpus = num_gpus
        _validate(self)

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

    @property
    def compute_devices(self) -> list[str] | None:
        """Devices the model is replicated over, or None for no replication."""
        if self._devices is None and self._num_gpus is None:
            return None
        return devices_lib.resolve(num_gpus=self._num_gpus, devices=self._devices)

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


def _add_properties():
    """Read-only properties for every replaceable field."""
    for name in _REPLACEABLE:
        setattr(
            RunConfig, name, property(lambda self, _n=name: getattr(self, "_" + _n))
        )
    local = {
        "cluster_spec": lambda self: tf.train.ClusterSpec({}),
        "is_chief": lambda self: True,
        "master": lambda self: "",
        "evaluation_master": lambda self: "",
        "num_ps_replicas": lambda self: 0,
        "num_worker_replicas": lambda self: 1,
        "task_id": lambda self: 0,
        "task_type": lambda self: "worker",
        "global_id_in_cluster": lambda self: 0,
        "service": lambda self: None,
        "train_distribute": lambda self: None,
        "eval_distribute": lambda self: None,
        "protocol": lambda self: None,
    }
    for name, getter in local.items():
        setattr(RunConfig, name, property(getter))


_add_properties()

_CHECKS = (
    ("model_dir", lambda v: bool(v), "a non-empty path"),
    ("save_summary_steps", lambda v: v >= 0, ">= 0"),
    ("save_checkpoints_steps", lambda v: v >= 0, ">= 0"),
    ("save_checkpoints_secs", lambda v: v >= 0, ">= 0"),
    ("keep_checkpoint_max", lambda v: v >= 0, ">= 0"),
    ("keep_checkpoint_every_n_hours", lambda v: v > 0, "> 0"),
    ("log_step_count_steps", lambda v: v > 0, "> 0"),
    ("session_creation_timeout_secs", lambda v: v > 0, "> 0"),
    ("tf_random_seed", lambda v: isinstance(v, int), "an int"),
    (
        "session_config",
        lambda v: isinstance(v, tf.compat.v1.ConfigProto),
        "a ConfigProto",
    ),
    ("device_fn", callable, "a callable taking one argument `op`"),
)


def _validate(config: RunConfig) -> None:
    for name, ok, want in _CHECKS:
        value = getattr(config, "_" + name)
        if value is not None and not ok(value):
            raise ValueError(f"RunConfig `{name}` must be {want}; received {value!r}.")
    if config._devices is not None and config._num_gpus is not None:
        raise ValueError(
            f"RunConfig got both `devices` ({config._devices!r}) and `num_gpus` "
            f"({config._num_gpus!r}); pass only one of them."
        )
    config.compute_devices  # noqa: B018  (raises for unknown devices)
