"""Calls an `input_fn` and turns its result into features, labels and hooks."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import tensorflow as tf

from estimator_multigpu import per_device
from estimator_multigpu._model_fn import fn_args

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


def name_of(fn: Callable) -> str:
    """A readable name of `fn` for messages: `module.qualname` where it has one."""
    if isinstance(fn, functools.partial):
        return f"functools.partial({name_of(fn.func)}, ...)"
    qualname = getattr(fn, "__qualname__", None)
    if qualname is None:
        return repr(fn)
    module = getattr(fn, "__module__", None)
    return f"{module}.{qualname}" if module else qualname


def parse_input_fn_result(
    result: Any, input_fn: Callable | None = None, predict: bool = False
):
    """Splits an input_fn result into `(features, labels, input_hooks)`.

    Args:
      result: a `tf.data.Dataset` (of `(features, labels)` or features), a
        `(features, labels)` tuple or list, features alone, or `PerDevice`
        shards (whose iterator initializers are already registered).
      input_fn: the function that returned `result`, named in errors.
      predict: whether `result` is predict's: a one-element tuple or list is
        then its features (TF 1.x's predict kept `result[0]` of any tuple,
        so a dataset of `(features,)` elements predicted).

    Returns:
      features, labels (None when absent) and the hooks that initialise the
      dataset iterator.

    Raises:
      ValueError: for a tuple or list whose length is not 2, or a list of two
        look-alike values (one per device?).
    """
    hooks = []
    if isinstance(result, tf.data.Dataset):
        iterator = tf.compat.v1.data.make_initializable_iterator(result)
        hooks.append(DatasetInitializerHook(iterator))
        result = iterator.get_next()
    elif isinstance(result, list):
        _check_not_per_device_list(result, input_fn)
    if predict and isinstance(result, (list, tuple)) and len(result) == 1:
        result = result[0]
    features, labels = parse_iterator_result(result, input_fn)
    return features, labels, hooks


def parse_iterator_result(result: Any, input_fn: Callable | None = None):
    """`(features, labels)` from a pair, `(features, None)` from anything else."""
    if per_device.is_per_device(result):
        return result, None
    if isinstance(result, (list, tuple)):
        if len(result) != 2:
            raise ValueError(
                "input_fn should return (features, labels) as a len 2 tuple; "
                f"received a {type(result).__name__} of length {len(result)} "
                f"from {_name(input_fn)}: {describe(result)}. {_EXPECTED} "
                "Return a dict of features instead of a longer tuple."
            )
        return result[0], result[1]
    return result, None


_EXPECTED = (
    "An input_fn returns a tf.data.Dataset (of (features, labels) or of "
    "features), a (features, labels) tuple, or features alone (a tensor or a "
    "dict of tensors)."
)


def _name(input_fn: Callable | None) -> str:
    return f"input_fn {name_of(input_fn)}" if input_fn is not None else "the input_fn"


def _check_not_per_device_list(result: list, input_fn: Callable | None) -> None:
    """Raises for `[x0, x1]` or `[(x0, y0), (x1, y1)]`: one value per device?"""
    if len(result) != 2 or not _look_alike(result[0], result[1]):
        return
    pairs = all(isinstance(r, (list, tuple)) and len(r) == 2 for r in result)
    what = "(features, labels) pairs" if pairs else "values of one kind"
    raise ValueError(
        f"{_name(input_fn)} returned a list of 2 {what}: "
        f"{describe(result)}. A list or tuple of 2 is read as (features, "
        f"labels), so these would be misread. {_EXPECTED} For one batch per "
        "device, build the input with emg.inputs.sharded_input_fn or "
        "emg.inputs.multi_device_input_fn (they return emg.PerDevice values) "
        "and replicate the model with RunConfig(devices=...) or "
        "emg.replicate_model_fn. If these really are features and labels, "
        "return them as a tuple: (features, labels)."
    )


def _look_alike(first: Any, second: Any) -> bool:
    """Same structure, and tensors of the same dtype and shape at every leaf."""
    try:
        tf.nest.assert_same_structure(first, second)
    except (TypeError, ValueError):
        return False
    leaves = list(zip(tf.nest.flatten(first), tf.nest.flatten(second)))
    return bool(leaves) and all(_same_kind(a, b) for a, b in leaves)


def _same_kind(a: Any, b: Any) -> bool:
    if not (isinstance(a, tf.Tensor) and isinstance(b, tf.Tensor)):
        return False
    if a.shape.rank is None or b.shape.rank is None:
        return False
    return a.dtype == b.dtype and a.shape.as_list() == b.shape.as_list()


def describe(value: Any) -> str:
    """A short description of an input_fn result, e.g. `[Tensor float32 [8, 4], ...]`."""
    if isinstance(value, tf.Tensor):
        shape = value.shape.as_list() if value.shape.rank is not None else "?"
        return f"Tensor {value.dtype.name} {shape}"
    if isinstance(value, dict):
        items = ", ".join(f"{k!r}: {describe(v)}" for k, v in value.items())
        return "{" + items + "}"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(describe(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner})"
    return "None" if value is None else type(value).__name__
