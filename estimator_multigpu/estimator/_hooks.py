"""Session hooks: step rate with examples/sec (opt-in), and the hooks users import."""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from estimator_multigpu import _tf_internals, per_device


def batch_size_of(features: Any) -> int | tf.Tensor | None:
    """Examples in one step: a static int when known, else a scalar tensor.

    Args:
      features: a tensor, a nest of tensors `[batch_size, ...]`, or
        `PerDevice` shards (whose counts are summed).
    """
    if per_device.is_per_device(features):
        counts = features.counts
        if all(isinstance(c, int) for c in counts):
            return sum(counts)
        return tf.add_n([tf.cast(c, tf.int64) for c in counts])
    tensors = [t for t in _leaves(features) if isinstance(t, tf.Tensor)]
    if not tensors or tensors[0].shape.rank in (None, 0):
        return None
    static = tf.compat.dimension_value(tensors[0].shape[0])
    if static is not None:
        return int(static)
    return tf.shape(tensors[0], out_type=tf.int64)[0]


def _leaves(features: Any) -> list:
    """The leaves of a nest, in insertion order (dict keys may mix types)."""
    if isinstance(features, dict):
        return [leaf for value in features.values() for leaf in _leaves(value)]
    if isinstance(features, (list, tuple)):
        return [leaf for value in features for leaf in _leaves(value)]
    return [features]


class ExampleCounterHook(_tf_internals.StepCounterHook):
    """`tf.train.StepCounterHook` that also reports examples/sec.

    Writes `global_step/sec` (as tf.estimator does) and `examples/sec` to the
    summary directory and logs both. A static batch size costs nothing per
    step; a dynamic one adds a scalar fetch per step.
    """

    def __init__(self, every_n_steps: int, output_dir: str, batch_size=None):
        super().__init__(every_n_steps=every_n_steps, output_dir=output_dir)
        self._batch_size = batch_size
        self._examples = 0
        self._steps = 0

    def before_run(self, run_context):
        if isinstance(self._batch_size, tf.Tensor):
            return tf.compat.v1.train.SessionRunArgs(
                [self.global_step_tensor, self._batch_size]
            )
        return super().before_run(run_context)

    def after_run(self, run_context, run_values):
        results = run_values.results
        self._steps += 1
        if isinstance(self._batch_size, tf.Tensor):
            self._examples += int(results[1])
            run_values = run_values._replace(results=results[0])
        elif self._batch_size is not None:
            self._examples += self._batch_size
        super().after_run(run_context, run_values)

    def report(self, elapsed_steps, elapsed_time, global_step):
        if self._batch_size is None:
            return
        mean_batch = self._examples / max(self._steps, 1)
        examples_per_sec = mean_batch * elapsed_steps / elapsed_time
        self._examples = self._steps = 0
        tf.get_logger().info("examples/sec: %g", examples_per_sec)
        if self.summary_writer is not None:
            value = tf.compat.v1.Summary.Value(
                tag="examples/sec", simple_value=examples_per_sec
            )
            summary = tf.compat.v1.Summary(value=[value])
            self.summary_writer.add_summary(summary, global_step)
