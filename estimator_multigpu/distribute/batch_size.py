"""Global-batch checks: the per-replica batch of a `tf.distribute` strategy."""

from __future__ import annotations

import tensorflow as tf


def _check_positive_int(value, argument: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(
            f"`{argument}` must be an int; received {value!r} of type "
            f"{type(value).__name__}."
        )
    if value < 1:
        raise ValueError(f"`{argument}` must be >= 1; received {value}.")


def per_replica_batch_size(global_batch_size: int, num_replicas_in_sync: int) -> int:
    """Splits a global batch evenly over the replicas of a strategy.

    Unlike `tf.distribute.InputContext.get_per_replica_batch_size`, which
    fails inside the input pipeline, this fails where the batch size is chosen,
    with the nearest valid sizes in the message.

    Args:
      global_batch_size: examples per step over all replicas.
      num_replicas_in_sync: the strategy's `num_replicas_in_sync`.

    Returns:
      `global_batch_size // num_replicas_in_sync`.

    Raises:
      TypeError: if either argument is not an int.
      ValueError: if either is < 1, or the global batch does not divide.
    """
    _check_positive_int(global_batch_size, "global_batch_size")
    _check_positive_int(num_replicas_in_sync, "num_replicas_in_sync")
    quotient, remainder = divmod(global_batch_size, num_replicas_in_sync)
    if remainder:
        lower = quotient * num_replicas_in_sync
        upper = lower + num_replicas_in_sync
        nearest = f"{lower} or {upper}" if lower else f"{upper}"
        raise ValueError(
            f"`global_batch_size` ({global_batch_size}) must be divisible by "
            f"`num_replicas_in_sync` ({num_replicas_in_sync}): every replica "
            f"takes the same number of examples per step. Pass {nearest}, or "
            "run on a number of replicas that divides it."
        )
    return quotient


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
