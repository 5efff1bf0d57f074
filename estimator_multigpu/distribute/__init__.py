"""The `tf.distribute` path: per-replica dataset_fns, InputOptions, batch checks."""

from estimator_multigpu.distribute.batch_size import (
    check_global_batch_size,
    per_replica_batch_size,
)
from estimator_multigpu.distribute.dataset_fn import (
    distribute_dataset_fn,
    per_replica_dataset_fn,
)
from estimator_multigpu.distribute.options import check_input_options, input_options
from estimator_multigpu.distribute.replica_context import ReplicaInputContext

__all__ = [
    "ReplicaInputContext",
    "check_global_batch_size",
    "check_input_options",
    "distribute_dataset_fn",
    "input_options",
    "per_replica_batch_size",
    "per_replica_dataset_fn",
]
