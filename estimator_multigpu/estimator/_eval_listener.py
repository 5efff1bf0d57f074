"""Evaluate-and-export after checkpoint saves, for local `train_and_evaluate`."""

from __future__ import annotations

import os

import tensorflow as tf

_GLOBAL_STEP = tf.compat.v1.GraphKeys.GLOBAL_STEP


class Evaluator:
    """Evaluates the latest checkpoint and runs the exporters."""

    def __init__(self, estimator, eval_spec, max_training_steps):
        self._estimator = estimator
        self._spec = eval_spec
        self._max_training_steps = max_training_steps
        self._previous_checkpoint = None

    def evaluate_and_export(self):
        """Returns `(metrics or None, export results)`."""
        checkpoint = self._estimator.latest_checkpoint()
        if not checkpoint or checkpoint == self._previous_checkpoint:
            tf.get_logger().warning("No new checkpoint ready for evaluation; skipping.")
            return None, []
        metrics = self._estimator.evaluate(
            self._spec.input_fn,
            steps=self._spec.steps,
            hooks=self._spec.hooks,
            checkpoint_path=checkpoint,
            name=self._spec.name,
        )
        final = bool(self._max_training_steps) and (
            metrics[_GLOBAL_STEP] >= self._max_training_steps
        )
        self._previous_checkpoint = checkpoint
        return metrics, self._export(metrics, checkpoint, final)

    def _export(self, metrics, checkpoint, is_the_final_export):
        base = os.path.join(self._estimator.model_dir, "export")
        return [
            exporter.export(
                estimator=self._estimator,
                export_path=os.path.join(base, exporter.name),
                checkpoint_path=checkpoint,
                eval_result=metrics,
                is_the_final_export=is_the_final_export,
            )
            for exporter in self._spec.exporters
        ]


class EvaluateAfterSave(tf.compat.v1.train.CheckpointSaverListener):
    """Evaluates (at most every `throttle_secs`) after each checkpoint save."""

    def __init__(self, evaluator: Evaluator, throttle_secs):
        self._evaluator = evaluator
        self._throttle_secs = throttle_secs
        self.eval_result, self.export_results = None, None

    def begin(self):
        self._timer = tf.compat.v1.train.SecondOrStepTimer(
            every_secs=self._throttle_secs
        )
        self._is_first_run = True

    def after_save(self, session, global_step_value):
        del session
        if self._is_first_run:  # The checkpoint written as training starts.
            self._is_first_run = False
            return
        if self._timer.should_trigger_for_step(global_step_value):
            self._evaluate(global_step_value)
        else:
            tf.get_logger().info(
                "Skip the current checkpoint eval due to throttle secs (%s secs).",
                self._throttle_secs,
            )

    def end(self, session, global_step_value):
        del session
        if global_step_value != self._timer.last_triggered_step():
            self._evaluate(global_step_value)

    def _evaluate(self, global_step_value):
        self._timer.update_last_triggered_step(global_step_value)
        self.eval_result, self.export_results = self._evaluator.evaluate_and_export()
