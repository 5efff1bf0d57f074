"""`run`: tf.contrib.learn's learn_runner.run, choosing a schedule as contrib did."""

from __future__ import annotations

import inspect

from estimator_multigpu.estimator._experiment import Experiment

SCHEDULES = (
    "train",
    "evaluate",
    "train_and_evaluate",
    "continuous_eval",
    "run_std_server",
)
# task type -> contrib's default schedule in a cluster of more than one task.
_BY_TASK = {
    "master": "train_and_evaluate",
    "chief": "train",
    "worker": "train",
    "ps": "run_std_server",
    "evaluator": "continuous_eval",
}


def _is_distributed(config) -> bool:
    """True when the config's cluster has more than one task."""
    spec = getattr(config, "cluster_spec", None)
    if not spec:
        return False
    return sum(len(spec.job_tasks(job)) for job in spec.jobs) > 1


def default_schedule(config) -> str:
    """The schedule contrib ran for `config` when none was named.

    One machine: `train_and_evaluate`; in a cluster, by task type: master
    `train_and_evaluate`, chief and worker `train`, ps `run_std_server`,
    evaluator `continuous_eval`. An evaluator is told by its task type alone:
    its `cluster_spec` is empty, as in tf.estimator's RunConfig.
    """
    if getattr(config, "task_type", None) == "evaluator":
        return _BY_TASK["evaluator"]
    if config is None or not _is_distributed(config):
        return "train_and_evaluate"
    task_type = config.task_type
    if task_type not in _BY_TASK:
        raise ValueError(
            f"No default schedule for task type {task_type!r} (TF_CONFIG); pass "
            f"schedule= one of {list(SCHEDULES)}."
        )
    return _BY_TASK[task_type]


def _check(experiment_fn, schedule, output_dir, run_config) -> None:
    if not callable(experiment_fn):
        raise TypeError(
            f"`experiment_fn` must be callable; received {experiment_fn!r}."
        )
    if schedule is not None and schedule not in SCHEDULES:
        raise ValueError(
            f"`schedule` {schedule!r} is not an Experiment schedule; use one of "
            f"{list(SCHEDULES)} (or None for the task type's default)."
        )
    if output_dir is not None and run_config is not None:
        raise ValueError(
            "Pass either `output_dir` (experiment_fn(output_dir)) or `run_config` "
            f"(experiment_fn(run_config, hparams)), not both; received "
            f"output_dir={output_dir!r} and a run_config."
        )
    if output_dir is None and run_config is None:
        raise ValueError(
            "Must specify `run_config` (experiment_fn(run_config, hparams)) or "
            "`output_dir` (the old experiment_fn(output_dir) form)."
        )


def _make(experiment_fn, output_dir, run_config, hparams):
    if run_config is None:
        params = inspect.signature(experiment_fn).parameters
        if "output_dir" in params:
            return experiment_fn(output_dir=output_dir)
        return experiment_fn(output_dir)
    return experiment_fn(run_config, hparams)


def run(experiment_fn, output_dir=None, schedule=None, run_config=None, hparams=None):
    """Makes the Experiment with `experiment_fn` and runs one of its schedules.

    Args:
      experiment_fn: `experiment_fn(run_config, hparams) -> Experiment`, or the
        old `experiment_fn(output_dir) -> Experiment`.
      output_dir: the old form's model directory (not with `run_config`).
      schedule: the Experiment method to run; None picks it from the
        config's task type (`default_schedule`).
      run_config: an `emg.estimator.RunConfig` (or `tf.estimator.RunConfig`).
      hparams: passed to `experiment_fn` as given (e.g. `emg.estimator.HParams`).

    Returns:
      What the schedule returns.

    Raises:
      TypeError: for a non-callable `experiment_fn` or one that does not return
        an Experiment.
      ValueError: for an unknown schedule, or neither/both of `output_dir` and
        `run_config`.
    """
    _check(experiment_fn, schedule, output_dir, run_config)
    experiment = _make(experiment_fn, output_dir, run_config, hparams)
    if not isinstance(experiment, Experiment):
        raise TypeError(
            "`experiment_fn` must return an emg.estimator.Experiment; it returned "
            f"{type(experiment).__name__}."
        )
    if schedule is None:
        schedule = default_schedule(run_config or experiment.estimator.config)
    return getattr(experiment, schedule)()
