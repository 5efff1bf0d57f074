"""`Experiment`: tf.contrib.learn.Experiment's train/evaluate schedules over an Estimator."""

from __future__ import annotations

import time

import tensorflow as tf

from estimator_multigpu._model_fn import fn_args
from estimator_multigpu.estimator import (
    _cluster,
    _continuous_eval,
    _distributed,
    _estimator,
)
from estimator_multigpu.estimator._training import TrainSpec

_TRAINER_JOBS = (_cluster.CHIEF, _cluster.MASTER, _cluster.WORKER)
_WARN_EVERY_SECS = 600  # contrib warned of a missing checkpoint every 10 minutes.
_NOT_STARTED = object()
# contrib arguments whose machinery (monitors, export strategies, delayed
# workers) is not carried over: refused unless left at contrib's default.
_REFUSED = {
    "eval_metrics": (None, "add metrics in the model_fn (eval_metric_ops)"),
    "local_eval_frequency": (None, "use min_eval_frequency"),
    "export_strategies": (None, "export with estimator.export_saved_model"),
    "train_steps_per_iteration": (None, "use min_eval_frequency"),
    "checkpoint_and_export": (False, "use emg.estimator.train_and_evaluate"),
    "delay_workers_by_global_step": (False, "workers start at once"),
}


def _check_hooks(name: str, hooks) -> list:
    if hooks is None:
        return []
    if not isinstance(hooks, list | tuple):
        raise TypeError(
            f"`{name}` must be a list of SessionRunHooks; received {hooks!r}."
        )
    return list(hooks)


def _check_steps(name: str, steps) -> None:
    if steps is not None and (
        isinstance(steps, bool) or not isinstance(steps, int) or steps < 0
    ):
        raise ValueError(f"`{name}` must be None or an int >= 0; received {steps!r}.")


class Experiment:
    """Trains and evaluates an Estimator the way tf.contrib.learn.Experiment did.

    `learn_runner.run` calls one of its schedules: `train`, `evaluate`,
    `train_and_evaluate`, `continuous_eval` or `run_std_server`. Works with
    `emg.estimator.Estimator` and with a real `tf.estimator.Estimator` alike
    (it only calls `train`, `evaluate`, `latest_checkpoint` and `config`).

    Args:
      estimator: the Estimator to train and evaluate.
      train_input_fn: the training `input_fn`.
      eval_input_fn: the evaluation `input_fn`.
      eval_metrics: refused (contrib's MetricSpec dict): return
        `eval_metric_ops` from the model_fn instead.
      train_steps: steps to train (None: until the input ends).
      eval_steps: steps per evaluation (None: until the input ends).
      train_monitors: hooks for training.
      eval_hooks: hooks for evaluation.
      local_eval_frequency: refused; use `min_eval_frequency`.
      eval_delay_secs: `continuous_eval`'s wait before its first evaluation.
      continuous_eval_throttle_secs: least seconds between two evaluations
        of `continuous_eval`.
      min_eval_frequency: `train_and_evaluate` evaluates every this many
        steps (None: once, at the end).
      delay_workers_by_global_step: refused unless False.
      export_strategies: refused; export with `export_saved_model`.
      train_steps_per_iteration: refused; use `min_eval_frequency`.
      checkpoint_and_export: refused unless False.
      saving_listeners: `CheckpointSaverListener`s for training.
      check_interval_secs: least seconds between two looks for a new
        checkpoint of `train_and_evaluate`'s evaluations during training
        (contrib's ValidationMonitor); an evaluation due sooner is skipped.
        None: no limit.

    Raises:
      ValueError: for a refused argument, naming it and what to use.
      TypeError: for input_fns that are not callables or hooks not a list.
    """

    def __init__(
        self,
        estimator,
        train_input_fn,
        eval_input_fn,
        eval_metrics=None,
        train_steps=None,
        eval_steps=100,
        train_monitors=None,
        eval_hooks=None,
        local_eval_frequency=None,
        eval_delay_secs=120,
        continuous_eval_throttle_secs=60,
        min_eval_frequency=None,
        delay_workers_by_global_step=False,
        export_strategies=None,
        train_steps_per_iteration=None,
        checkpoint_and_export=False,
        saving_listeners=None,
        check_interval_secs=5,
    ):
        given = locals()
        for name, (default, fix) in _REFUSED.items():
            if given[name] != default:
                raise ValueError(
                    f"Experiment(`{name}`={given[name]!r}) is not supported; {fix}."
                )
        if not all(callable(f) for f in (train_input_fn, eval_input_fn)):
            raise TypeError(
                "`train_input_fn` and `eval_input_fn` must be callables; received "
                f"{train_input_fn!r} and {eval_input_fn!r}."
            )
        for name in ("train_steps", "eval_steps", "min_eval_frequency"):
            _check_steps(name, given[name])
        self._estimator = estimator
        self._train_input_fn, self._eval_input_fn = train_input_fn, eval_input_fn
        self._train_steps, self._eval_steps = train_steps, eval_steps
        self._train_monitors = _check_hooks("train_monitors", train_monitors)
        self._eval_hooks = _check_hooks("eval_hooks", eval_hooks)
        self._saving_listeners = _check_hooks("saving_listeners", saving_listeners)
        self._eval_delay_secs = eval_delay_secs
        self._throttle_secs = continuous_eval_throttle_secs
        self._min_eval_frequency = min_eval_frequency
        self._check_interval_secs = check_interval_secs
        self._server = _NOT_STARTED

    @property
    def estimator(self):
        return self._estimator

    @property
    def train_steps(self):
        return self._train_steps

    @property
    def eval_steps(self):
        return self._eval_steps

    def extend_train_hooks(self, additional_hooks) -> None:
        """Adds hooks to those `train` runs with."""
        self._train_monitors += _check_hooks("additional_hooks", additional_hooks)

    def train(self, delay_secs=None):
        """Trains up to `train_steps` (total); returns the estimator.

        On a chief, master or worker of a `TF_CONFIG` cluster an
        `emg.estimator.Estimator` trains between-graph with the cluster's
        other tasks, as `train_and_evaluate` trains them; a worker then waits
        for the chief as there (see `emg.estimator.train_and_evaluate`)
        instead of contrib's `5 * task_id` seconds.

        Args:
          delay_secs: seconds to wait first; None: contrib's worker delay.
        """
        if delay_secs is None:  # contrib: workers start 5 s apart
            delay_secs = min(60, 5 * (self._estimator.config.task_id or 0))
            if _trains_in_cluster(self._estimator):
                delay_secs = 0  # `distributed.wait_for_chief` waits instead.
        _wait(delay_secs, "Waiting %d secs before starting training.")
        return self._train(self._train_steps)

    def _train(self, max_steps):
        if _trains_in_cluster(self._estimator):
            return self._train_in_cluster(max_steps)
        return self._estimator.train(
            input_fn=self._train_input_fn,
            max_steps=max_steps,
            hooks=self._train_monitors,
            saving_listeners=self._saving_listeners,
        )

    def _train_in_cluster(self, max_steps):
        """Trains as this task of the cluster, on its server (started once)."""
        if self._server is _NOT_STARTED:
            self._server = _distributed.start_server(self._estimator.config)
        spec = TrainSpec(
            self._train_input_fn,
            max_steps=max_steps,
            hooks=self._train_monitors,
            saving_listeners=self._saving_listeners,
        )
        _distributed.train_on_server(self._estimator, spec, self._server)
        return self._estimator

    def evaluate(self, delay_secs=None, name=None) -> dict:
        """Evaluates the latest checkpoint for `eval_steps` (None: to the end).

        Args:
          delay_secs: seconds to wait first; None: `eval_delay_secs`.
          name: the evaluation's name (its metrics go to `eval_<name>`);
            None: `'one_pass'`, as contrib.

        Returns:
          The metrics of the evaluation.
        """
        if delay_secs is None:
            delay_secs = self._eval_delay_secs
        _wait(delay_secs, "Waiting %d secs before starting eval.")
        return self._evaluate(name or "one_pass")

    def _evaluate(self, name=None, checkpoint_path=None) -> dict:
        return self._estimator.evaluate(
            input_fn=self._eval_input_fn,
            steps=self._eval_steps,
            hooks=self._eval_hooks,
            checkpoint_path=checkpoint_path,
            name=name,
        )

    def train_and_evaluate(self):
        """Trains, evaluating every `min_eval_frequency` steps (if set) and at the
        end; returns (the last evaluation's metrics, []) as contrib did."""
        freq = self._min_eval_frequency
        validate = _Validation(self._evaluate, self._check_interval_secs)
        if freq:
            while True:
                start = _global_step(self._estimator)
                target = start + freq
                if self._train_steps is not None:
                    target = min(target, self._train_steps)
                if start >= target:
                    break
                self._train(target)
                if _global_step(self._estimator) < target:
                    break  # the input ended before `target`
                if self._train_steps is None or target < self._train_steps:
                    validate()
        else:
            self._train(self._train_steps)
        return self._evaluate(), []

    def continuous_eval(
        self,
        delay_secs=None,
        throttle_delay_secs=None,
        evaluate_checkpoint_only_once=True,
        continuous_eval_predicate_fn=None,
        name="continuous",
    ):
        """Evaluates each new checkpoint, as contrib's `continuous_eval`.

        Waits `delay_secs`, then evaluates the latest checkpoint at most every
        `throttle_delay_secs`, until one reaches `train_steps` or
        `continuous_eval_predicate_fn` returns False. Like contrib it has no
        timeout: while no checkpoint is new it warns once, then every 10
        minutes, and keeps waiting.

        Args:
          delay_secs: seconds to wait first; None: `eval_delay_secs`.
          throttle_delay_secs: least seconds between two evaluations; None:
            `continuous_eval_throttle_secs`.
          evaluate_checkpoint_only_once: skip a checkpoint already evaluated.
          continuous_eval_predicate_fn: `fn(eval_results)` or
            `fn(eval_results, checkpoint_path)`, called before each round
            (with None first); False stops.
          name: the evaluation's name (its metrics go to `eval_<name>`).

        Returns:
          The last round's metrics (`{}` when it found no new checkpoint).

        Raises:
          ValueError: for a `continuous_eval_predicate_fn` that is not callable.
        """
        predicate = _standardized_predicate(continuous_eval_predicate_fn)
        if delay_secs is None:
            delay_secs = self._eval_delay_secs
        if throttle_delay_secs is None:
            throttle_delay_secs = self._throttle_secs
        _wait(delay_secs, "Waiting %f secs before starting eval.")
        watch = _CheckpointWatch(
            self._estimator.model_dir, evaluate_checkpoint_only_once
        )
        result = None
        while predicate is None or predicate(result, checkpoint_path=watch.previous):
            if self._has_training_stopped(result):
                tf.get_logger().info(
                    "Exiting continuous eval, global_step=%s >= train_step=%s",
                    result[tf.compat.v1.GraphKeys.GLOBAL_STEP],
                    self._train_steps,
                )
                break
            start = time.monotonic()
            path = watch.next_checkpoint()
            result = {} if path is None else self._evaluate(name, path) or {}
            _continuous_eval.throttle(
                throttle_delay_secs - (time.monotonic() - start), path
            )
        return result

    def _has_training_stopped(self, result) -> bool:
        """Whether `result` is of a checkpoint at or past `train_steps`."""
        step = (result or {}).get(tf.compat.v1.GraphKeys.GLOBAL_STEP)
        return bool(step and self._train_steps and step >= self._train_steps)

    def run_std_server(self) -> None:
        """Starts this task's tf.distribute.Server from the config and joins it."""
        config = self._estimator.config
        if not config.cluster_spec or config.task_type is None:
            raise ValueError(
                "run_std_server needs a cluster: the RunConfig has cluster_spec="
                f"{config.cluster_spec!r}, task_type={config.task_type!r}. Set "
                "TF_CONFIG before making the RunConfig."
            )
        server = tf.distribute.Server(
            config.cluster_spec,
            job_name=config.task_type,
            task_index=config.task_id,
            config=config.session_config,
            start=True,
        )
        server.join()


class _Validation:
    """contrib's ValidationMonitor check: evaluates unless it last looked for a
    checkpoint at most `check_interval_secs` ago (None: always)."""

    def __init__(self, evaluate, check_interval_secs):
        self._evaluate = evaluate
        self._interval = check_interval_secs
        self._last_check = None

    def __call__(self) -> None:
        now = time.time()
        if (
            self._interval is not None
            and self._last_check is not None
            and now - self._last_check <= self._interval
        ):
            tf.get_logger().debug(
                "Skipping evaluation since less than %d seconds have passed since "
                "last check for a new checkpoint.",
                self._interval,
            )
            return
        self._last_check = now
        self._evaluate()


def _trains_in_cluster(estimator) -> bool:
    """Whether `estimator` is ours and its config names a training cluster task."""
    config = estimator.config
    return (
        isinstance(estimator, _estimator.Estimator)
        and bool(config.cluster_spec)
        and config.task_type in _TRAINER_JOBS
    )


def _wait(delay_secs, message: str) -> None:
    """Logs `message % delay_secs` and sleeps, as contrib did (0: neither)."""
    if delay_secs:
        tf.get_logger().info(message, delay_secs)
        time.sleep(delay_secs)


def _standardized_predicate(predicate_fn):
    """`predicate_fn` as `fn(eval_results, checkpoint_path=...)`, or None."""
    if predicate_fn is None:
        return None
    if not callable(predicate_fn):
        raise ValueError(
            "`continuous_eval_predicate_fn` must be a callable, or None; "
            f"received {predicate_fn!r}. Pass fn(eval_results) -> bool."
        )
    if "checkpoint_path" in fn_args(predicate_fn):
        return predicate_fn
    return lambda results, checkpoint_path: predicate_fn(results)


class _CheckpointWatch:
    """Tells the checkpoint to evaluate next; warns as contrib while none is."""

    def __init__(self, model_dir: str, only_once: bool):
        self._model_dir = model_dir
        self._only_once = only_once
        self._last_warning = None
        self.previous = None  # The checkpoint evaluated last.

    def next_checkpoint(self) -> str | None:
        """The latest checkpoint if it is to be evaluated, else None."""
        latest = tf.train.latest_checkpoint(self._model_dir)
        if not latest:
            self._warn(
                "Estimator is not fitted yet. Will start an evaluation when a "
                "checkpoint is ready."
            )
            return None
        if self._only_once and latest == self.previous:
            self._warn("No new checkpoint ready for evaluation.")
            return None
        self.previous, self._last_warning = latest, None
        return latest

    def _warn(self, message: str) -> None:
        now = time.monotonic()
        if self._last_warning is None or now - self._last_warning > _WARN_EVERY_SECS:
            tf.get_logger().warning(message)
            self._last_warning = now


def _global_step(estimator) -> int:
    """The global step of the latest checkpoint (0 without one)."""
    path = estimator.latest_checkpoint()
    if path is None:
        return 0
    return int(tf.train.load_variable(path, "global_step"))
