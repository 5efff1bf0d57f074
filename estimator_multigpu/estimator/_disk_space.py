"""A checkpoint save on a full disk: its partial files removed, a short clear error.

TensorFlow reports `ENOSPC` as a `ResourceExhaustedError` whose message ends
with a hint about out-of-memory allocations, and the sharded saver leaves
its `<prefix>_temp/` folder behind. `removing_partial_save` turns that into
an error saying which checkpoint and folder, how much the save needs and how
much is free, and removes what the failed save wrote.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable, Iterator

import tensorflow as tf

NO_SPACE = "No space left on device"
_MIB = 2.0**20


class NoSpaceError(tf.errors.ResourceExhaustedError):
    """A checkpoint did not fit on the disk; nothing of it was left behind."""

    def __init__(self, message: str):
        super().__init__(None, None, message)


def is_no_space(error: BaseException) -> bool:
    """Whether `error` is TensorFlow's (or Python's) report of a full disk."""
    return NO_SPACE in str(error)


@contextlib.contextmanager
def removing_partial_save(
    prefix: str, needed_bytes: Callable[[], int], kept: str
) -> Iterator[None]:
    """Removes what a save of `prefix` wrote if the block fails.

    Args:
      prefix: the checkpoint being written, e.g. `model_dir/model.ckpt-10`.
      needed_bytes: returns about how much the save writes (called on failure).
      kept: what stays the latest, for the message.

    Raises:
      NoSpaceError: if the block fails for lack of disk space.
    """
    try:
        yield
    except (tf.errors.OpError, OSError) as error:
        remove_partial_save(prefix)
        if is_no_space(error):
            raise NoSpaceError(_message(prefix, needed_bytes(), kept)) from error
        raise


def remove_partial_save(prefix: str) -> None:
    """Deletes the temporary files of a save of `prefix` (never finished ones)."""
    directory, base = os.path.split(prefix)
    try:
        names = [n.rstrip("/") for n in tf.io.gfile.listdir(directory)]
    except tf.errors.OpError:
        return
    for name in names:
        ours = name.startswith(base + ".") and ".tempstate" in name
        if name == base + "_temp" or ours:
            path = os.path.join(directory, name)
            with contextlib.suppress(tf.errors.OpError):
                if tf.io.gfile.isdir(path):
                    tf.io.gfile.rmtree(path)
                else:
                    tf.io.gfile.remove(path)


def free_bytes(directory: str) -> int | None:
    """The space left on the disk of `directory`; None where it cannot be known."""
    if "://" in directory:
        return None
    try:
        return shutil.disk_usage(directory).free
    except OSError:
        return None


def _message(prefix: str, needed_bytes: int, kept: str) -> str:
    directory = os.path.dirname(prefix)
    free = free_bytes(directory)
    free = "" if free is None else f"; {free / _MIB:.1f} MiB is free in {directory}"
    return (
        f"{NO_SPACE}: checkpoint {prefix} was not written. It needs about "
        f"{needed_bytes / _MIB:.1f} MiB (its variables and graph){free}. {kept}. "
        "Free space there, or train into a model_dir on a larger disk."
    )
