"""Early-stopping hooks on evaluation metrics, as `tf.estimator.experimental`'s."""

from __future__ import annotations

import collections
import operator
import os
from collections.abc import Callable

import tensorflow as tf

_EVENT_FILES = "events.out.tfevents.*"


def make_early_stopping_hook(
    estimator,
    should_stop_fn: Callable[[], bool],
    run_every_secs=60,
    run_every_steps=None,
) -> tf.compat.v1.train.SessionRunHook:
    """A hook that stops training once `should_stop_fn()` returns True.

    Args:
      estimator: the `Estimator` being trained.
      should_stop_fn: called without arguments every `run_every_secs`
        seconds or `run_every_steps` steps.
      run_every_secs: check every this many seconds (or None), or
      run_every_steps: every this many steps; set exactly one of the two.

    Returns:
      A `SessionRunHook` for `Estimator.train(hooks=...)`; on a worker that
      is not the chief, one that stops when the chief's hook has stopped.

    Raises:
      TypeError: for an `estimator` that is not an Estimator.
      ValueError: if both `run_every_secs` and `run_every_steps` are set.
    """
    _check_estimator(estimator)
    if run_every_secs is not None and run_every_steps is not None:
        raise ValueError(
            "Only one of `run_every_secs` and `run_every_steps` must be set."
        )
    if estimator.config.is_chief:
        return _StopOnPredicateHook(should_stop_fn, run_every_secs, run_every_steps)
    return _CheckForStoppingHook()


def _check_estimator(estimator) -> None:
    if not (hasattr(estimator, "eval_dir") and hasattr(estimator, "config")):
        raise TypeError(
            "`estimator` must have type `tf.estimator.Estimator`. Got: "
            f"{type(estimator)} (pass an emg.estimator.Estimator)."
        )


def stop_if_higher_hook(
    estimator,
    metric_name: str,
    threshold,
    eval_dir=None,
    min_steps=0,
    run_every_secs=60,
    run_every_steps=None,
):
    """Stops once evaluation shows `metric_name` above `threshold`.

    Args:
      estimator: the `Estimator` being trained.
      metric_name: a key of the evaluation results, e.g. `'loss'`.
      threshold: the value `metric_name` must go above to stop training.
      eval_dir: the folder of the evaluation event files; default
        `estimator.eval_dir()`.
      min_steps: never stop before this global step.
      run_every_secs: check every this many seconds (or None), or
      run_every_steps: every this many steps; set exactly one of the two
        (as in `make_early_stopping_hook`).

    Returns:
      A `SessionRunHook` for `Estimator.train(hooks=...)`.

    Raises:
      TypeError: for an `estimator` that is not an Estimator.
      ValueError: if both `run_every_secs` and `run_every_steps` are set.
    """
    should_stop = _threshold_crossed_fn(
        estimator, metric_name, threshold, True, eval_dir, min_steps
    )
    return make_early_stopping_hook(
        estimator, should_stop, run_every_secs, run_every_steps
    )


def stop_if_lower_hook(
    estimator,
    metric_name: str,
    threshold,
    eval_dir=None,
    min_steps=0,
    run_every_secs=60,
    run_every_steps=None,
):
    """Stops once evaluation shows `metric_name` below `threshold`.

    Args:
      threshold: the value `metric_name` must go below to stop training.
      (the other arguments as in `stop_if_higher_hook`.)

    Returns:
      A `SessionRunHook` for `Estimator.train(hooks=...)`.

    Raises:
      TypeError, ValueError: as `stop_if_higher_hook`.
    """
    should_stop = _threshold_crossed_fn(
        estimator, metric_name, threshold, False, eval_dir, min_steps
    )
    return make_early_stopping_hook(
        estimator, should_stop, run_every_secs, run_every_steps
    )


def stop_if_no_increase_hook(
    estimator,
    metric_name: str,
    max_steps_without_increase: int,
    eval_dir=None,
    min_steps=0,
    run_every_secs=60,
    run_every_steps=None,
):
    """Stops when `metric_name` has not increased for that many training steps.

    Args:
      metric_name: a key of the evaluation results, e.g. `'accuracy'`.
      max_steps_without_increase: training steps (between evaluations) after
        the best value beyond which training stops.
      (the other arguments as in `stop_if_higher_hook`.)

    Returns:
      A `SessionRunHook` for `Estimator.train(hooks=...)`.

    Raises:
      TypeError, ValueError: as `stop_if_higher_hook`.
    """
    should_stop = _no_improvement_fn(
        estimator, metric_name, max_steps_without_increase, True, eval_dir, min_steps
    )
    return make_early_stopping_hook(
        estimator, should_stop, run_every_secs, run_every_steps
    )


def stop_if_no_decrease_hook(
    estimator,
    metric_name: str,
    max_steps_without_decrease: int,
    eval_dir=None,
    min_steps=0,
    run_every_secs=60,
    run_every_steps=None,
):
    """Stops when `metric_name` has not decreased for that many training steps.

    Args:
      metric_name: a key of the evaluation results, e.g. `'loss'`.
      max_steps_without_decrease: training steps (between evaluations) after
        the best value beyond which training stops.
      (the other arguments as in `stop_if_higher_hook`.)

    Returns:
      A `SessionRunHook` for `Estimator.train(hooks=...)`.

    Raises:
      TypeError, ValueError: as `stop_if_higher_hook`.
    """
    should_stop = _no_improvement_fn(
        estimator, metric_name, max_steps_without_decrease, False, eval_dir, min_steps
    )
    return make_early_stopping_hook(
        estimator, should_stop, run_every_secs, run_every_steps
    )


def read_eval_metrics(eval_dir: str) -> collections.OrderedDict:
    """`{global_step: {metric name: value}}` from the event files, by step."""
    by_step = collections.defaultdict(dict)
    for event in _events(eval_dir):
        if not event.HasField("summary"):
            continue
        metrics = {
            value.tag: value.simple_value
            for value in event.summary.value
            if value.HasField("simple_value")
        }
        if metrics:
            by_step[event.step].update(metrics)
    return collections.OrderedDict(sorted(by_step.items()))


def _events(eval_dir: str):
    if not tf.io.gfile.exists(eval_dir):
        return
    for path in tf.io.gfile.glob(os.path.join(eval_dir, _EVENT_FILES)):
        try:
            yield from tf.compat.v1.train.summary_iterator(path)
        except tf.errors.DataLossError as error:
            tf.get_logger().warning(
                "Skipping rest of the file due to encountering data corruption "
                "error; file path: %s; original error raised by "
                "`tf.train.summary_iterator`: %s",
                path,
                error,
            )


def _threshold_crossed_fn(
    estimator, metric_name, threshold, higher_is_better, eval_dir, min_steps
):
    eval_dir = eval_dir if eval_dir is not None else estimator.eval_dir()
    better = operator.gt if higher_is_better else operator.lt
    relation = "greater than" if higher_is_better else "less than"

    def should_stop() -> bool:
        for step, metrics in read_eval_metrics(eval_dir).items():
            if step < min_steps:
                continue
            value = metrics[metric_name]
            if better(value, threshold):
                tf.get_logger().info(
                    'At step %s, metric "%s" has value %s which is %s the '
                    "configured threshold (%s) for early stopping.",
                    step,
                    metric_name,
                    value,
                    relation,
                    threshold,
                )
                return True
        return False

    return should_stop


def _no_improvement_fn(
    estimator, metric_name, max_steps, higher_is_better, eval_dir, min_steps
):
    eval_dir = eval_dir if eval_dir is not None else estimator.eval_dir()
    better = operator.gt if higher_is_better else operator.lt
    change = "increase" if higher_is_better else "decrease"

    def should_stop() -> bool:
        best, best_step = None, None
        for step, metrics in read_eval_metrics(eval_dir).items():
            if step < min_steps:
                continue
            value = metrics[metric_name]
            if best is None or better(value, best):
                best, best_step = value, step
            if step - best_step >= max_steps:
                tf.get_logger().info(
                    'No %s in metric "%s" for %s steps, which is greater than or '
                    "equal to max steps (%s) configured for early stopping.",
                    change,
                    metric_name,
                    step - best_step,
                    max_steps,
                )
                return True
        return False

    return should_stop


def _get_or_create_stop_var() -> tf.Variable:
    """`signal_early_stopping/STOP`, the flag the chief sets (as tf.estimator)."""
    with tf.compat.v1.variable_scope(
        "signal_early_stopping", values=[], reuse=tf.compat.v1.AUTO_REUSE
    ):
        return tf.compat.v1.get_variable(
            name="STOP",
            shape=[],
            dtype=tf.bool,
            initializer=tf.compat.v1.initializers.constant(False),
            collections=[tf.compat.v1.GraphKeys.GLOBAL_VARIABLES],
            trainable=False,
        )


class _StopOnPredicateHook(tf.compat.v1.train.SessionRunHook):
    """Requests a stop (and sets the stop flag) when `should_stop_fn()` is True."""

    def __init__(self, should_stop_fn, run_every_secs=60, run_every_steps=None):
        if not callable(should_stop_fn):
            raise TypeError("`should_stop_fn` must be callable.")
        self._should_stop_fn = should_stop_fn
        self._timer = tf.compat.v1.train.SecondOrStepTimer(
            every_secs=run_every_secs, every_steps=run_every_steps
        )
        self._global_step_tensor = None
        self._stop_op = None

    def begin(self):
        self._global_step_tensor = tf.compat.v1.train.get_global_step()
        self._stop_op = tf.compat.v1.assign(_get_or_create_stop_var(), True)

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        global_step = run_values.results
        if not self._timer.should_trigger_for_step(global_step):
            return
        self._timer.update_last_triggered_step(global_step)
        if self._should_stop_fn():
            tf.get_logger().info(
                "Requesting early stopping at global step %d", global_step
            )
            run_context.session.run(self._stop_op)
            run_context.request_stop()


class _CheckForStoppingHook(tf.compat.v1.train.SessionRunHook):
    """Stops when the chief has set the stop flag."""

    def begin(self):
        self._stop_var = _get_or_create_stop_var()

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self._stop_var)

    def after_run(self, run_context, run_values):
        if run_values.results:
            tf.get_logger().info("Early stopping requested, suspending run.")
            run_context.request_stop()
