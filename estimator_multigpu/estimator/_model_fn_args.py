"""Checks a `model_fn` signature; replicates it when the config names devices."""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
from collections.abc import Callable
from typing import Any

import tensorflow as tf

from estimator_multigpu import per_device, towers
from estimator_multigpu._model_fn import fn_args

_TOWERS_MODULE = "estimator_multigpu.towers._replicate"

VALID_MODEL_FN_ARGS = frozenset({"features", "labels", "mode", "params", "config"})


@dataclasses.dataclass(frozen=True, kw_only=True)
class BoundModel:
    """What train, evaluate, predict and export need of an Estimator's model.

    The Estimator passes it to those modules, so none reads its private members.

    Attributes:
      call: `call(features, labels, mode, replicate=True) -> EstimatorSpec`:
        the model_fn with the Estimator's params and config, replicated over
        the config's devices unless `replicate=False`.
      warm_start_settings: the Estimator's `WarmStartSettings`, or None.
    """

    call: Callable[..., Any]
    warm_start_settings: Any = None


def verify_model_fn_args(model_fn: Callable, params: dict | None) -> None:
    """Raises if `model_fn` cannot be called as a model_fn.

    Args:
      model_fn: the user's model function.
      params: the `params` given to the Estimator.

    Raises:
      TypeError: if `model_fn` is not callable.
      ValueError: if it lacks `features`, takes unexpected arguments, or does
        not take `params` although `params` were given.
    """
    if model_fn is None:
        raise ValueError(
            "model_fn must be provided to Estimator (a callable such as "
            "`def model_fn(features, labels, mode, params, config)`)."
        )
    if not callable(model_fn):
        raise TypeError(
            f"`model_fn` must be a callable such as "
            f"`def model_fn(features, labels, mode, params, config)`; "
            f"received {model_fn!r}."
        )
    args = set(fn_args(model_fn))
    if "features" not in args:
        raise ValueError(
            f"model_fn ({model_fn}) must include features argument; its "
            f"arguments are {sorted(args)}."
        )
    _check_params_arg(model_fn, args, params)
    unexpected = sorted(args - VALID_MODEL_FN_ARGS)
    if unexpected:
        raise ValueError(
            f"model_fn ({model_fn}) has following not expected args: "
            f"{unexpected}; a model_fn takes a subset of "
            f"{sorted(VALID_MODEL_FN_ARGS)}."
        )


def _check_params_arg(model_fn: Callable, args: set, params: dict | None) -> None:
    if params is not None and "params" not in args:
        raise ValueError(
            f"model_fn ({model_fn}) does not include params argument, but "
            f"params ({params}) is passed to Estimator. Add `params` to its "
            "arguments or do not pass params."
        )
    user_model_fn = unwrap(model_fn)
    if params is None and "params" in fn_args(user_model_fn):
        tf.get_logger().warning(
            "Estimator's model_fn (%s) includes params argument, but params "
            "are not passed to Estimator.",
            user_model_fn,
        )


def is_replicated(model_fn: Callable) -> bool:
    """Whether `model_fn` was made by `emg.replicate_model_fn`."""
    return getattr(model_fn, "__module__", None) == _TOWERS_MODULE


def unwrap(model_fn: Callable) -> Callable:
    """The user's model_fn inside an `emg.replicate_model_fn` wrapper.

    The wrapper takes `params=None` whatever the model_fn it wraps takes, so
    checks of the user's signature look through it: at `__wrapped__` where
    set, else at the `model_fn` its closure holds.
    """
    while is_replicated(model_fn):
        inner = getattr(model_fn, "__wrapped__", None)
        if inner is None:
            inner = inspect.getclosurevars(model_fn).nonlocals.get("model_fn")
        if inner is None or not callable(inner):
            return model_fn
        model_fn = inner
    return model_fn


@contextlib.contextmanager
def explain_per_device_errors(features: Any, labels: Any, model_fn: Callable):
    """Adds the likely cause to an error of a model_fn given PerDevice input.

    A model_fn that is not replicated gets `PerDevice` input as it is; one
    written for it walks `features.values`, any other one fails on the
    first tensor operation, with an error that does not say why.

    Raises:
      TypeError: naming the fix, if the block fails with such input.
    """
    per_device_args = [
        name
        for name, value in (("features", features), ("labels", labels))
        if per_device.is_per_device(value)
    ]
    try:
        yield
    except (TypeError, ValueError, AttributeError, KeyError, IndexError) as error:
        if not per_device_args or is_replicated(model_fn):
            raise
        devices = list((features if "features" in per_device_args else labels).devices)
        raise TypeError(
            f"model_fn ({model_fn}) failed ({type(error).__name__}: {error}) on "
            f"{' and '.join(per_device_args)} given as emg.PerDevice shards, one "
            f"per device of {devices}: the model_fn is not replicated, so it "
            "gets all shards at once. PerDevice input needs a replicated model: "
            "pass RunConfig(devices=[...]) (or num_gpus) to the Estimator, or "
            "wrap the model_fn in emg.replicate_model_fn (or walk "
            "features.values yourself)."
        ) from error


def maybe_replicate(model_fn: Callable, config: Any) -> Callable:
    """Wraps `model_fn` in `replicate_model_fn` when `config` names devices.

    A model_fn with a `tower_loss_reduction` attribute (a canned estimator's,
    whose loss may be a sum) is replicated with that loss reduction.
    """
    devices = getattr(config, "compute_devices", None)
    if devices is None:
        return model_fn
    tf.get_logger().info("Replicating model_fn over devices %s.", devices)
    reduction = getattr(model_fn, "tower_loss_reduction", "mean")
    return towers.replicate_model_fn(
        model_fn, devices=devices, loss_reduction=reduction
    )
