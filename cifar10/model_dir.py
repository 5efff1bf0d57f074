"""Checks the trainer's model_dir before a graph is built: writable, trained, same model."""

from __future__ import annotations

import os
import re

import tensorflow as tf

from cifar10 import config as config_lib
from cifar10 import paths
from estimator_multigpu import estimator

_BLOCK = re.compile(r"^resnet/stage0/block(\d+)/")
_LOGITS_KERNEL = "resnet/dense/kernel"


def check(config: config_lib.TrainConfig, in_cluster: bool = False) -> None:
    """Checks `config.model_dir` for the run `config` asks for; creates nothing.

    Training needs a directory it can write to (or create) that no other
    process trains in; `eval_only` needs
    a checkpoint there (and writes its summaries under `eval/`), since evaluating an untrained model reports a
    meaningless accuracy. A checkpoint already there must be of the same
    ResNet depth and number of classes, or resuming fails deep in TensorFlow.

    Args:
      config: the run's configuration.
      in_cluster: this is one task of a TF_CONFIG cluster, whose tasks share
        `model_dir` (the chief holds its training lock).

    Raises:
      ValueError: naming the directory and what to pass instead.
      estimator.ModelDirLockedError: if another process trains there.
    """
    if config.eval_only:
        paths.check_directory(config.model_dir, "model_dir")
        _require_checkpoint(config.model_dir)
    paths.check_writable(config.model_dir, "model_dir")  # Evaluation writes too.
    if not (config.eval_only or in_cluster):
        estimator.check_model_dir_unlocked(config.model_dir)  # Before slow work.
    if os.path.isdir(config.model_dir):
        checkpoint = tf.train.latest_checkpoint(config.model_dir)
        if checkpoint:
            _check_same_model(config, checkpoint)


def trained_step(model_dir: str) -> tuple[str, int] | None:
    """The latest checkpoint in `model_dir` and the global step it holds.

    Returns:
      `(checkpoint, step)`, or None when there is no checkpoint, or its global
      step cannot be read (a damaged checkpoint: restoring it reports that).
    """
    if not os.path.isdir(model_dir):
        return None
    checkpoint = tf.train.latest_checkpoint(model_dir)
    if not checkpoint:
        return None
    try:
        step = tf.train.load_variable(checkpoint, "global_step")
    except (tf.errors.OpError, ValueError):
        return None
    return checkpoint, int(step)


def _require_checkpoint(model_dir: str) -> None:
    if os.path.isdir(model_dir) and tf.train.latest_checkpoint(model_dir):
        return
    state = "exists but" if os.path.isdir(model_dir) else "does not exist, so it"
    raise ValueError(
        f"`eval_only` (--eval_only) evaluates a trained model, but there is "
        f"no checkpoint in {model_dir} (the directory {state} holds none). "
        "Pass the --model_dir a training run wrote to, or train first "
        "(leave out --eval_only)."
    )


def checkpoint_model(checkpoint: str) -> tuple[int | None, int | None]:
    """The (ResNet depth, number of classes) a checkpoint was written by.

    Reads the variable names and shapes only. Either is None when the
    checkpoint has no such variables (it is not this trainer's model).
    """
    shapes = dict(tf.train.list_variables(checkpoint))
    blocks = [int(m.group(1)) for name in shapes if (m := _BLOCK.match(name))]
    depth = 6 * (max(blocks) + 1) + 2 if blocks else None
    kernel = shapes.get(_LOGITS_KERNEL)
    return depth, (kernel[-1] if kernel else None)


def _check_same_model(config: config_lib.TrainConfig, checkpoint: str) -> None:
    try:
        depth, classes = checkpoint_model(checkpoint)
    except tf.errors.OpError:
        return  # A damaged checkpoint: restoring it reports that.
    if depth is None or classes is None:
        return  # Not this trainer's model: restoring it reports what is missing.
    if (depth, classes) == (config.resnet_depth, config.num_classes):
        return
    label = f", --label={config.label}" if config.label else ""
    raise ValueError(
        f"`model_dir` {config.model_dir!r} holds a checkpoint of a ResNet-{depth} "
        f"with {classes} classes ({checkpoint}), but the flags ask for a "
        f"ResNet-{config.resnet_depth} with {config.num_classes} classes "
        f"(--dataset={config.dataset}{label}). Pass --resnet_depth={depth} and the "
        "dataset it was trained on to resume or evaluate it, or a new --model_dir."
    )
