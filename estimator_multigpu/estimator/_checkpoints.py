"""Checkpoint look-ups, model_dir checks and warm-start settings."""

from __future__ import annotations

import collections
import os
import re
import tempfile

import tensorflow as tf

from estimator_multigpu.estimator import _damaged

# What an interrupted save leaves: the sharded saver's `<prefix>-<step>_temp/`
# of `part-*` files, TensorFlow's bundle writer's `<file>.tempstate<uint64>`
# (in that folder, or beside the checkpoint for an unsharded saver), and the
# temporary file of the `checkpoint` state update.
_TEMPSTATE = r"(\.tempstate\d+)?"
_TEMP_DIR = re.compile(r".+-\d+_temp(_[0-9a-f]{32})?")
_TEMP_PART = re.compile(r"part-\d+(-of-\d+)?(\.index|\.data-\d+-of-\d+)?" + _TEMPSTATE)
_TEMP_STATE = re.compile(r"checkpoint\.tmp[0-9a-f]{32}")
_TEMP_BUNDLE_FILE = re.compile(r".+-\d+\.(index|data-\d+-of-\d+)\.tempstate\d+")


class WarmStartSettings(
    collections.namedtuple(
        "WarmStartSettings",
        [
            "ckpt_to_initialize_from",
            "vars_to_warm_start",
            "var_name_to_vocab_info",
            "var_name_to_prev_var_name",
        ],
    )
):
    """Settings for warm-starting, as `tf.estimator.WarmStartSettings`.

    Fields are the arguments of `tf.compat.v1.train.warm_start`; a string
    `vars_to_warm_start` regex matches trainable variables only.

    Attributes:
      ckpt_to_initialize_from: a checkpoint file or a folder holding one.
      vars_to_warm_start: a regex (trainable variables only), a list of
        variable names or regexes, or None for none.
      var_name_to_vocab_info: `{variable name: tf.compat.v1.train.VocabInfo}`
        for embeddings whose vocabulary changed.
      var_name_to_prev_var_name: `{variable name: its name in the
        checkpoint}` for renamed variables.

    Raises:
      ValueError: for an empty `ckpt_to_initialize_from`.
    """

    def __new__(
        cls,
        ckpt_to_initialize_from,
        vars_to_warm_start=".*",
        var_name_to_vocab_info=None,
        var_name_to_prev_var_name=None,
    ):
        if not ckpt_to_initialize_from:
            raise ValueError(
                "`ckpt_to_initialize_from` must be a checkpoint path or "
                f"directory; received {ckpt_to_initialize_from!r}."
            )
        return super().__new__(
            cls,
            os.fspath(ckpt_to_initialize_from),
            vars_to_warm_start,
            var_name_to_vocab_info or {},
            var_name_to_prev_var_name or {},
        )


def warm_start_settings(warm_start_from) -> WarmStartSettings | None:
    """Normalises `warm_start_from` (path, SavedModel dir or settings).

    Raises:
      ValueError: for anything else.
    """
    if warm_start_from is None:
        return None
    if isinstance(warm_start_from, (str, bytes, os.PathLike)):
        path = os.fsdecode(warm_start_from)
        variables_dir = os.path.join(path, tf.saved_model.VARIABLES_DIRECTORY)
        if tf.io.gfile.exists(os.path.join(variables_dir, "variables.index")):
            tf.get_logger().info("Warm-starting from a SavedModel")
            variables = os.path.join(variables_dir, tf.saved_model.VARIABLES_FILENAME)
            return WarmStartSettings(variables)
        return WarmStartSettings(path)
    if hasattr(warm_start_from, "ckpt_to_initialize_from"):  # Also tf.estimator's.
        return WarmStartSettings(*warm_start_from)
    raise ValueError(
        "warm_start_from must be a string or a WarmStartSettings, instead got "
        f"{type(warm_start_from)}."
    )


def maybe_warm_start(settings: WarmStartSettings | None) -> None:
    """Adds the warm-start initialisers to the default graph."""
    if settings is not None:
        tf.get_logger().info("Warm-starting with WarmStartSettings: %s", settings)
        tf.compat.v1.train.warm_start(*settings)


def as_path(value, argument: str) -> str | None:
    """`value` as a `str` path (None stays None).

    Raises:
      TypeError: for anything but a str, bytes or os.PathLike path.
    """
    if value is None:
        return None
    if not isinstance(value, (str, bytes, os.PathLike)):
        raise TypeError(
            f"`{argument}` must be a path (a str or os.PathLike); received "
            f"{value!r} of type {type(value).__name__}."
        )
    return os.fsdecode(value)


def resolve_model_dir(model_dir) -> str:
    """Returns `model_dir` as a string, or a temporary directory for None.

    Raises:
      ValueError: if `model_dir` exists and is not a directory.
    """
    if model_dir is None:
        model_dir = tempfile.mkdtemp()
        tf.get_logger().warning(
            "Using temporary folder as model directory: %s", model_dir
        )
        return model_dir
    model_dir = as_path(model_dir, "model_dir")
    if tf.io.gfile.exists(model_dir) and not tf.io.gfile.isdir(model_dir):
        raise ValueError(
            f"`model_dir` ({model_dir!r}) is a file, not a directory; pass a "
            "directory (new or holding checkpoints) for the model."
        )
    return model_dir


def latest_checkpoint(model_dir: str) -> str | None:
    """Path of the latest checkpoint in `model_dir`, or None."""
    return tf.train.latest_checkpoint(model_dir)


def existing_latest(model_dir: str) -> str | None:
    """The latest checkpoint in `model_dir`, or None if there is none.

    Raises:
      tf.errors.DataLossError: if the `checkpoint` file of `model_dir` names
        a checkpoint whose files are missing (rather than silently starting
        from initial values, as `tf.train.latest_checkpoint` would).
    """
    path = latest_checkpoint(model_dir)
    if not path:
        named = _damaged.state_checkpoint(model_dir)
        if named:
            _damaged.check_readable(named)
    return path


def given_checkpoint(checkpoint_path) -> str | None:
    """A `checkpoint_path` argument, checked to name an existing checkpoint.

    Raises:
      TypeError: if it is not a path.
      ValueError: if no checkpoint has that prefix.
    """
    path = as_path(checkpoint_path, "checkpoint_path")
    if not path or tf.io.gfile.exists(path + ".index") or tf.io.gfile.exists(path):
        return path
    found = _damaged.earlier_checkpoints(path)
    hint = (
        f"checkpoints there: {', '.join(found)}"
        if found
        else "pass a checkpoint prefix such as '<model_dir>/model.ckpt-1000'"
    )
    raise ValueError(
        f"`checkpoint_path` ({path!r}) is not a checkpoint: {path}.index does "
        f"not exist; {hint}."
    )


def checkpoint_or_latest(checkpoint_path: str | None, model_dir: str, purpose: str):
    """`checkpoint_path`, else the latest in `model_dir`, else None (logged).

    Raises:
      tf.errors.DataLossError: as `existing_latest`.
    """
    checkpoint_path = given_checkpoint(checkpoint_path)
    checkpoint_path = checkpoint_path or existing_latest(model_dir)
    if not checkpoint_path:
        tf.get_logger().info(
            "Could not find trained model in model_dir: %s, running "
            "initialization to %s.",
            model_dir,
            purpose,
        )
    return checkpoint_path


def global_step_in(model_dir: str) -> int:
    """The global step of the latest checkpoint in `model_dir`; 0 without one.

    Raises:
      tf.errors.DataLossError: if that checkpoint cannot be read.
    """
    path = latest_checkpoint(model_dir)
    if not path:
        return 0
    reader = load_checkpoint(path)
    if not reader.has_tensor(tf.compat.v1.GraphKeys.GLOBAL_STEP):
        return 0
    with _damaged.explain_restore_errors(path):
        return int(reader.get_tensor(tf.compat.v1.GraphKeys.GLOBAL_STEP))


def load_checkpoint(path: str):
    """`tf.train.load_checkpoint`, with a clear error for a damaged checkpoint."""
    with _damaged.explain_restore_errors(path):
        return tf.train.load_checkpoint(path)


def require_checkpoint(model_dir: str) -> str:
    """The latest checkpoint path; raises ValueError when there is none."""
    path = latest_checkpoint(model_dir)
    if not path:
        raise ValueError(
            f"Could not find trained model in model_dir: {model_dir}. Train "
            "first, or point `model_dir` at a directory with checkpoints."
        )
    return path


def remove_interrupted_saves(model_dir: str) -> None:
    """Deletes what checkpoint saves killed mid-way left in `model_dir`.

    Only call this while holding the model_dir's training lock: a save in
    progress looks the same.
    """
    try:
        names = tf.io.gfile.listdir(model_dir)
    except tf.errors.NotFoundError:
        return
    for name in names:
        path = os.path.join(model_dir, name.rstrip("/"))
        if _is_interrupted_save(path):
            tf.get_logger().info(
                "Removing %s, left by a checkpoint save that was interrupted.", path
            )
            if tf.io.gfile.isdir(path):
                tf.io.gfile.rmtree(path)
            else:
                tf.io.gfile.remove(path)


def _is_interrupted_save(path: str) -> bool:
    name = os.path.basename(path)
    if _TEMP_STATE.fullmatch(name) or _TEMP_BUNDLE_FILE.fullmatch(name):
        return not tf.io.gfile.isdir(path)
    if not _TEMP_DIR.fullmatch(name) or not tf.io.gfile.isdir(path):
        return False
    parts = [p.rstrip("/") for p in tf.io.gfile.listdir(path)]
    return all(_TEMP_PART.fullmatch(p) for p in parts)
