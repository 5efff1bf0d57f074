"""MultiWorkerMirroredStrategy from a checked `TF_CONFIG`, and explicit auto-sharding."""

from __future__ import annotations

import os

import tensorflow as tf

from estimator_multigpu import cluster as cluster_lib

_COMMUNICATION = {
    "auto": tf.distribute.experimental.CommunicationImplementation.AUTO,
    "ring": tf.distribute.experimental.CommunicationImplementation.RING,
    "nccl": tf.distribute.experimental.CommunicationImplementation.NCCL,
}
_POLICIES = {
    "off": tf.data.experimental.AutoShardPolicy.OFF,
    "file": tf.data.experimental.AutoShardPolicy.FILE,
    "data": tf.data.experimental.AutoShardPolicy.DATA,
    "hint": tf.data.experimental.AutoShardPolicy.HINT,
}


def check_multi_worker_tf_config(tf_config: str | None = None) -> cluster_lib.Cluster:
    """Parses `TF_CONFIG` (default: the environment's) for multi-worker mirroring.

    Raises:
      ValueError: TF_CONFIG unset or malformed (the field is named), or a
        cluster with `ps` tasks or an evaluator task, which all-reduce
        training does not run.
    """
    text = os.environ.get("TF_CONFIG") if tf_config is None else tf_config
    if not text:
        raise ValueError(
            "TF_CONFIG is not set: MultiWorkerMirroredStrategy needs the "
            "cluster; start the workers with `python -m estimator_multigpu.launch "
            "--workers=N -- ...` or set TF_CONFIG on each machine."
        )
    parsed = cluster_lib.parse_tf_config(text)
    if parsed.num_ps_replicas:
        raise ValueError(
            f"TF_CONFIG field `cluster.ps` lists {parsed.num_ps_replicas} task(s); "
            "MultiWorkerMirroredStrategy keeps variables on every worker. Drop "
            "the ps job, or use a ParameterServerStrategy."
        )
    if parsed.task_type not in ("chief", "worker"):
        raise ValueError(
            f"TF_CONFIG field `task.type` is {parsed.task_type!r}; only chief "
            "and worker tasks train under MultiWorkerMirroredStrategy."
        )
    return parsed


def multi_worker_strategy(
    communication: str = "auto",
) -> tf.distribute.MultiWorkerMirroredStrategy:
    """A `MultiWorkerMirroredStrategy` over the `TF_CONFIG` cluster, checked first.

    Args:
      communication: collective implementation: `'auto'`, `'ring'` (gRPC;
        works on CPUs) or `'nccl'` (GPUs).

    Raises:
      ValueError: a bad `communication` or `TF_CONFIG` (see
        `check_multi_worker_tf_config`).
    """
    if communication not in _COMMUNICATION:
        raise ValueError(
            f"`communication` must be one of {sorted(_COMMUNICATION)}, got "
            f"{communication!r}; 'ring' works on CPUs."
        )
    check_multi_worker_tf_config()
    options = tf.distribute.experimental.CommunicationOptions(
        implementation=_COMMUNICATION[communication]
    )
    return tf.distribute.MultiWorkerMirroredStrategy(communication_options=options)


def with_auto_shard_policy(dataset: tf.data.Dataset, policy: str) -> tf.data.Dataset:
    """`dataset` with an explicit auto-shard policy for `experimental_distribute_dataset`.

    TensorFlow's default, AUTO, shards by file when it finds a file reader
    and silently falls back to DATA (every worker reads every file and keeps
    1/N of the elements) when it does not; here the policy is always chosen.

    Args:
      dataset: the whole dataset, before TensorFlow distributes it.
      policy: `'file'` (each worker reads its own files; needs at least as
        many files as workers), `'data'` (every worker reads all, keeps its
        share), `'off'` (the dataset shards itself) or `'hint'`.

    Raises:
      ValueError: an unknown policy, `'auto'` included.
    """
    if policy not in _POLICIES:
        raise ValueError(
            f"`policy` must be one of {sorted(_POLICIES)}, got {policy!r}: pick "
            "'file' for file-based input with at least one file per worker, "
            "'data' otherwise, 'off' when the dataset shards itself."
        )
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = _POLICIES[policy]
    return dataset.with_options(options)


def explicit_auto_shard(dataset: tf.data.Dataset) -> tf.data.Dataset:
    """`dataset` with policy OFF unless one was chosen: it is sharded already."""
    current = dataset.options().experimental_distribute.auto_shard_policy
    if current != tf.data.experimental.AutoShardPolicy.AUTO:
        return dataset
    return with_auto_shard_policy(dataset, "off")
