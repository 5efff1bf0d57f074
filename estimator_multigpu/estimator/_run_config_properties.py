"""`RunConfig`'s read-only properties, declared one per line.

Each returns the field `RunConfig.__init__` (or `replace`) stored as
`_<name>`; the cluster properties come from `TF_CONFIG`, as in tf.estimator.
`Field[T]` is a typed, read-only descriptor, so IDEs and type checkers see
each property's type and docstring.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar, overload

import tensorflow as tf

from estimator_multigpu import devices

T = TypeVar("T")


class Field(Generic[T]):
    """A read-only property returning the value stored as `_<its name>`."""

    def __init__(self, doc: str):
        self.__doc__ = doc
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, objtype: type | None = None) -> Field[T]: ...

    @overload
    def __get__(self, obj: object, objtype: type | None = None) -> T: ...

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return getattr(obj, f"_{self.name}")

    def __set__(self, obj: object, value: Any) -> None:
        raise AttributeError(
            f"property {self.name!r} of {type(obj).__name__!r} object has no "
            "setter; use RunConfig.replace(...) for a changed copy."
        )

    def __delete__(self, obj: object) -> None:
        raise AttributeError(f"property {self.name!r} cannot be deleted.")


class SessionConfigField(Field[T]):
    """The stored `ConfigProto`, read as one that keeps the logical devices.

    Every session the Estimator makes (train, evaluate, predict, export, a
    cluster task's server) takes its config from here; a session with an
    explicit config would otherwise see one CPU (`emg.devices.session_config`).
    Reads return one copy per stored config, as tf.estimator returns one
    object: a change made through `config.session_config` stays, and a
    change to the config given to `RunConfig` is seen at the next read.
    """

    def __get__(self, obj, objtype=None):
        value = super().__get__(obj, objtype)
        if obj is None or value is None:
            return value
        return _session_config_view(obj, value)


def _session_config_view(obj, value: tf.compat.v1.ConfigProto):
    """`obj`'s copy of `value` that keeps the logical devices, made once."""
    given = value.SerializeToString(deterministic=True)
    cached = vars(obj).get("_session_config_view")
    if cached is None or cached[0] is not value or cached[1] != given:
        cached = (value, given, devices.session_config(value))
        vars(obj)["_session_config_view"] = cached
    else:  # The same object: devices simulated since the last read join it.
        cached[2].CopyFrom(devices.session_config(cached[2]))
    return cached[2]


class RunConfigProperties:
    """The properties of `RunConfig`: its fields, then the cluster's."""

    model_dir = Field[str | None](
        "The directory checkpoints, event files and exports go to."
    )
    tf_random_seed = Field[int | None]("The graph-level random seed, or None.")
    save_summary_steps = Field[int]("Summaries are saved every this many steps.")
    save_checkpoints_steps = Field[int | None](
        "A checkpoint every this many steps, or None."
    )
    save_checkpoints_secs = Field[int | None](
        "A checkpoint every this many seconds, or None."
    )
    session_config = SessionConfigField[tf.compat.v1.ConfigProto | None](
        "The `ConfigProto` of the training and evaluation sessions, which see "
        "this process's logical devices (see `emg.devices.session_config`)."
    )
    keep_checkpoint_max = Field[int](
        "How many recent checkpoints are kept (0 or None: all)."
    )
    keep_checkpoint_every_n_hours = Field[float](
        "One checkpoint per this many hours is kept for good."
    )
    log_step_count_steps = Field[int | None](
        "`global_step/sec` is logged every this many steps."
    )
    train_distribute = Field[Any]("The `tf.distribute` strategy of training, or None.")
    device_fn = Field[Callable | None](
        "`device_fn(op) -> device` for every op the model_fn makes, or None."
    )
    protocol = Field[str | None]("The server protocol (`'grpc'`), or None.")
    eval_distribute = Field[Any]("The `tf.distribute` strategy of evaluation, or None.")
    experimental_distribute = Field[Any]("tf.estimator's `DistributeConfig`, or None.")
    experimental_max_worker_delay_secs = Field[int | None](
        "The longest a worker waits before it starts, or None."
    )
    session_creation_timeout_secs = Field[int](
        "How long a worker waits for the chief's session."
    )
    checkpoint_save_graph_def = Field[bool]("Whether checkpoints save the graph.")
    devices = Field[Sequence[str] | None](
        "The devices the model is replicated over, as given, or None."
    )
    num_gpus = Field[int | None](
        "How many devices the model is replicated over, as given, or None."
    )
    log_examples_per_sec = Field[bool](
        "Whether `examples/sec` is logged beside `global_step/sec`."
    )

    # The cluster, from TF_CONFIG.
    cluster_spec = Field[tf.train.ClusterSpec](
        "The cluster `TF_CONFIG` describes (empty: one process)."
    )
    task_type = Field[str]("This task's job name (`'worker'`, `'chief'`, ...).")
    task_id = Field[int]("This task's index in its job.")
    global_id_in_cluster = Field[int](
        "This task's index among all the cluster's tasks."
    )
    master = Field[str]("The session target of this task (`''`: in process).")
    evaluation_master = Field[str]("The session target evaluation uses.")
    is_chief = Field[bool](
        "Whether this task is the chief (saves checkpoints and summaries)."
    )
    num_ps_replicas = Field[int]("How many parameter servers the cluster has.")
    num_worker_replicas = Field[int](
        "How many training tasks (chief and workers) the cluster has."
    )
    service = Field[dict | None]("The `service` entry of `TF_CONFIG`, or None.")
