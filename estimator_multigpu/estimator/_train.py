"""`Estimator.train`: build the training graph and run it in a monitored session."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import tensorflow as tf

from estimator_multigpu import _model_fn, _tf_internals, per_device
from estimator_multigpu.estimator import (
    _checkpoints,
    _cluster,
    _damaged,
    _finite_saver,
    _hooks,
    _input_fn,
    _lock,
    _model_fn_args,
    _summaries,
)
from estimator_multigpu.estimator._spec import ModeKeys

_HOOKS_MESSAGE = "Hooks must be a SessionRunHook, given: {!r}"
SPEC_HOOKS_MESSAGE = "All hooks must be `SessionRunHook` instances, given: {!r}"


def check_hooks(hooks, argument: str = "hooks", message: str = _HOOKS_MESSAGE):
    """Returns `hooks` as a list; raises TypeError for a non-hook.

    Args:
      message: tf.estimator's text for a non-hook (Estimator methods and
        specs word it differently); our hint follows it.
    """
    hooks = as_list(hooks, tf.compat.v1.train.SessionRunHook, argument)
    for hook in hooks:
        if not isinstance(hook, tf.compat.v1.train.SessionRunHook):
            raise TypeError(
                message.format(hook)
                + f" (`{argument}` takes e.g. emg.estimator.LoggingTensorHook)."
            )
    return hooks


_LISTENERS_MESSAGE = (
    "saving_listeners should be a list of CheckpointSaverListener, given: {!r}"
)
SPEC_LISTENERS_MESSAGE = (
    "All saving_listeners must be `CheckpointSaverListener` instances, given: {!r}"
)


def check_listeners(listeners, message: str = _LISTENERS_MESSAGE) -> list:
    """Returns `listeners` as a list; raises TypeError for a non-listener."""
    listener_type = tf.compat.v1.train.CheckpointSaverListener
    listeners = as_list(listeners, listener_type, "saving_listeners")
    for listener in listeners:
        if not isinstance(listener, listener_type):
            raise TypeError(
                message.format(listener) + " (saving_listeners must be a list of "
                "CheckpointSaverListener, e.g. emg.estimator.CheckpointSaverListener"
                " subclasses)."
            )
    return listeners


def as_list(values, item_type: type, argument: str) -> list:
    """`values` (an iterable of `item_type`, or None) as a list.

    Raises:
      TypeError: for a single `item_type` or anything else not iterable.
    """
    if values is None:
        return []
    if isinstance(values, item_type):
        raise TypeError(
            f"`{argument}` must be a list of {item_type.__name__}; received a "
            f"single {type(values).__name__}. Pass it in a list: "
            f"{argument}=[{type(values).__name__}(...)]."
        )
    try:
        return list(values)
    except TypeError:
        raise TypeError(
            f"`{argument}` must be a list of {item_type.__name__}; received {values!r}."
        ) from None


def check_steps(steps, max_steps) -> tuple[int | None, int | None]:
    """`steps` and `max_steps` as ints (integral numpy or float values too).

    Raises:
      ValueError: for both given, or a value that is not > 0.
      TypeError: for a value that is not an integral number.
    """
    if steps is not None and max_steps is not None:
        raise ValueError(
            f"Can not provide both steps ({steps}) and max_steps ({max_steps}): "
            "`steps` adds to the current global step, `max_steps` is absolute; "
            "pass one of them."
        )
    steps = as_step_count(steps, "steps")
    max_steps = as_step_count(max_steps, "max_steps")
    return steps, max_steps


def as_step_count(value, name: str) -> int | None:
    """`value` as a positive int, as tf.estimator accepts it (None passes)."""
    if value is None:
        return None
    number = _integral(value)
    if number is None:
        raise TypeError(
            f"`{name}` must be an int (or an integral float / numpy integer); "
            f"received {value!r} of type {type(value).__name__}."
        )
    if number <= 0:
        raise ValueError(f"Must specify {name} > 0, given: {number}")
    return number


def _integral(value) -> int | None:
    """`value` as an int when it is an integral number (not a bool), else None."""
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return int(value)
    return None


@dataclasses.dataclass(frozen=True)
class Placement:
    """Where a training session runs: by default, in this process alone.

    Attributes:
      master: the session target: `''` in process, or this task's server
        (`grpc://host:port`) on a cluster.
      is_chief: whether this task initialises and writes checkpoints and
        summaries (and holds the training lock of `model_dir`).
      in_cluster: training is one task of a cluster (`train_and_evaluate`).
      device_fn: places the graph's ops (a `replica_device_setter` on a
        cluster); None: the RunConfig's `device_fn`.
      hooks_fn: called once the model is built; returns more hooks for the
        session (e.g. `SyncReplicasOptimizer`'s).
      stop_grace_period_secs: how long the session waits for its threads
        when it stops.
      session_config: the session's `ConfigProto`; None: the RunConfig's.
    """

    master: str = ""
    is_chief: bool = True
    in_cluster: bool = False
    device_fn: Callable | None = None
    hooks_fn: Callable[[], list] = list
    stop_grace_period_secs: int = 120
    session_config: tf.compat.v1.ConfigProto | None = None


LOCAL = Placement()


def train(
    estimator,
    model: _model_fn_args.BoundModel,
    input_fn: Callable,
    hooks: Sequence | None = None,
    steps: int | None = None,
    max_steps: int | None = None,
    saving_listeners: Sequence | None = None,
    placement: Placement = LOCAL,
) -> Any:
    """Trains `estimator`'s `model`; see `Estimator.train`.

    Holds the training lock of `model_dir` while it runs (see `lock`), and
    first removes what interrupted checkpoint saves left there. On a cluster
    (`placement.in_cluster`) only the chief does.

    Returns:
      The loss of the last step, or None when no step ran.

    Raises:
      lock.ModelDirLockedError: if another process trains in `model_dir`.
    """
    if not placement.in_cluster:
        _cluster.check_trainable_here(estimator.config)
    steps, max_steps = check_steps(steps, max_steps)
    hooks = check_hooks(hooks)
    saving_listeners = check_listeners(saving_listeners)
    _input_fn.verify_input_fn(input_fn)
    model_dir = estimator.model_dir
    if max_steps is not None:
        if max_steps <= _checkpoints.global_step_in(model_dir):
            tf.get_logger().info("Skipping training since max_steps has already saved.")
            return None
    if steps is not None or max_steps is not None:
        hooks.append(tf.compat.v1.train.StopAtStepHook(steps, max_steps))
    with _lock_if_chief(model_dir, placement) as holder:
        if holder is not None:
            _checkpoints.remove_interrupted_saves(model_dir)
        device_fn = placement.device_fn or estimator.config.device_fn
        with tf.Graph().as_default() as graph, graph.device(device_fn):
            loss = _build_and_run(
                estimator, model, input_fn, hooks, saving_listeners, placement
            )
    tf.get_logger().info("Loss for final step: %s.", loss)
    return loss


def _lock_if_chief(model_dir: str, placement: Placement):
    """The training lock of `model_dir`; a cluster's other workers take none."""
    if placement.is_chief:
        return _lock.hold(model_dir)
    return contextlib.nullcontext(None)


def _build_and_run(estimator, model, input_fn, hooks, saving_listeners, placement):
    config = estimator.config
    tf.compat.v1.random.set_random_seed(config.tf_random_seed)
    global_step = tf.compat.v1.train.create_global_step()
    step_read = _tf_internals.get_or_create_global_step_read()
    result = _input_fn.call_input_fn(input_fn, ModeKeys.TRAIN, estimator.params, config)
    features, labels, input_hooks = _input_fn.parse_input_fn_result(result, input_fn)
    # The hooks fetch `step_read` beside the train_op: the model_fn's ops (its
    # global step increment) wait for it, so each step reads the value before
    # its own increment (else two steps can read one value, and
    # StepCounterHook warns that the global step has not been increased).
    with _model_fn.explain_non_scalar_loss(), tf.control_dependencies([step_read]):
        spec = model.call(features, labels, ModeKeys.TRAIN)
    _model_fn.check_scalar_loss(spec.loss, "the model_fn's loss")
    scaffold = per_device.merge_into_scaffold(spec.scaffold)
    if not tf.train.latest_checkpoint(estimator.model_dir):
        _checkpoints.maybe_warm_start(model.warm_start_settings)
    _add_loss_summary(spec.loss)
    worker_hooks = input_hooks + hooks + _default_hooks(spec, global_step, config)
    worker_hooks += placement.hooks_fn()
    logs_examples = config.log_step_count_steps and config.log_examples_per_sec
    if logs_examples and placement.is_chief:
        worker_hooks.append(
            _hooks.ExampleCounterHook(
                config.log_step_count_steps,
                estimator.model_dir,
                _hooks.batch_size_of(features),
            )
        )
    _add_default_saver(config)
    chief_hooks = _chief_hooks(spec, worker_hooks, scaffold, config, saving_listeners)
    session = _session(estimator, scaffold, worker_hooks, chief_hooks, spec, placement)
    return _run_loop(session, spec, input_fn)


def _add_loss_summary(loss: tf.Tensor) -> None:
    existing = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.SUMMARIES)
    if not any(s.op.name == "loss" for s in existing):
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
    saver = _finite_saver.FiniteSaver(  # NaN variables never become the latest.
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
        _tf_internals.add_saving_listener(saver_hook, listener)


def _session(estimator, scaffold, worker_hooks, chief_hooks, spec, placement):
    """A MonitoredTrainingSession, restored from the latest checkpoint if any."""
    config = estimator.config
    if placement.is_chief:
        _summaries.writer(estimator.model_dir)  # Before the hooks ask for one.
    with _damaged.explain_restore_errors(_damaged.state_checkpoint(config.model_dir)):
        return tf.compat.v1.train.MonitoredTrainingSession(
            master=placement.master,
            is_chief=placement.is_chief,
            stop_grace_period_secs=placement.stop_grace_period_secs,
            checkpoint_dir=estimator.model_dir,
            scaffold=scaffold,
            hooks=worker_hooks,
            chief_only_hooks=tuple(chief_hooks) + tuple(spec.training_chief_hooks),
            save_checkpoint_secs=0,  # A CheckpointSaverHook saves.
            save_summaries_steps=config.save_summary_steps,
            config=placement.session_config or config.session_config,
            max_wait_secs=config.session_creation_timeout_secs,
            log_step_count_steps=_session_step_count_steps(config),
            save_graph_def=config.checkpoint_save_graph_def,
        )


def _session_step_count_steps(config) -> int | None:
    """The session's own step counter, unless ours (with examples/sec) runs."""
    if config.log_examples_per_sec:
        return None
    return config.log_step_count_steps


def _run_loop(session, spec, input_fn):
    """Runs `train_op` until a hook stops the session or the input ends."""
    loss, steps = None, 0
    fetches = [spec.train_op, spec.loss]
    with session:
        while not session.should_stop():
            _, loss = session.run(fetches)
            steps += 1  # Only once the step ran: the input may end at once.
    if steps == 0:
        tf.get_logger().warning(
            "Training with estimator made no steps. Perhaps input is empty or "
            "misspecified: input_fn %s gave no batch.",
            _input_fn.name_of(input_fn),
        )
    return loss
