"""Loads `module:function` targets and calls input_fns as the Estimator does."""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from typing import Any

import tensorflow as tf

INPUT_FN_ARGS = ("params", "config", "mode", "input_context")
MODES = ("train", "eval", "infer")


class UsageError(ValueError):
    """A target that cannot be loaded or called; the CLI exits with status 2."""


def _syntax_error(error: SyntaxError, name: str, target: str) -> UsageError:
    """A `UsageError` naming the file, line and syntax error `error` is."""
    where = f"{error.filename}, line {error.lineno}"
    code = f": {error.text.strip()}" if error.text and error.text.strip() else ""
    return UsageError(
        f"{where}: {type(error).__name__}: {error.msg}{code} (while importing "
        f"module {name!r} of {target!r}); fix the code there and run again."
    )


def _module(name: str, target: str):
    try:
        return importlib.import_module(name)
    except SyntaxError as error:  # IndentationError and TabError too.
        raise _syntax_error(error, name, target) from error
    except ModuleNotFoundError as error:
        if error.name and name.startswith(error.name):
            raise UsageError(
                f"Module {name!r} of {target!r} was not found. Run from the folder "
                "that holds the package, or put it on PYTHONPATH."
            ) from error
        raise


def load_target(target: str) -> Callable:
    """The callable named by `'package.module:function'` (or `:Class.method`).

    Raises:
      UsageError: for a malformed target, a missing module or attribute, a
        syntax error in the module (naming its file and line), or an
        attribute that is not callable.
    """
    module_name, _, attribute = target.partition(":")
    if not module_name or not attribute:
        raise UsageError(
            f"Target {target!r} must be 'package.module:function', e.g. "
            "'my_pkg.input:train_input_fn'."
        )
    value = _module(module_name, target)
    for part in attribute.split("."):
        if not hasattr(value, part):
            raise UsageError(
                f"{module_name!r} has no attribute {attribute!r} (from {target!r}); "
                "check the name after the colon."
            )
        value = getattr(value, part)
    if not callable(value):
        raise UsageError(
            f"{target!r} is not callable (it is of type {type(value).__name__}); "
            "name a function that returns a tf.data.Dataset, or an input_fn."
        )
    return value


def load_input_fn(target: str) -> Callable:
    """`load_target`, plus the input_fn signature check, as a UsageError."""
    fn = load_target(target)
    try:
        check_input_fn_signature(fn, target)
    except (TypeError, ValueError) as error:
        raise UsageError(str(error)) from error
    return fn


def _parameters(fn: Callable) -> dict[str, inspect.Parameter]:
    try:
        return dict(inspect.signature(fn).parameters)
    except (TypeError, ValueError):  # Builtins: call them without arguments.
        return {}


def check_input_fn_signature(fn: Callable, argument: str = "input_fn") -> None:
    """Raises unless `fn` takes no arguments beyond params, config, mode."""
    if not callable(fn):
        raise TypeError(
            f"`{argument}` must be a function returning a tf.data.Dataset or "
            f"(features, labels); received {fn!r}."
        )
    variadic = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    required = [
        name
        for name, p in _parameters(fn).items()
        if p.kind not in variadic
        and p.default is inspect.Parameter.empty
        and name not in INPUT_FN_ARGS
    ]
    if required:
        raise ValueError(
            f"`{argument}` ({fn!r}) requires {required}, which an Estimator cannot "
            f"pass (it passes only {list(INPUT_FN_ARGS[:3])}); bind them first, "
            "e.g. functools.partial(fn, batch_size=32)."
        )


def call_input_fn(fn: Callable, mode: str = "train", params=None, config=None) -> Any:
    """Calls `fn()`, `fn(params)` or `fn(params, config, mode)`: what it names.

    Like the Estimator, passes only the arguments `fn` names, by keyword, on
    the CPU.
    """
    names = _parameters(fn)
    values = {"params": params if params is not None else {}, "config": config}
    values["mode"] = mode
    kwargs = {k: v for k, v in values.items() if k in names}
    with tf.device("/cpu:0"):
        return fn(**kwargs)
