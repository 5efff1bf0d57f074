"""tf.compat.v1 training internals tf.estimator used: eval loop, steps, hooks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensorflow as tf

from estimator_multigpu._tf_internals._access import member, private


def evaluate_once(**kwargs: Any) -> dict:
    """`tensorflow.python.training.evaluation._evaluate_once(**kwargs)`.

    Why: the evaluation loop tf.estimator runs (restore, eval step counter,
    `final_ops` after the input ends). Public alternative: none since
    `tf.contrib.training.evaluate_once` went with TF 2.0.
    """
    evaluation = private("tensorflow.python.training.evaluation")
    return member(evaluation, "_evaluate_once")(**kwargs)


def stop_after_n_evals_hook(num_evals: int) -> tf.compat.v1.train.SessionRunHook:
    """`evaluation._StopAfterNEvalsHook(num_evals=...)`.

    Why: stops after `num_evals` runs, counted by the eval step that
    `evaluate_once` creates (tf.estimator's `steps`). Public alternative: none.
    """
    evaluation = private("tensorflow.python.training.evaluation")
    return member(evaluation, "_StopAfterNEvalsHook")(num_evals=num_evals)


def get_or_create_eval_step() -> tf.Variable:
    """`evaluation._get_or_create_eval_step()`: the graph's eval step counter.

    Why: a custom `Scaffold.local_init_op` must initialise the counter that
    `evaluate_once` increments. Public alternative: none.
    """
    evaluation = private("tensorflow.python.training.evaluation")
    return member(evaluation, "_get_or_create_eval_step")()


def get_or_create_global_step_read() -> tf.Tensor | None:
    """`training_util._get_or_create_global_step_read()`.

    Why: the cached read of the global step that TensorFlow's hooks and
    `_increment_global_step` order themselves after; tf.estimator creates it
    before the model_fn. Public alternative: none
    (`tf.compat.v1.train.get_or_create_global_step` makes the variable only).
    """
    training_util = private("tensorflow.python.training.training_util")
    return member(training_util, "_get_or_create_global_step_read")()


def add_saving_listener(saver_hook: Any, listener: Any) -> None:
    """Adds `listener` to a `CheckpointSaverHook` built without it.

    Why: the saver hook may come from the model_fn's `training_chief_hooks`;
    its listeners are fixed at construction (`_listeners`). Public
    alternative: none.
    """
    listeners = member(saver_hook, "_listeners")
    if listener not in listeners:
        listeners.append(listener)


class StepCounterHook(tf.compat.v1.train.StepCounterHook):
    """`tf.compat.v1.train.StepCounterHook` with its protected protocol named.

    Why: a subclass that adds to each step-rate report must override the
    protected `_log_and_record` and read `_global_step_tensor` and
    `_summary_writer`. Subclasses override `report` and read the properties
    instead. Public alternative: none.
    """

    @property
    def global_step_tensor(self) -> tf.Tensor:
        """The global step the hook fetches (set by `begin`)."""
        return member(self, "_global_step_tensor")

    @property
    def summary_writer(self) -> tf.compat.v1.summary.FileWriter | None:
        """The writer of `output_dir` (None without one; set by `begin`)."""
        return member(self, "_summary_writer")

    def _log_and_record(self, elapsed_steps, elapsed_time, global_step):
        super()._log_and_record(elapsed_steps, elapsed_time, global_step)
        self.report(elapsed_steps, elapsed_time, global_step)

    def report(self, elapsed_steps: int, elapsed_time: float, global_step: int):
        """Called after each `global_step/sec` report; subclasses add to it."""
        del elapsed_steps, elapsed_time, global_step


def cached_file_writer(
    logdir: str, make: Callable[[], tf.compat.v1.summary.FileWriter]
) -> tf.compat.v1.summary.FileWriter:
    """`FileWriterCache`'s writer for `logdir`, made by `make()` if none is cached.

    Why: `FileWriterCache.get` cannot name the event file; filling its
    `_cache` (under its `_lock`) is the only way to give the hooks' writer a
    unique name. Public alternative: none.
    """
    cache = tf.compat.v1.summary.FileWriterCache
    lock = member(cache, "_lock")
    with lock:
        writers = member(cache, "_cache")
        if logdir not in writers:
            writers[logdir] = make()
        return writers[logdir]
