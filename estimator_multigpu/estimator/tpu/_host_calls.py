"""The towers' `host_call`s joined into one call over the global batch."""

from __future__ import annotations

from collections.abc import Sequence

import tensorflow as tf

from estimator_multigpu.estimator.tpu import _spec


def _concat(tensors: Sequence[tf.Tensor], where: str) -> tf.Tensor:
    tensors = [tf.convert_to_tensor(t) for t in tensors]
    if tensors[0].shape.rank == 0:
        raise ValueError(
            f"{where} is a scalar ({tensors[0].name}); with several devices the "
            "host_call's tensors are concatenated along their first (batch) "
            "dimension, as TPUEstimator does over TPU cores, so they must have "
            "rank >= 1. Pass e.g. tf.reshape(loss, [1])."
        )
    return tf.concat(tensors, axis=0)


def joined(host_calls: Sequence) -> tuple:
    """One `(fn, tensors)` whose tensors concatenate the towers' ones.

    Args:
      host_calls: `host_calls[t]` = tower t's `(fn, tensors)`, tensors a list
        or a dict of tensors `[n, ...]`.

    Returns:
      `(tower 0's fn, tensors)`: each tensor `[sum of n, ...]`, towers in order.

    Raises:
      ValueError: for a scalar tensor when there are several towers.
    """
    fn, first = host_calls[0]
    if len(host_calls) == 1:
        return fn, first
    if isinstance(first, dict):
        tensors = {
            key: _concat([c[1][key] for c in host_calls], f"host_call[1][{key!r}]")
            for key in first
        }
    else:
        tensors = [
            _concat([c[1][i] for c in host_calls], f"host_call[1][{i}]")
            for i in range(len(first))
        ]
    return fn, tensors


def attach(spec, host_calls: Sequence, host: str | None):
    """`spec` with the joined host_call's hook added to every mode's hooks."""
    if not host_calls:
        return spec
    with tf.device(host):
        result = _spec.call_host_fn("host_call", joined(host_calls))
    hooks = (_spec.HostCallHook(result),)
    return spec._replace(
        training_hooks=tuple(spec.training_hooks) + hooks,
        evaluation_hooks=tuple(spec.evaluation_hooks) + hooks,
        prediction_hooks=tuple(spec.prediction_hooks) + hooks,
    )
