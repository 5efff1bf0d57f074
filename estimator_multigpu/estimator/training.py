"""`TrainSpec`, `EvalSpec` and local `train_and_evaluate`."""

from __future__ import annotations

import collections
import os

import tensorflow as tf
from absl import logging

from estimator_multigpu.estimator.train import check_hooks, check_listeners

_GLOBAL_STEP = tf.compat.v1.GraphKeys.GLOBAL_STEP


def _check_input_fn(input_fn) -> None:
    if not callable(input_fn):
        raise TypeError(f"`input_fn` must be callable, given: {input_fn!r}")


def _check_exporters(exporters) -> tuple:
    """Returns `exporters` as a tuple of uniquely named exporters."""
    if not exporters:
        return ()
    if hasattr(exporters, "export") and hasattr(exporters, "name"):
        exporters = [exporters]
    exporters = tuple(exporters)
    names = [getattr(e, "name", None) for e in exporters]
    for exporter, name in zip(exporters, names):
        if not callable(getattr(exporter, "export", None)):
            raise TypeError(
                "`exporters` must be an Exporter, an iterable of Exporter, or "
                f"`None`, found {exporter!r}."
            )
        if not name or not isinstance(name, str):
            raise ValueError(
                f"An Exporter must have a non-empty string name; all exporter "
                f"names: {names}."
            )
    if len(set(names)) != len(names):
        raise ValueError(
            f"`exporters` must have unique names. All exporter names: {names}"
        )
    return exporters


class TrainSpec(
    collections.namedtuple(
        "TrainSpec", ["input_fn", "max_steps", "hooks", "saving_listeners"]
    )
):
    """The "train" part of `train_and_evaluate`: input, duration, hooks."""

    def __new__(cls, input_fn, max_steps=None, hooks=None, saving_listeners=None):
        _check_input_fn(input_fn)
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")
        return super().__new__(
            cls,
            input_fn,
            max_steps,
            tuple(check_hooks(hooks)),
            tuple(check_listeners(saving_listeners)),
        )


class EvalSpec(
    collections.namedtuple(
        "EvalSpec",
        [
            "input_fn",
            "steps",
            "name",
            "hooks",
            "exporters",
            "start_delay_secs",
            "throttle_secs",
        ],
    )
):
    """The "eval" part of `train_and_evaluate`: input, steps, exporters, timing."""

    def __new__(
        cls,
        input_fn,
        steps=100,
        name=None,
        hooks=None,
        exporters=None,
        start_delay_secs=120,
        throttle_secs=600,
    ):
        _check_input_fn(input_fn)
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"`name` must be string, given: {name!r}")
        for field, value in (
            ("start_delay_secs", start_delay_secs),
            ("throttle_secs", throttle_secs),
        ):
            if value < 0:
                raise ValueError(f"Must specify {field} >= 0, given: {value}")
        return super().__new__(
            cls,
            input_fn,
            steps,
            name,
            tuple(check_hooks(hooks)),
            _check_exporters(exporters),
            start_delay_secs,
            throttle_secs,
        )


class _Evaluator:
    """Evaluates the latest checkpoint and runs the exporters."""

    def __init__(self, estimator, eval_spec: EvalSpec, max_training_steps):
        self._estimator = estimator
        self._spec = eval_spec
        self._max_training_steps = max_training_steps
        self._previous_checkpoint = None

    def evaluate_and_export(self):
        """Returns `(metrics or None, export results)`."""
        checkpoint = self._estimator.latest_checkpoint()
        if not checkpoint or checkpoint == self._previous_checkpoint:
            logging.warning("No new checkpoint ready for evaluation; skipping.")
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


class _EvaluateAfterSave(tf.compat.v1.train.CheckpointSaverListener):
    """Evaluates (at most every `throttle_secs`) after each checkpoint save."""

    def __init__(self, evaluator: _Evaluator, throttle_secs):
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
            logging.info(
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


def train_and_evaluate(estimator, train_spec: TrainSpec, eval_spec: EvalSpec):
    """Trains, evaluating and exporting after checkpoints (local, one process).

    Returns:
      `(metrics of the last evaluation, export results)` as tf.estimator.

    Raises:
      TypeError: for specs of the wrong type.
    """
    if not isinstance(train_spec, TrainSpec):
        raise TypeError(
            f"`train_spec` must have type `TrainSpec`. Got: {type(train_spec)}"
        )
    if not isinstance(eval_spec, EvalSpec):
        raise TypeError(
            f"`eval_spec` must have type `EvalSpec`. Got: {type(eval_spec)}"
        )
    config = estimator.config
    logging.info(
        "Start train and evaluate loop. The evaluate will happen after every "
        "checkpoint. Checkpoint frequency is determined based on RunConfig "
        "arguments: save_checkpoints_steps %s or save_checkpoints_secs %s.",
        config.save_checkpoints_steps,
        config.save_checkpoints_secs,
    )
    evaluator = _Evaluator(estimator, eval_spec, train_spec.max_steps)
    listener = _EvaluateAfterSave(evaluator, eval_spec.throttle_secs)
    estimator.train(
        input_fn=train_spec.input_fn,
        max_steps=train_spec.max_steps,
        hooks=list(train_spec.hooks),
        saving_listeners=list(train_spec.saving_listeners) + [listener],
    )
    return listener.eval_result, listener.export_results
