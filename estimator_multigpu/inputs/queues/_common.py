"""Shared checks, guide links and the warning class of the queue equivalents."""

from __future__ import annotations

import warnings
from typing import Any

GUIDE = "migration_guide.md"
# The guide sections this package links to (tests check they exist).
SECTIONS = ("batchers", "capacity", "queue-runners", "readers", "shared-name")


class QueueSemanticsWarning(UserWarning):
    """A queue argument or call has no faithful tf.data equivalent."""


def guide(anchor: str) -> str:
    """Returns the link to a section of the migration guide."""
    assert anchor in SECTIONS, anchor
    return f"{GUIDE}#{anchor}"


def warn(message: str, anchor: str) -> None:
    """Emits a `QueueSemanticsWarning` that points to a guide section."""
    warnings.warn(
        f"{message} See {guide(anchor)}.", QueueSemanticsWarning, stacklevel=3
    )


def check_int(value: Any, argument: str, minimum: int = 1) -> int:
    """Returns `value` as an int; raises if it is not an int >= `minimum`.

    Raises:
      TypeError: if `value` is not an integer.
      ValueError: if `value` is smaller than `minimum`.
    """
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(
            f"`{argument}` must be a Python int; received {value!r} "
            f"({type(value).__name__}). Pass a plain integer."
        )
    if int(value) < minimum:
        raise ValueError(f"`{argument}` must be >= {minimum}; received {value!r}.")
    return int(value)


def check_num_epochs(num_epochs: Any) -> int | None:
    """Validates `num_epochs` like the queue API: None (forever) or an int > 0."""
    if num_epochs is None:
        return None
    return check_int(num_epochs, "num_epochs", minimum=1)


def warn_shared(shared_name: Any, cancel_op: Any = None) -> None:
    """Warns that `shared_name` / `cancel_op` are ignored."""
    if shared_name is not None:
        warn(
            f"`shared_name` ({shared_name!r}) is ignored: a tf.data pipeline "
            "belongs to one iterator and is not shared across sessions.",
            "shared-name",
        )
    if cancel_op is not None:
        warn(
            "`cancel_op` is ignored: a tf.data iterator stops when the session "
            "closes; nothing needs cancelling.",
            "queue-runners",
        )


def repeat(dataset, num_epochs: int | None):
    """Repeats `dataset` `num_epochs` times (forever when None)."""
    return dataset.repeat() if num_epochs is None else dataset.repeat(num_epochs)
