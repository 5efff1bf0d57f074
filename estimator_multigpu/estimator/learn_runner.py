"""tf.contrib.learn.learn_runner: `run(experiment_fn, ...)` over `emg.estimator.Experiment`."""

from estimator_multigpu.estimator._learn_runner import SCHEDULES, default_schedule, run

__all__ = ["SCHEDULES", "default_schedule", "run"]
