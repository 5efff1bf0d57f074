"""Real tf.estimator objects (TF <= 2.15) converted to ours, for half-migrated code."""

from __future__ import annotations

from estimator_multigpu.estimator import spec

_RUN_CONFIG_FIELDS = (
    "model_dir",
    "tf_random_seed",
    "save_summary_steps",
    "save_checkpoints_steps",
    "save_checkpoints_secs",
    "session_config",
    "keep_checkpoint_max",
    "keep_checkpoint_every_n_hours",
    "log_step_count_steps",
    "train_distribute",
    "device_fn",
    "protocol",
    "eval_distribute",
    "experimental_distribute",
    "experimental_max_worker_delay_secs",
    "session_creation_timeout_secs",
    "checkpoint_save_graph_def",
)


def _real(name: str):
    """tf.estimator's class `name`, or None where tf.estimator is gone."""
    if not spec.HAS_TF_ESTIMATOR:
        return None
    import tensorflow as tf

    return getattr(tf.estimator, name, None)


def _is_real(value, name: str) -> bool:
    real = _real(name)
    return real is not None and isinstance(value, real)


def as_emg_run_config(config):
    """A real `tf.estimator.RunConfig` as ours (same fields); others unchanged."""
    if not _is_real(config, "RunConfig"):
        return config
    from estimator_multigpu.estimator.run_config import RunConfig

    fields = {name: getattr(config, name, None) for name in _RUN_CONFIG_FIELDS}
    if fields["save_checkpoints_steps"] is not None:
        fields["save_checkpoints_secs"] = None
    return RunConfig(**fields)


def as_emg_train_spec(train_spec):
    """A real `tf.estimator.TrainSpec` as ours; others unchanged."""
    if not _is_real(train_spec, "TrainSpec"):
        return train_spec
    from estimator_multigpu.estimator.training import TrainSpec

    return TrainSpec(*train_spec)


def as_emg_eval_spec(eval_spec):
    """A real `tf.estimator.EvalSpec` as ours; others unchanged."""
    if not _is_real(eval_spec, "EvalSpec"):
        return eval_spec
    from estimator_multigpu.estimator.training import EvalSpec

    return EvalSpec(*eval_spec)
