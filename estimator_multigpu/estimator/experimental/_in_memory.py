"""`InMemoryEvaluatorHook` and the stop-at-checkpoint-step hook, as tf.estimator's."""

from __future__ import annotations

import time

import tensorflow as tf

from estimator_multigpu import _tf_internals
from estimator_multigpu.estimator import _checkpoints, _estimator, _evaluate
from estimator_multigpu.estimator._train import check_hooks

_GLOBALS = tf.compat.v1.GraphKeys.GLOBAL_VARIABLES


class InMemoryEvaluatorHook(tf.compat.v1.train.SessionRunHook):
    """Evaluates every `every_n_iter` training steps with the variables in memory.

    No checkpoint is read: the training session's variable values are copied
    into an evaluation graph built once. Results go to `model_dir/eval` (or
    `eval_<name>`) like `Estimator.evaluate`. Single process only; no custom
    savers, init_fns or saveables other than variables.
    """

    def __init__(
        self, estimator, input_fn, steps=None, hooks=None, name=None, every_n_iter=100
    ):
        """Builds the hook; pass it to `Estimator.train(hooks=[...])`.

        Args:
          estimator: the `Estimator` being trained.
          input_fn: the evaluation `input_fn`.
          steps: batches per evaluation; None: until the input ends.
          hooks: `SessionRunHook`s for the evaluation.
          name: the evaluation's name (results in `eval_<name>`).
          every_n_iter: evaluate every this many training steps (and once
            at the end).

        Raises:
          ValueError: for `every_n_iter` <= 0 or a multi-worker config.
        """
        if every_n_iter is None or every_n_iter <= 0:
            raise ValueError(f"invalid every_n_iter={every_n_iter}.")
        config = estimator.config
        if config.num_ps_replicas > 0 or config.num_worker_replicas > 1:
            raise ValueError(
                "InMemoryEvaluator supports only single machine (aka Local) setting."
            )
        self._estimator = estimator
        self._input_fn = input_fn
        self._name = name
        self._hooks = check_hooks(hooks) + _evaluate.steps_hooks(steps)
        self._timer = tf.compat.v1.train.SecondOrStepTimer(every_steps=every_n_iter)

    def begin(self):
        self._timer.reset()
        self._iter_count = 0
        self._graph = tf.Graph()
        with self._graph.as_default():
            built = _evaluate.build_eval_graph(
                self._estimator,
                _estimator.model_of(self._estimator),
                self._input_fn,
                self._hooks,
                None,
            )
            self._scaffold, self._update_op, self._eval_dict, self._all_hooks = built
            _check_scaffold(self._scaffold)
            self._eval_vars = {v.name: v for v in tf.compat.v1.get_collection(_GLOBALS)}
            self._placeholders = {
                name: tf.compat.v1.placeholder(v.dtype)
                for name, v in self._eval_vars.items()
            }

    def after_create_session(self, session, coord):
        if tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.SAVEABLE_OBJECTS):
            raise ValueError(
                "InMemoryEvaluator does not support saveables other than global "
                "variables."
            )
        train_vars = {v.name: v for v in tf.compat.v1.get_collection(_GLOBALS)}
        shared = sorted(set(self._placeholders) & set(train_vars))
        self._train_vars = {name: train_vars[name] for name in shared}
        with self._graph.as_default():
            self._feed_op = tf.group(
                [
                    tf.compat.v1.assign(self._eval_vars[n], self._placeholders[n])
                    for n in shared
                ]
            )
        self._evaluate(session)

    def _evaluate(self, train_session) -> None:
        values = train_session.run(self._train_vars)
        feed = {self._placeholders[name]: value for name, value in values.items()}

        def feed_variables(scaffold, session):
            del scaffold
            session.run(self._feed_op, feed_dict=feed)

        scaffold = tf.compat.v1.train.Scaffold(
            init_fn=feed_variables, copy_from_scaffold=self._scaffold
        )
        with self._graph.as_default():
            results = _tf_internals.evaluate_once(
                checkpoint_path=None,
                scaffold=scaffold,
                eval_ops=self._update_op,
                final_ops=self._eval_dict,
                hooks=self._all_hooks,
                config=self._estimator.config.session_config,
            )
            _evaluate.write_summaries(self._estimator, self._name, results, None)
        self._timer.update_last_triggered_step(self._iter_count)

    def after_run(self, run_context, run_values):
        self._iter_count += 1
        if self._timer.should_trigger_for_step(self._iter_count):
            self._evaluate(run_context.session)

    def end(self, session):
        self._evaluate(session)


def _check_scaffold(scaffold) -> None:
    if scaffold is None:
        return
    if scaffold.saver is not None:
        raise ValueError("InMemoryEvaluator does not support custom saver")
    if scaffold.init_fn is not None:
        raise ValueError("InMemoryEvaluator does not support custom init_fn")


class _StopAtCheckpointStepHook(tf.compat.v1.train.SessionRunHook):
    """Stops once the latest checkpoint in `model_dir` reaches `last_step`."""

    def __init__(self, model_dir, last_step, wait_after_file_check_secs=30):
        if last_step is None:
            raise ValueError("last_step must be specified.")
        if model_dir is None:
            raise ValueError("model_dir must be specified.")
        self._model_dir = model_dir
        self._last_step = last_step
        self._wait_secs = wait_after_file_check_secs

    def begin(self):
        self._global_step_tensor = _tf_internals.get_or_create_global_step_read()
        if self._global_step_tensor is None:
            raise RuntimeError(
                "Global step should be created to use StopAtCheckpointStepHook."
            )

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        if run_values.results + 1 < self._last_step:
            return
        if _checkpoints.global_step_in(self._model_dir) >= self._last_step:
            run_context.request_stop()
        else:
            time.sleep(self._wait_secs)


def make_stop_at_checkpoint_step_hook(
    estimator, last_step: int, wait_after_file_check_secs=30
) -> tf.compat.v1.train.SessionRunHook:
    """A `StopAtStepHook` on the chief; elsewhere, stop at the checkpoint's step.

    Args:
      estimator: the `Estimator` being trained.
      last_step: the global step to stop at.
      wait_after_file_check_secs: seconds between looks for a checkpoint of
        `last_step` (non-chief workers).

    Returns:
      A `SessionRunHook`.
    """
    if estimator.config.is_chief:
        return tf.compat.v1.train.StopAtStepHook(last_step=last_step)
    return _StopAtCheckpointStepHook(
        model_dir=estimator.model_dir,
        last_step=last_step,
        wait_after_file_check_secs=wait_after_file_check_secs,
    )
