"""Global-batch checks: the per-replica batch of a `tf.distribute` strategy."""

from __future__ import annotations

import tensorflow as tf

from estimator_multigpu._sharding import per_replica_batch_size

__all__ = ["check_global_batch_size", "per_replica_batch_size"]


def check_global_batch_size(
    strategy: tf.distribute.Strategy, global_batch_size: int
) -> int:
    """Returns the per-replica batch of `strategy` for a global batch.

    Args:
      strategy: any `tf.distribute.Strategy`.
      global_batch_size: examples per step over all replicas.

    Raises:
      TypeError: if `strategy` is not a `tf.distribute.Strategy`.
      ValueError: if the global batch does not divide by the replica count.
    """
    if not isinstance(
        strategy, (tf.distribute.Strategy, tf.compat.v1.distribute.Strategy)
    ):
        raise TypeError(
            "`strategy` must be a tf.distribute.Strategy, e.g. "
            f"tf.distribute.MirroredStrategy(); received {strategy!r}."
        )
    return per_replica_batch_size(global_batch_size, strategy.num_replicas_in_sync)
