"""`ExamplesPerSecondHook`: TPUEstimator's global_step/sec and examples/sec hook."""

from __future__ import annotations

import tensorflow as tf

from estimator_multigpu import _tf_internals


class ExamplesPerSecondHook(_tf_internals.StepCounterHook):
    """Logs and records `global_step/sec` and `examples/sec`, as TPUEstimator does.

    TPUEstimator runs it instead of the Estimator's step counter, with the
    global training batch size (also with `use_tpu=False`).

    Args:
      batch_size: examples per step (None: `global_step/sec` only).
      every_n_steps: report every this many steps (or None).
      every_n_secs: report every this many seconds (or None).
      output_dir: where the summaries go; None: logged only.
    """

    def __init__(
        self,
        batch_size: int | None,
        every_n_steps: int | None = 100,
        every_n_secs: int | None = None,
        output_dir: str | None = None,
    ):
        super().__init__(
            every_n_steps=every_n_steps,
            every_n_secs=every_n_secs,
            output_dir=output_dir,
        )
        self._batch_size = batch_size

    def report(self, elapsed_steps, elapsed_time, global_step):
        if self._batch_size is None:
            return
        examples_per_sec = self._batch_size * elapsed_steps / elapsed_time
        tf.get_logger().info("examples/sec: %g", examples_per_sec)
        if self.summary_writer is not None:
            value = tf.compat.v1.Summary.Value(
                tag="examples/sec", simple_value=examples_per_sec
            )
            summary = tf.compat.v1.Summary(value=[value])
            self.summary_writer.add_summary(summary, global_step)
