"""`Estimator.train`: build the training graph and run it in a monitored session."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import tensorflow as tf
from absl import logging
from tensorflow.python.training import training_util

from estimator_multigpu import per_device
from estimator_multigpu.estimator import checkpoints
from estimator_multigpu.estimator import hooks as hooks_lib
from estimator_multigpu.estimator import input_fn as input_fn_lib
from estimator_multigpu.estimator.spec import ModeKeys


def check_hooks(hooks, argument: str = "hooks") -> list:
    """Returns `hooks` as a list; raises TypeError for a non-hook."""
    hooks = list(hooks or [])
    for hook in hooks:
        if not isinstance(hook, tf.compat.v1.train.SessionRunHook):
            raise TypeError(
                f"`{argument}` must be SessionRunHook instances (e.g. "
                f"tf.compat.v1.train.LoggingTensorHook), given: {hook!r}."
            )
    return hooks


def check_listeners(listeners) -> list:
    """Returns `listeners` as a list; raises TypeError for a non-listener."""
    listeners = list(listeners or [])
    for listener in listeners:
        if not isinstance(listener, tf.compat.v1.train.CheckpointSaverListener):
            raise TypeError(
                "saving_listeners must be a list of CheckpointSaverListener, "
                f"given: {listener!r}."
            )
    return listeners


def check_steps(steps: int | None, max_steps: int | None) -> None:
    """Raises ValueError/TypeError for bad `steps` / `max_steps`."""
    if steps is not None and max_steps is not None:
        raise ValueError(
            f"Can not provide both steps ({steps}) and max_steps ({max_steps}): "
            "`steps` adds to the current global step, `max_steps` is absolute; "
            "pass one of them."
        )
    for name, value in (("steps", steps), ("max_steps", max_steps)):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"`{name}` must be an int; received {value!r}.")
        if value <= 0:
            raise ValueError(f"Must specify {name} > 0, given: {value}")


def train(
    estimator,
    input_fn: Callable,
    hooks: Sequence | None = None,
    steps: int | None = None,
    max_steps: int | None = None,
    saving_listeners: Sequence | None = None,
) -> Any:
    """Trains `estimator`'s model; see `Estimator.train`.

    Returns:
      The loss of the last step, or None when no step ran.
    """
    check_steps(steps, max_steps)
    hooks = check_hooks(hooks)
    saving_listeners = check_listeners(saving_listeners)
    input_fn_lib.verify_input_fn(input_fn)
    if max_steps is not None:
        if max_steps <= checkpoints.global_step_in(estimator.model_dir):
            logging.info("Skipping training since max_steps has already saved.")
            return None
    if steps is not None or max_steps is not None:
        hooks.append(tf.compat.v1.train.StopAtStepHook(steps, max_steps))
    with tf.Graph().as_default() as graph, graph.device(estimator.config.device_fn):
        loss = _build_and_run(estimator, input_fn, hooks, saving_listeners)
    logging.info("Loss for final step: %s.", loss)
    return loss


def _build_and_run(estimator, input_fn, hooks, saving_listeners):
    config = estimator.config
    tf.compat.v1.random.set_random_seed(config.tf_random_seed)
    global_step = tf.compat.v1.train.create_global_step()
    training_util._get_or_create_global_step_read()
    result = input_fn_lib.call_input_fn(
        input_fn, ModeKeys.TRAIN, estimator.params, config
    )
    features, labels, input_hooks = input_fn_lib.parse_input_fn_result(result)
    spec = estimator._call_model_fn(features, labels, ModeKeys.TRAIN)
    scaffold = per_device.merge_into_scaffold(spec.scaffold)
    if not tf.train.latest_checkpoint(estimator.model_dir):
        checkpoints.maybe_warm_start(estimator._warm_start_settings)
    _add_loss_summary(spec.loss)
    worker_hooks = input_hooks + hooks + _default_hooks(spec, global_step, config)
    if config.log_step_count_steps:
        worker_hooks.append(
            hooks_lib.StepCounterHook(
                config.log_step_count_steps,
                estimator.model_dir,
                hooks_lib.batch_size_of(features),
            )
        )
    _add_default_saver(config)
    chief_hooks = _chief_hooks(spec, worker_hooks, scaffold, config, saving_listeners)
    return _run_loop(estimator, spec, scaffold, worker_hooks, chief_hooks)


def _add_loss_summary(loss: tf.Tensor) -> None:
    summaries = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.SUMMARIES)
    if not any(s.op.name == "loss" for s in summaries):
        tf.compat.v1.summary.scalar("loss", loss)
    tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.LOSSES, loss)


def _default_hooks(spec, global_step, config) -> list:
    """NaN check, loss/step logging and the model_fn's training hooks."""
    hooks = [tf.compat.v1.train.NanTensorHook(spec.loss)]
    if config.log_step_count_steps is not None:
        hooks.append(
            tf.compat.v1.train.LoggingTensorHook(
                {"loss": spec.loss, "step": global_step},
                every_n_iter=config.log_step_count_steps,
            )
        )
    return hooks + list(spec.training_hooks)


def _add_default_saver(config) -> None:
    if tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.SAVERS):
        return
    saver = tf.compat.v1.train.Saver(
        sharded=True,
        max_to_keep=config.keep_checkpoint_max,
        keep_checkpoint_every_n_hours=config.keep_checkpoint_every_n_hours,
        defer_build=True,
        save_relative_paths=True,
    )
    tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.SAVERS, saver)


def _chief_hooks(spec, worker_hooks, scaffold, config, saving_listeners) -> list:
    """A CheckpointSaverHook (unless one exists) carrying `saving_listeners`."""
    all_hooks = worker_hooks + list(spec.training_chief_hooks)
    savers = [
        h for h in all_hooks if isinstance(h, tf.compat.v1.train.CheckpointSaverHook)
    ]
    chief_hooks = []
    if not savers and (config.save_checkpoints_secs or config.save_checkpoints_steps):
        chief_hooks = [
            tf.compat.v1.train.CheckpointSaverHook(
                config.model_dir,
                save_secs=config.save_checkpoints_secs,
                save_steps=config.save_checkpoints_steps,
                scaffold=scaffold,
                save_graph_def=config.checkpoint_save_graph_def,
            )
        ]
        savers = chief_hooks
    if saving_listeners and not savers:
        raise ValueError(
            "There should be a CheckpointSaverHook to use saving_listeners. "
            "Please set one of the RunConfig.save_checkpoints_steps or "
            "RunConfig.save_checkpoints_secs."
        )
    _attach_listeners(savers[0] if savers else None, saving_listeners)
    return chief_hooks


def _attach_listeners(saver_hook, saving_listeners) -> None:
    for listener in saving_listeners:
        if listener not in saver_hook._listeners:
            saver_hook._listeners.append(listener)


def _run_loop(estimator, spec, scaffold, worker_hooks, chief_hooks):
    """Runs `train_op` until a hook stops the session or the input ends."""
    config = estimator.config
    session = tf.compat.v1.train.MonitoredTrainingSession(
        checkpoint_dir=estimator.model_dir,
        scaffold=scaffold,
        hooks=worker_hooks,
        chief_only_hooks=tuple(chief_hooks) + tuple(spec.training_chief_hooks),
        save_checkpoint_secs=0,  # A CheckpointSaverHook saves.
        save_summaries_steps=config.save_summary_steps,
        config=config.session_config,
        max_wait_secs=config.session_creation_timeout_secs,
        log_step_count_steps=None,  # Our StepCounterHook logs.
        save_graph_def=config.checkpoint_save_graph_def,
    )
    loss, steps = None, 0
    fetches = [spec.train_op, spec.loss]
    with session:
        while not session.should_stop():
            steps += 1
            _, loss = session.run(fetches)
    if steps == 0:
        logging.warning(
            "Training with estimator made no steps. Perhaps input is empty or "
            "misspecified."
        )
    return loss
