"""Calls an `input_fn` and turns its result into features, labels and hooks."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import tensorflow as tf

from estimator_multigpu import per_device
from estimator_multigpu.estimator.model_fn_args import fn_args

_VALID_INPUT_FN_ARGS = frozenset({"mode", "params", "config", "input_context"})


def verify_input_fn(input_fn: Callable, argument: str = "input_fn") -> None:
    """Raises unless `input_fn` can be called with mode/params/config only.

    Raises:
      TypeError: if `input_fn` is not callable.
      ValueError: if it requires an argument the Estimator cannot supply.
    """
    if not callable(input_fn):
        raise TypeError(
            f"`{argument}` must be a callable returning a tf.data.Dataset or "
            f"(features, labels); received {input_fn!r}. Pass the function "
            "itself (not its result), e.g. `input_fn=lambda: make_dataset(32)`."
        )
    required = [
        name for name in _required_args(input_fn) if name not in _VALID_INPUT_FN_ARGS
    ]
    if required:
        raise ValueError(
            f"`{argument}` ({input_fn}) requires argument(s) {required}, which "
            f"the Estimator cannot supply: it passes only {sorted(_VALID_INPUT_FN_ARGS - {'input_context'})}. "
            "Bind them first, e.g. `input_fn=functools.partial(fn, batch_size=32)`."
        )


def _required_args(fn: Callable) -> list[str]:
    """Argument names without a default value (after partial binding)."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # Builtins and other opaque callables.
        return []
    variadic = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    return [
        p.name
        for p in signature.parameters.values()
        if p.kind not in variadic and p.default is inspect.Parameter.empty
    ]


def call_input_fn(input_fn: Callable, mode: str, params: dict, config: Any) -> Any:
    """Calls `input_fn` with the arguments it takes, on the CPU like tf.estimator."""
    args = fn_args(input_fn)
    kwargs = {}
    for name, value in (("mode", mode), ("params", params), ("config", config)):
        if name in args:
            kwargs[name] = value
    with tf.compat.v1.device("/cpu:0"):
        return input_fn(**kwargs)


class DatasetInitializerHook(tf.compat.v1.train.SessionRunHook):
    """Initialises a dataset iterator in every new session."""

    def __init__(self, iterator):
        self._iterator = iterator

    def begin(self):
        self._initializer = self._iterator.initializer

    def after_create_session(self, session, coord):
        del coord
        session.run(self._initializer)


def parse_input_fn_result(result: Any) -> tuple[Any, Any, list]:
    """Splits an input_fn result into `(features, labels, input_hooks)`.

    Args:
      result: a `tf.data.Dataset` (of `(features, labels)` or features), a
        `(features, labels)` tuple or list, features alone, or `PerDevice`
        shards (whose iterator initializers are already registered).

    Returns:
      features, labels (None when absent) and the hooks that initialise the
      dataset iterator.

    Raises:
      ValueError: for a tuple or list whose length is not 2.
    """
    hooks = []
    if isinstance(result, tf.data.Dataset):
        iterator = tf.compat.v1.data.make_initializable_iterator(result)
        hooks.append(DatasetInitializerHook(iterator))
        result = iterator.get_next()
    features, labels = parse_iterator_result(result)
    return features, labels, hooks


def parse_iterator_result(result: Any) -> tuple[Any, Any]:
    """`(features, labels)` from a pair, `(features, None)` from anything else."""
    if per_device.is_per_device(result):
        return result, None
    if isinstance(result, (list, tuple)):
        if len(result) != 2:
            raise ValueError(
                "input_fn should return (features, labels) as a len 2 tuple; "
                f"received a {type(result).__name__} of length {len(result)}. "
                "Return a dict of features instead of a longer tuple."
            )
        return result[0], result[1]
    return result, None
