"""Reading a dataset through the tf.data service, checked before it is submitted."""

from __future__ import annotations

import tensorflow as tf

from estimator_multigpu import _dataset_graph
from estimator_multigpu.data_service import (
    CONNECT_TIMEOUT,
    address_problem,
    check_timeout,
    wait_for_dispatcher,
)
from estimator_multigpu.inputs._data_service_splits import check_splittable

PROCESSING_MODES = ("distributed_epoch", "parallel_epochs")
# Op -> what the user wrote. The service runs the pipeline in its own worker
# processes, which have no Python interpreter holding these functions.
UNSUPPORTED_OPS = {
    "GeneratorDataset": "from_generator",
    "EagerPyFunc": "py_function",
    "PyFunc": "numpy_function",
    "PyFuncStateless": "numpy_function",
}


def with_data_service(
    dataset: tf.data.Dataset,
    service: str,
    processing_mode: str = "distributed_epoch",
    job_name: str | None = None,
    connect_timeout: float | None = CONNECT_TIMEOUT,
) -> tf.data.Dataset:
    """`dataset` produced by tf.data service workers and read from them.

    `'distributed_epoch'` splits the source among the workers (dynamic
    sharding): each element is produced once per epoch across all consumers
    that share `job_name`, at most once if a worker fails mid-epoch (the
    elements it held are lost, never repeated). `'parallel_epochs'` runs the
    whole dataset on every worker: each worker produces a full epoch.

    Under `'distributed_epoch'` each source is split on its own, so a
    pipeline that zips several datasets (pairs would mismatch), uses
    `take`/`skip`/`shard` (they count per worker) or starts from
    `Dataset.random` (no splits) is refused with the fix.

    If the dispatcher stops mid-epoch, the consumer waits for it to serve
    again at the same address (TensorFlow logs "Failed to heartbeat to
    dispatcher ... Dispatcher address: ..." every second meanwhile); a
    dispatcher restarted with the same `--work_dir` resumes the job and the
    epoch ends normally; one restarted without `--work_dir` has forgotten
    the job, and the consumer fails with `NotFoundError` ("Unknown iteration
    client id", "Iteration id ... not found"): start the dispatcher with `--work_dir` (fault-tolerant
    mode), or restart the consumers.

    Args:
      dataset: the pipeline to run on the service; it may not use
        `py_function`, `numpy_function` or `from_generator`.
      service: the dispatcher, `'grpc://host:port'` or `'host:port'`.
      processing_mode: `'distributed_epoch'` or `'parallel_epochs'`.
      job_name: consumers with the same name share one job (its epoch);
        None gives each consumer a job of its own.
      connect_timeout: seconds to wait for the dispatcher to listen at
        `service` before failing (None: wait as TensorFlow does, for ever).

    Returns:
      A dataset that reads elements from the service.

    Raises:
      TypeError: `dataset` is not a `tf.data.Dataset`.
      ValueError: a bad argument, or an op the service cannot run (named).
      ConnectionError: no dispatcher listens at `service` within
        `connect_timeout` seconds.
    """
    _check_args(dataset, service, processing_mode, job_name)
    check_timeout(connect_timeout)
    check_service_ops(dataset)
    if processing_mode == "distributed_epoch":
        check_splittable(dataset)
    wait_for_dispatcher(service, connect_timeout, "service")
    policy = tf.data.experimental.service.ShardingPolicy
    mode = policy.DYNAMIC if processing_mode == "distributed_epoch" else policy.OFF
    return dataset.apply(
        tf.data.experimental.service.distribute(
            processing_mode=mode, service=service, job_name=job_name
        )
    )


def check_service_ops(dataset: tf.data.Dataset) -> None:
    """Raises ValueError naming the first op the tf.data service cannot run."""
    nodes = _dataset_graph.graph_nodes(dataset)
    if nodes is None:
        raise ValueError(
            "`dataset` cannot be serialized for the tf.data service (a "
            "`prefetch_to_device` or other device stage?); apply "
            "`with_data_service` to the host pipeline before that stage."
        )
    for node in nodes:
        if node.op in UNSUPPORTED_OPS:
            api = UNSUPPORTED_OPS[node.op]
            raise ValueError(
                f"`dataset` uses `{api}` (op {node.op}, node {node.name!r}), "
                "which the tf.data service cannot run: its workers have no "
                "Python. Rewrite it with TensorFlow ops, or read the data "
                "from files (e.g. TFRecord) instead of a Python function."
            )


def _check_args(dataset, service, processing_mode, job_name) -> None:
    if not isinstance(dataset, tf.data.Dataset):
        raise TypeError(
            f"`dataset` must be a tf.data.Dataset, got {type(dataset).__name__}."
        )
    problem = address_problem(service)
    if problem:
        raise ValueError(
            f"`service` must be the dispatcher's address, 'grpc://host:port' "
            f"or 'host:port', got {service!r}: {problem}."
        )
    if processing_mode not in PROCESSING_MODES:
        raise ValueError(
            f"`processing_mode` must be one of {list(PROCESSING_MODES)}, got "
            f"{processing_mode!r}."
        )
    if job_name is not None and (not isinstance(job_name, str) or not job_name):
        raise ValueError(
            f"`job_name` must be a non-empty string or None, got {job_name!r}."
        )
