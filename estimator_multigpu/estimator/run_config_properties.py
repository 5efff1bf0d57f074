"""`RunConfig`'s read-only properties, written out for IDEs and type checkers.

Each returns the field `RunConfig.__init__` (or `replace`) stored as
`_<name>`; the cluster properties come from `TF_CONFIG`, as in tf.estimator.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import tensorflow as tf


class RunConfigProperties:
    """The properties of `RunConfig`: its fields, then the cluster's."""

    @property
    def model_dir(self) -> str | None:
        """The directory checkpoints, event files and exports go to."""
        return self._model_dir

    @property
    def tf_random_seed(self) -> int | None:
        """The graph-level random seed, or None."""
        return self._tf_random_seed

    @property
    def save_summary_steps(self) -> int:
        """Summaries are saved every this many steps."""
        return self._save_summary_steps

    @property
    def save_checkpoints_steps(self) -> int | None:
        """A checkpoint every this many steps, or None."""
        return self._save_checkpoints_steps

    @property
    def save_checkpoints_secs(self) -> int | None:
        """A checkpoint every this many seconds, or None."""
        return self._save_checkpoints_secs

    @property
    def session_config(self) -> tf.compat.v1.ConfigProto | None:
        """The `ConfigProto` of the training and evaluation sessions."""
        return self._session_config

    @property
    def keep_checkpoint_max(self) -> int:
        """How many recent checkpoints are kept (0 or None: all)."""
        return self._keep_checkpoint_max

    @property
    def keep_checkpoint_every_n_hours(self) -> float:
        """One checkpoint per this many hours is kept for good."""
        return self._keep_checkpoint_every_n_hours

    @property
    def log_step_count_steps(self) -> int | None:
        """`global_step/sec` is logged every this many steps."""
        return self._log_step_count_steps

    @property
    def train_distribute(self) -> Any:
        """The `tf.distribute` strategy of training, or None."""
        return self._train_distribute

    @property
    def device_fn(self) -> Callable | None:
        """`device_fn(op) -> device` for every op the model_fn makes, or None."""
        return self._device_fn

    @property
    def protocol(self) -> str | None:
        """The server protocol (`'grpc'`), or None."""
        return self._protocol

    @property
    def eval_distribute(self) -> Any:
        """The `tf.distribute` strategy of evaluation, or None."""
        return self._eval_distribute

    @property
    def experimental_distribute(self) -> Any:
        """tf.estimator's `DistributeConfig`, or None."""
        return self._experimental_distribute

    @property
    def experimental_max_worker_delay_secs(self) -> int | None:
        """The longest a worker waits before it starts, or None."""
        return self._experimental_max_worker_delay_secs

    @property
    def session_creation_timeout_secs(self) -> int:
        """How long a worker waits for the chief's session."""
        return self._session_creation_timeout_secs

    @property
    def checkpoint_save_graph_def(self) -> bool:
        """Whether checkpoints save the graph."""
        return self._checkpoint_save_graph_def

    @property
    def devices(self) -> Sequence[str] | None:
        """The devices the model is replicated over, as given, or None."""
        return self._devices

    @property
    def num_gpus(self) -> int | None:
        """How many devices the model is replicated over, as given, or None."""
        return self._num_gpus

    @property
    def log_examples_per_sec(self) -> bool:
        """Whether `examples/sec` is logged beside `global_step/sec`."""
        return self._log_examples_per_sec

    @property
    def cluster_spec(self) -> tf.train.ClusterSpec:
        """The cluster `TF_CONFIG` describes (empty: one process)."""
        return self._cluster_spec

    @property
    def task_type(self) -> str:
        """This task's job name (`'worker'`, `'chief'`, ...)."""
        return self._task_type

    @property
    def task_id(self) -> int:
        """This task's index in its job."""
        return self._task_id

    @property
    def global_id_in_cluster(self) -> int:
        """This task's index among all the cluster's tasks."""
        return self._global_id_in_cluster

    @property
    def master(self) -> str:
        """The session target of this task (`''`: in process)."""
        return self._master

    @property
    def evaluation_master(self) -> str:
        """The session target evaluation uses."""
        return self._evaluation_master

    @property
    def is_chief(self) -> bool:
        """Whether this task is the chief (saves checkpoints and summaries)."""
        return self._is_chief

    @property
    def num_ps_replicas(self) -> int:
        """How many parameter servers the cluster has."""
        return self._num_ps_replicas

    @property
    def num_worker_replicas(self) -> int:
        """How many training tasks (chief and workers) the cluster has."""
        return self._num_worker_replicas

    @property
    def service(self) -> dict | None:
        """The `service` entry of `TF_CONFIG`, or None."""
        return self._service
