"""How the other entries reach TensorFlow internals, and the errors when one is gone."""

from __future__ import annotations

import importlib
from typing import Any

import tensorflow as tf

SUPPORTED = "TensorFlow 2.15 to 2.21"


def private(module: str, name: str | None = None, fix: str = "") -> Any:
    """TensorFlow's internal `module` (or its member `name`).

    Raises:
      ImportError: naming this TensorFlow's version, if it lacks either.
    """
    where = f"{module}.{name}" if name else module
    try:
        found = importlib.import_module(module)
        return getattr(found, name) if name else found
    except (ImportError, AttributeError) as error:
        raise ImportError(
            f"TensorFlow {tf.__version__} has no `{where}`, which "
            f"estimator_multigpu._tf_internals reaches ({SUPPORTED} have it). "
            f"Install a supported TensorFlow{fix}, or report the new version."
        ) from error


def member(obj: Any, name: str) -> Any:
    """`obj.<name>`, an underscore member, with an error naming this TensorFlow."""
    try:
        return getattr(obj, name)
    except AttributeError as error:
        raise AttributeError(
            f"TensorFlow {tf.__version__}: {type(obj).__name__} has no `{name}`, "
            f"which estimator_multigpu._tf_internals reaches ({SUPPORTED} have "
            "it). Install a supported TensorFlow, or report the new version."
        ) from error
