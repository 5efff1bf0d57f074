"""`add_metrics`: an Estimator whose evaluation also computes `metric_fn`'s metrics."""

from __future__ import annotations

import inspect
from collections.abc import Callable

from estimator_multigpu.estimator._spec import ModeKeys

_METRIC_FN_ARGS = ("features", "labels", "predictions", "config")


def add_metrics(estimator, metric_fn: Callable):
    """A new Estimator (same model_dir and config) adding `metric_fn`'s metrics.

    Args:
      estimator: an `Estimator`.
      metric_fn: takes any of `features`, `labels`, `predictions`, `config`
        (by name) and returns `{name: (value, update_op) or Keras Metric}`.

    Raises:
      ValueError: if `metric_fn` takes an argument not in that list.
    """
    from estimator_multigpu.estimator._estimator import Estimator, model_of

    names = _metric_fn_args(metric_fn)

    def new_model_fn(features, labels, mode, config):
        spec = estimator.model_fn(features, labels, mode, config)
        if mode != ModeKeys.EVAL:
            return spec
        available = {
            "features": features,
            "labels": labels,
            "predictions": spec.predictions,
            "config": config,
        }
        new_metrics = metric_fn(**{name: available[name] for name in names})
        all_metrics = dict(spec.eval_metric_ops or {})
        all_metrics.update(new_metrics)
        return spec._replace(eval_metric_ops=all_metrics)

    return Estimator(
        model_fn=new_model_fn,
        model_dir=estimator.model_dir,
        config=estimator.config,
        warm_start_from=model_of(estimator).warm_start_settings,
    )


def _metric_fn_args(metric_fn) -> list[str]:
    names = list(inspect.signature(metric_fn).parameters)
    invalid = set(names) - set(_METRIC_FN_ARGS)
    if invalid:
        raise ValueError(
            f"metric_fn ({metric_fn}) has following not expected args: "
            f"{sorted(invalid)} (it may take only {list(_METRIC_FN_ARGS)})."
        )
    return names
