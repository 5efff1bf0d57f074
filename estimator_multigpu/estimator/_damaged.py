"""Damaged checkpoints: an error that names the file and the earlier checkpoints.

Restoring a truncated or corrupt checkpoint fails deep in TensorFlow
(`OutOfRangeError: Read less bytes than requested [[{{node save/RestoreV2}}]]`).
When a restore fails, the checkpoint is read tensor by tensor: if that fails
too, a `DataLossError` says which checkpoint is damaged and how to use an
earlier one; otherwise the original error stands (e.g. a variable that the
checkpoint lacks).
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator

import tensorflow as tf

_READ_ERRORS = (tf.errors.OpError, IndexError, ValueError)
_STEP = re.compile(r"-(\d+)$")


def state_checkpoint(model_dir: str) -> str | None:
    """The checkpoint the `checkpoint` file of `model_dir` names, even if absent."""
    try:
        state = tf.train.get_checkpoint_state(model_dir)
    except _READ_ERRORS:
        return None
    if state is None or not state.model_checkpoint_path:
        return None
    path = state.model_checkpoint_path
    return (
        path if os.path.isabs(path) or "://" in path else os.path.join(model_dir, path)
    )


def check_readable(checkpoint_path: str) -> None:
    """Reads every tensor of `checkpoint_path`.

    Raises:
      tf.errors.DataLossError: naming the checkpoint and the earlier ones, if
        a file is missing, truncated or corrupt.
    """
    try:
        reader = tf.train.load_checkpoint(checkpoint_path)
        for name in reader.get_variable_to_dtype_map():
            reader.get_tensor(name)
    except _READ_ERRORS as error:
        raise damaged_error(checkpoint_path, error) from error


@contextlib.contextmanager
def explain_restore_errors(checkpoint_path: str | None) -> Iterator[None]:
    """Turns a failure to restore a damaged `checkpoint_path` into a clear error.

    Raises:
      tf.errors.DataLossError: if the block fails and the checkpoint cannot
        be read; the block's own error otherwise.
    """
    try:
        yield
    except _READ_ERRORS:
        if checkpoint_path:
            check_readable(checkpoint_path)
        raise


def damaged_error(checkpoint_path: str, error: Exception) -> tf.errors.DataLossError:
    """A DataLossError naming `checkpoint_path`, the cause and the earlier checkpoints."""
    cause = str(error).strip().splitlines()[0] if str(error).strip() else ""
    message = (
        f"Checkpoint {checkpoint_path} cannot be read ({type(error).__name__}: "
        f"{cause}): its files are missing, truncated or corrupt, e.g. after a "
        "run was killed while saving, a full disk or an incomplete copy. "
    )
    return tf.errors.DataLossError(
        None, None, message + _earlier_advice(checkpoint_path)
    )


def _earlier_advice(checkpoint_path: str) -> str:
    directory = os.path.dirname(checkpoint_path)
    earlier = earlier_checkpoints(checkpoint_path)
    if not earlier:
        return (
            f"There is no earlier checkpoint in {directory}: restore the files "
            "from a copy, or train from scratch in a new model_dir."
        )
    names = ", ".join(os.path.basename(p) for p in earlier)
    previous = earlier[0]
    return (
        f"Earlier checkpoints in {directory} (newest first): {names}. To use "
        f"{os.path.basename(previous)}, pass checkpoint_path={previous!r} to "
        "evaluate, predict or export_saved_model; to resume training from it, "
        "make it the latest checkpoint: tf.compat.v1.train."
        f"update_checkpoint_state({directory!r}, {previous!r})."
    )


def earlier_checkpoints(checkpoint_path: str) -> list[str]:
    """Other checkpoints (with an index file) next to `checkpoint_path`, newest first."""
    directory = os.path.dirname(checkpoint_path)
    try:
        indexes = tf.io.gfile.glob(os.path.join(directory, "*.index"))
    except tf.errors.OpError:
        return []
    paths = [p[: -len(".index")] for p in indexes]
    paths = [p for p in paths if p != checkpoint_path]
    return sorted(paths, key=_step, reverse=True)


def _step(path: str) -> tuple[int, str]:
    match = _STEP.search(path)
    return (int(match.group(1)) if match else -1, path)
