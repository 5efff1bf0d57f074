"""The `tf.distribute` path: per-replica dataset_fns, InputOptions, batch checks, multi-worker."""

from estimator_multigpu.distribute._batch_size import (
    check_global_batch_size,
    per_replica_batch_size,
)
from estimator_multigpu.distribute._dataset_fn import (
    distribute_dataset_fn,
    per_replica_dataset_fn,
)
from estimator_multigpu.distribute._multi_worker import (
    check_multi_worker_tf_config,
    multi_worker_strategy,
    with_auto_shard_policy,
)
from estimator_multigpu.distribute._options import check_input_options, input_options
from estimator_multigpu.distribute._replica_context import ReplicaInputContext

__all__ = [
    "ReplicaInputContext",
    "check_global_batch_size",
    "check_input_options",
    "check_multi_worker_tf_config",
    "distribute_dataset_fn",
    "input_options",
    "multi_worker_strategy",
    "per_replica_batch_size",
    "per_replica_dataset_fn",
    "with_auto_shard_policy",
]


def __getattr__(name):
    """`emg.distribute.dali` loads on first use: only it imports NVIDIA DALI."""
    if name == "dali":
        import importlib

        return importlib.import_module("estimator_multigpu.distribute.dali")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
