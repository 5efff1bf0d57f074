"""`train_and_evaluate` on a `TF_CONFIG` cluster, as tf.estimator's training executor.

Each task runs the same program with its own `TF_CONFIG` and calls
`train_and_evaluate`, which runs that task's part:

- `ps`: starts TensorFlow's gRPC server (`tf.distribute.Server`) and serves
  the variables until the job is stopped (`server.join()`).
- `chief` (or worker 0 of a cluster without a chief) and `worker`: start
  their server and train between-graph: a `replica_device_setter` puts the
  variables on the `ps` tasks and the compute on this task (its towers on
  its local devices), in a `MonitoredTrainingSession` on the task's server.
  The chief initialises and writes checkpoints and summaries; the other
  workers wait for it, then train. Asynchronous unless the model_fn's
  optimizer is wrapped by `sync_replicas_optimizer`.
- `evaluator`: evaluates each new checkpoint (at most every `throttle_secs`)
  and runs the exporters, until a checkpoint reaches `max_steps` (see
  `continuous_eval`).
"""

from __future__ import annotations

import os
import time

import tensorflow as tf

from estimator_multigpu import cluster as cluster_lib
from estimator_multigpu import devices as devices_lib
from estimator_multigpu.estimator import (
    _cluster,
    _estimator,
    _run_config,
    _train,
    _waits,
)
from estimator_multigpu.estimator._continuous_eval import run_evaluator
from estimator_multigpu.estimator._sync_replicas import (
    step_timed_out,
    sync_hooks,
    sync_replicas_optimizer,
)

__all__ = ["run", "sync_hooks", "sync_replicas_optimizer"]

_TRAINER_JOBS = (_cluster.CHIEF, _cluster.MASTER, _cluster.WORKER)
_DELAY_SECS_PER_WORKER = 5  # tf.estimator's worker start delay.
_MAX_DELAY_SECS = 60
_POLL_SECS = 0.5
# A cluster task's session waits this long for its threads when it stops:
# SyncReplicasOptimizer's chief queue runner waits for gradients of workers
# that have already stopped, and would hold the chief for TensorFlow's
# default of 120 seconds.
_STOP_GRACE_SECS = 5
_STARTED = time.time()  # About when this process started.


def is_distributed(config) -> bool:
    """Whether `config` names a task of a cluster (tf.estimator's test)."""
    return bool(config.cluster_spec) or config.task_type == _cluster.EVALUATOR


def run(estimator, train_spec, eval_spec) -> None:
    """Runs this task's part of `train_and_evaluate` (see the module doc).

    Raises:
      ValueError: for a second evaluator or a task type that has no part.
    """
    config = estimator.config
    if config.task_type == _cluster.EVALUATOR and config.task_id > 0:
        raise ValueError(
            "For distributed training, there can only be one `evaluator` task "
            f"(with task id 0).  Given task id {config.task_id} (TF_CONFIG "
            "field `task.index`: RunConfig accepts any evaluator index, as "
            "tf.estimator did; run one evaluator, with index 0)."
        )
    runners = {
        _cluster.PS: run_ps,
        _cluster.EVALUATOR: run_evaluator,
        **{job: run_trainer for job in _TRAINER_JOBS},
    }
    if config.task_type not in runners:
        raise ValueError(
            f"Task type {config.task_type} is not supported. Supported task "
            f"types are {sorted(runners)} (TF_CONFIG field `task.type`: "
            "RunConfig accepts any job of the cluster, as tf.estimator did, but "
            "train_and_evaluate runs only these; the other jobs' tasks run "
            "their own program)."
        )
    cluster_lib.check_addresses(config.cluster_spec.as_dict())
    runners[config.task_type](estimator, train_spec, eval_spec)


def start_server(config) -> tf.distribute.Server | None:
    """Starts this task's gRPC server; None for a cluster of one node.

    Raises:
      RuntimeError: for a config without cluster, task type or master.
    """
    if not config.cluster_spec or not config.task_type or config.task_id is None:
        raise RuntimeError(
            "Could not start server; be sure to specify cluster_spec, "
            "task_type, and task in RunConfig or set the TF_CONFIG "
            "environment variable."
        )
    if not config.master:
        jobs = config.cluster_spec.jobs
        single = len(jobs) == 1 and len(config.cluster_spec.job_tasks(jobs[0])) == 1
        if single and config.task_type in _TRAINER_JOBS:
            tf.get_logger().info(
                "Skip starting Tensorflow server as there is only one node in "
                "the cluster."
            )
            return None
        raise RuntimeError(
            "Could not start server; be sure to specify master in RunConfig "
            "or set the TF_CONFIG environment variable."
        )
    tf.get_logger().info("Start Tensorflow server.")
    server = tf.distribute.Server(
        config.cluster_spec,
        job_name=config.task_type,
        task_index=config.task_id,
        config=_server_config(config.session_config),
        start=False,
        protocol=config.protocol,
    )
    server.start()
    return server


def _server_config(session_config) -> tf.compat.v1.ConfigProto:
    """tf.estimator's server config (the session's GPU options), logical devices kept.

    A server, not the session config, makes the devices of its sessions.
    """
    if session_config is None:
        return devices_lib.session_config(
            tf.compat.v1.ConfigProto(log_device_placement=False)
        )
    return devices_lib.session_config(
        tf.compat.v1.ConfigProto(
            log_device_placement=False, gpu_options=session_config.gpu_options
        )
    )


def run_ps(estimator, train_spec, eval_spec) -> None:
    """Serves this parameter server's variables until the job is stopped."""
    del train_spec, eval_spec
    start_server(estimator.config).join()


def run_trainer(estimator, train_spec, eval_spec) -> None:
    """Trains as the chief or a worker of the cluster."""
    del eval_spec
    server = start_server(estimator.config)  # Before waiting: peers wait for it.
    train_on_server(estimator, train_spec, server)


def train_on_server(estimator, train_spec, server) -> None:
    """Trains `train_spec` between-graph as this task, on its started `server`.

    Args:
      estimator: an `emg.estimator.Estimator` whose config names a chief,
        master or worker task of a cluster.
      train_spec: what to train (`input_fn`, `max_steps`, hooks, listeners).
      server: this task's server from `start_server` (None: a cluster of one
        node, which trains in process).
    """
    config = estimator.config
    if server is not None:
        ps_tasks = _waits.tasks_of(config.cluster_spec, (_cluster.PS,))
        _waits.wait_for_servers(ps_tasks, config.session_creation_timeout_secs)
    if config.task_type == _cluster.WORKER and not config.is_chief:
        wait_for_chief(config, estimator.model_dir)
    try:
        _train.train(
            estimator,
            _estimator.model_of(estimator),
            train_spec.input_fn,
            hooks=list(train_spec.hooks),
            max_steps=train_spec.max_steps,
            saving_listeners=list(train_spec.saving_listeners),
            placement=placement(config, server),
        )
    except tf.errors.DeadlineExceededError as error:
        raise step_timed_out(config) from error
    finally:
        _waits.stop_watching()


def placement(config, server) -> _train.Placement:
    """Where this task's training session runs: its server, variables on ps."""
    if server is None:  # A cluster of one node trains in process.
        return _train.Placement(in_cluster=True)
    return _train.Placement(
        master=server.target,
        is_chief=config.is_chief,
        in_cluster=True,
        device_fn=config.device_fn or replica_device_setter(config),
        hooks_fn=lambda: sync_hooks(config.is_chief, config),
        stop_grace_period_secs=_STOP_GRACE_SECS,
        session_config=session_config(config),
    )


def session_config(config) -> tf.compat.v1.ConfigProto | None:
    """The RunConfig's session config, with tf.estimator's device filters.

    A `session_config` passed to RunConfig replaces the one tf.estimator
    builds for a cluster task; without device filters each worker's session
    would wait for every other worker. They are added unless it has some.
    """
    if config.session_config is not None and config.session_config.device_filters:
        return None
    default = config.session_config or _run_config.get_default_session_config()
    return _cluster.distributed_session_config(
        config.task_type, config.task_id, default
    )


def replica_device_setter(config):
    """tf.estimator's device function: variables on `ps`, compute on this task."""
    if not config.num_ps_replicas:
        return None
    return tf.compat.v1.train.replica_device_setter(
        ps_tasks=config.num_ps_replicas,
        worker_device=f"/job:{config.task_type}/task:{config.task_id}",
        merge_devices=True,
        cluster=config.cluster_spec,
    )


def wait_for_chief(config, model_dir: str) -> None:
    """tf.estimator's worker start delay, ended early by the chief's checkpoint.

    Worker `i` waits `(i + 1) * 5` seconds (at most
    `experimental_max_worker_delay_secs`, default 60), or until the chief
    writes a checkpoint after this process started (it has then initialised
    or restored the variables), whichever comes first.
    """
    max_delay = _MAX_DELAY_SECS
    if config.experimental_max_worker_delay_secs is not None:
        max_delay = int(config.experimental_max_worker_delay_secs)
    delay = min(max_delay, (config.task_id + 1) * _DELAY_SECS_PER_WORKER)
    if delay <= 0:
        return
    tf.get_logger().info("Waiting %d secs before starting training.", delay)
    deadline = time.monotonic() + delay
    while time.monotonic() < deadline:
        if _checkpointed_since(model_dir, _STARTED):
            return
        time.sleep(_POLL_SECS)


def _checkpointed_since(model_dir: str, since: float) -> bool:
    """Whether `model_dir`'s checkpoint list was written after `since`."""
    path = os.path.join(model_dir, "checkpoint")
    if not tf.io.gfile.exists(path):
        return False
    return tf.io.gfile.stat(path).mtime_nsec / 1e9 >= since
