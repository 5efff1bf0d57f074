"""Checkpoint look-ups, model_dir checks and warm-start settings."""

from __future__ import annotations

import collections
import os
import tempfile

import tensorflow as tf
from absl import logging
from tensorflow.python.saved_model import path_helpers


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
        variables_dir = path_helpers.get_variables_dir(path)
        if tf.io.gfile.exists(os.path.join(variables_dir, "variables.index")):
            logging.info("Warm-starting from a SavedModel")
            return WarmStartSettings(path_helpers.get_variables_path(path))
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
        logging.info("Warm-starting with WarmStartSettings: %s", settings)
        tf.compat.v1.train.warm_start(*settings)


def resolve_model_dir(model_dir) -> str:
    """Returns `model_dir` as a string, or a temporary directory for None.

    Raises:
      ValueError: if `model_dir` exists and is not a directory.
    """
    if model_dir is None:
        model_dir = tempfile.mkdtemp()
        logging.warning("Using temporary folder as model directory: %s", model_dir)
        return model_dir
    model_dir = os.fsdecode(model_dir)
    if tf.io.gfile.exists(model_dir) and not tf.io.gfile.isdir(model_dir):
        raise ValueError(
            f"`model_dir` ({model_dir!r}) is a file, not a directory; pass a "
            "directory (new or holding checkpoints) for the model."
        )
    return model_dir


def latest_checkpoint(model_dir: str) -> str | None:
    """Path of the latest checkpoint in `model_dir`, or None."""
    return tf.train.latest_checkpoint(model_dir)


def checkpoint_or_latest(checkpoint_path: str | None, model_dir: str, purpose: str):
    """`checkpoint_path`, else the latest in `model_dir`, else None (logged)."""
    checkpoint_path = checkpoint_path or latest_checkpoint(model_dir)
    if not checkpoint_path:
        logging.info(
            "Could not find trained model in model_dir: %s, running "
            "initialization to %s.",
            model_dir,
            purpose,
        )
    return checkpoint_path


def global_step_in(model_dir: str) -> int:
    """The global step of the latest checkpoint in `model_dir`; 0 without one."""
    path = latest_checkpoint(model_dir)
    if not path:
        return 0
    try:
        reader = tf.train.load_checkpoint(path)
        return int(reader.get_tensor(tf.compat.v1.GraphKeys.GLOBAL_STEP))
    except (tf.errors.NotFoundError, ValueError):
        return 0


def require_checkpoint(model_dir: str) -> str:
    """The latest checkpoint path; raises ValueError when there is none."""
    path = latest_checkpoint(model_dir)
    if not path:
        raise ValueError(
            f"Could not find trained model in model_dir: {model_dir}. Train "
            "first, or point `model_dir` at a directory with checkpoints."
        )
    return path
