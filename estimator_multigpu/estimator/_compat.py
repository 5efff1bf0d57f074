"""Real tf.estimator objects (TF <= 2.15) converted to ours, for half-migrated code."""

from __future__ import annotations

from estimator_multigpu.estimator import _spec


def _real_classes() -> dict:
    """tf.estimator's classes as they are when this module loads (none on 2.16+).

    Taken once, so code that later rebinds `tf.estimator.RunConfig` to ours
    does not make ours look like the real one.
    """
    if not _spec.HAS_TF_ESTIMATOR:
        return {}
    import tensorflow as tf

    names = ("RunConfig", "TrainSpec", "EvalSpec")
    return {name: getattr(tf.estimator, name) for name in names}


_REAL = _real_classes()


def _is_real(value, name: str) -> bool:
    real = _REAL.get(name)
    return real is not None and isinstance(value, real)


def as_emg_run_config(config):
    """A real `tf.estimator.RunConfig` as ours (same fields); others unchanged."""
    if not _is_real(config, "RunConfig"):
        return config
    from estimator_multigpu.estimator._run_config import TF_FIELDS, RunConfig

    fields = {name: getattr(config, name, None) for name in TF_FIELDS}
    if fields["save_checkpoints_steps"] is not None:
        fields["save_checkpoints_secs"] = None
    return RunConfig(**fields)


def as_emg_train_spec(train_spec):
    """A real `tf.estimator.TrainSpec` as ours; others unchanged."""
    if not _is_real(train_spec, "TrainSpec"):
        return train_spec
    from estimator_multigpu.estimator._training import TrainSpec

    return TrainSpec(*train_spec)


def as_emg_eval_spec(eval_spec):
    """A real `tf.estimator.EvalSpec` as ours; others unchanged."""
    if not _is_real(eval_spec, "EvalSpec"):
        return eval_spec
    from estimator_multigpu.estimator._training import EvalSpec

    return EvalSpec(*eval_spec)
