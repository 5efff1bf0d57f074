"""`minimize`: the tower loop of compat.v1 training scripts, in one call."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import tensorflow as tf

from estimator_multigpu import devices as devices_lib
from estimator_multigpu import per_device
from estimator_multigpu._model_fn import EstimatorSpec, ModeKeys
from estimator_multigpu.towers import (
    _build,
    _context,
    _diagnostics,
    _losses,
    _merge,
    _optimizer,
    _placement,
    _replicate,
    _split,
)


def _check_inputs(inputs: Any) -> tuple:
    if not isinstance(inputs, (tuple, list)) or not inputs:
        raise TypeError(
            "`inputs` must be a non-empty tuple or list of tensors [batch, ...] "
            "(split along the batch) or of emg.PerDevice values (e.g. "
            "input_fn() of emg.inputs.sharded_input_fn, used as they are); "
            f"received {inputs!r:.200}. For one tensor pass (tensor,)."
        )
    kinds = {per_device.is_per_device(x) for x in inputs}
    if len(kinds) > 1:
        raise TypeError(
            "`inputs` mixes emg.PerDevice values and plain tensors; pass all of "
            "them per device (the emg.inputs builders return both features and "
            "labels per device) or all of them as global batches."
        )
    return tuple(inputs)


def check_optimizer(optimizer: Any) -> _optimizer.TowerOptimizer:
    """`optimizer` as a `TowerOptimizer`; TypeError for other objects."""
    if isinstance(optimizer, _optimizer.TowerOptimizer):
        return optimizer
    if not isinstance(optimizer, tf.compat.v1.train.Optimizer):
        raise TypeError(
            "`optimizer` must be a tf.compat.v1.train.Optimizer (or an "
            "emg.TowerOptimizer wrapping one), e.g. "
            f"tf.compat.v1.train.MomentumOptimizer(0.1, 0.9); received {optimizer!r} "
            f"of type {type(optimizer).__name__}."
        )
    return _optimizer.TowerOptimizer(optimizer)


def _check_tower_fn(tower_fn: Any) -> None:
    if not callable(tower_fn):
        raise TypeError(
            "`tower_fn` must be a function tower_fn(*shard) -> scalar loss, called "
            f"once per device; received {tower_fn!r}."
        )


def check_global_step(global_step: Any) -> None:
    """TypeError unless `global_step` is None or a tf.Variable."""
    if global_step is not None and not isinstance(global_step, tf.Variable):
        raise TypeError(
            "`global_step` must be None or the global step variable, e.g. "
            "tf.compat.v1.train.get_or_create_global_step(); received "
            f"{global_step!r:.200}."
        )


def check_var_list(var_list: Any) -> None:
    """Checks a `var_list` argument: None, a callable or tf.Variables."""
    if var_list is not None and not callable(var_list):
        _check_variables(var_list, "`var_list`")


def _check_variables(var_list: Any, what: str) -> list:
    """`var_list` as a list, every entry a tf.Variable."""
    if not isinstance(var_list, (list, tuple)) or not var_list:
        raise TypeError(
            f"{what} must be a non-empty list or tuple of tf.Variable, as for "
            "Optimizer.minimize (or `var_list` a function returning one, called "
            "once the towers' variables exist, e.g. `lambda: "
            "tf.compat.v1.trainable_variables('logits')`); received "
            f"{var_list!r:.200}."
        )
    for index, value in enumerate(var_list):
        if not isinstance(value, tf.Variable):
            raise TypeError(
                f"{what}[{index}] must be a tf.Variable (e.g. from "
                "tf.compat.v1.trainable_variables()); received "
                f"{value!r:.200} of type {type(value).__name__}."
            )
    return list(var_list)


def chosen_variables(var_list: Any) -> list | None:
    """The variables to update, once the tower's variables exist."""
    if var_list is None or not callable(var_list):
        return var_list
    return _check_variables(var_list(), "`var_list()`")


def _devices(inputs: tuple, devices: Sequence[str] | None) -> list[str]:
    if per_device.is_per_device(inputs[0]) and devices is None:
        devices = list(inputs[0].devices)
    devices = devices_lib.resolve(devices=devices)
    for index, value in enumerate(inputs):
        if per_device.is_per_device(value):
            per_device.check_devices(value, devices, f"inputs[{index}]")
    return devices


def _shards(inputs: tuple, devices: Sequence[str], remainder: str):
    """`([shard tuple] per tower, counts)`: PerDevice as is, else split."""
    if per_device.is_per_device(inputs[0]):
        shards = [tuple(x.values[t] for x in inputs) for t in range(len(devices))]
        return shards, list(inputs[0].counts)
    with tf.device(_placement.host(devices[0])):
        shards, _, counts = _split.split(inputs, None, len(devices), remainder)
    return [tuple(s) for s in shards], counts


def update_ops_since(start: int) -> list:
    """The UPDATE_OPS added since the collection held `start` entries."""
    return tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)[start:]


def minimize_after(update_ops: list, optimizer, loss, global_step, var_list):
    """`optimizer.minimize`, its update waiting for the tower's `update_ops`.

    As a single-device script's `with tf.control_dependencies(update_ops):
    train_op = optimizer.minimize(loss)`: an update op that reads a variable
    (an average of the weights) reads it before the step's update, not
    whenever the scheduler runs it. Later towers see no UPDATE_OPS (tower 0's
    run once), so only tower 0's update waits.
    """
    with tf.control_dependencies(update_ops):
        return optimizer.minimize(loss, global_step, var_list)


def _tower_model_fn(tower_fn: Callable, optimizer, global_step, var_list) -> Callable:
    """A model_fn for `build_towers`: one tower's loss and minimize call."""

    def model_fn(features, labels, mode):
        start = len(update_ops_since(0))
        loss = tf.convert_to_tensor(tower_fn(*features))
        if loss.shape.rank != 0:
            raise ValueError(
                f"`tower_fn` must return the tower's scalar mean loss; it returned "
                f"{loss.name} of shape {loss.shape}. Reduce it, e.g. "
                "tf.reduce_mean(per_example_loss)."
            )
        train_op = minimize_after(
            update_ops_since(start),
            optimizer,
            loss,
            global_step,
            chosen_variables(var_list),
        )
        return EstimatorSpec(mode, loss=loss, train_op=train_op)

    return model_fn


def minimize(
    tower_fn: Callable[..., tf.Tensor],
    inputs: Sequence[Any],
    optimizer: tf.compat.v1.train.Optimizer,
    devices: Sequence[str] | None = None,
    global_step: tf.Variable | None = None,
    loss_reduction: str = "mean",
    remainder: str = "uneven",
    var_list: Sequence[tf.Variable] | Callable[[], Sequence] | None = None,
) -> tuple[tf.Tensor, tf.Operation]:
    """Builds one training step over towers, for compat.v1 training scripts.

    The successor of the hand-written tower loop (`for i in range(N): with
    tf.device(...): loss = tower_loss(...); grads.append(
    opt.compute_gradients(loss))` ... `average_gradients` ...
    `apply_gradients`), for scripts that run a `MonitoredTrainingSession`
    and no Estimator. It runs on the machinery of `emg.replicate_model_fn`:

    - `tower_fn(*shard)` is called once per device, on that device, with the
      device's share of `inputs`, and returns that tower's scalar mean loss.
    - Variables are shared: tower 0 creates them under the names a
      single-device run uses, later towers reuse them (create them with
      `tf.compat.v1.get_variable` or `tf.compat.v1.layers`).
    - A tower without examples (a short last batch) runs on one stand-in
      example whose loss and gradients are masked out exactly.
    - Gradients are weighted by each tower's share of the examples, summed
      once per variable on the variable's device, and applied once; with
      `loss_reduction='mean'` the step equals the single-device step on the
      same global batch.

    Args:
      tower_fn: `tower_fn(*shard) -> loss`, the tower's scalar mean loss of
        its `shard` (one tensor per entry of `inputs`).
      inputs: a tuple or list of tensors `[batch_size, ...]`, split along the
        batch (see `remainder`), or of `emg.PerDevice` values (e.g. what an
        `emg.inputs.sharded_input_fn` input_fn returns), used as they are.
      optimizer: a `tf.compat.v1.train.Optimizer`, or an `emg.TowerOptimizer`
        for clipping or transforming the aggregated gradients.
      devices: device names; default the devices of `PerDevice` inputs, else
        `emg.devices.resolve()`.
      global_step: passed to `optimizer.apply_gradients`; None: not
        incremented.
      loss_reduction: `'mean'` (towers weigh their share of the examples) or
        `'sum'` (tower losses add up).
      remainder: for split batches that do not divide by the device count:
        `'uneven'` (default), `'drop'` or `'error'`, as in
        `estimator_multigpu._sharding`.
      var_list: the variables to update, as for `Optimizer.minimize`: None
        (every trainable variable), a list or tuple of `tf.Variable`, or a
        function returning one, called in each tower after `tower_fn` (the
        variables `tower_fn` creates exist then), e.g. `lambda:
        tf.compat.v1.trainable_variables("logits")`.

    Returns:
      `(loss, train_op)`: the loss over the global batch (a scalar tensor),
      and the op that applies the update and runs tower 0's UPDATE_OPS
      (batch-norm moving averages) before it, as `with
      tf.control_dependencies(update_ops): optimizer.minimize(loss)` does on
      one device.

    Raises:
      TypeError, ValueError: for bad arguments, before anything runs.
    """
    _check_tower_fn(tower_fn)
    inputs = _check_inputs(inputs)
    optimizer = check_optimizer(optimizer)
    check_global_step(global_step)
    check_var_list(var_list)
    loss_reduction = _replicate.check_reduction(loss_reduction)
    remainder = _split.check_remainder(remainder)
    devices = _devices(inputs, devices)
    shards, counts = _shards(inputs, devices, remainder)
    with tf.device(_placement.host(devices[0])):
        weights = _losses.tower_weights(counts, loss_reduction)
    towers = _build.build_towers(
        _tower_model_fn(tower_fn, optimizer, global_step, var_list),
        [(shard, None) for shard in shards],
        devices,
        _build.RunArgs(mode=ModeKeys.TRAIN),
        weights,
        counts,
        loss_reduction,
        _placement.variable_placer("auto", devices),
    )
    _diagnostics.check_train_ops(towers, ModeKeys.TRAIN)
    updates = _optimizer.apply_tower_gradients(
        towers[0].context.calls, [tower.spec.loss for tower in towers]
    )
    spec = _merge.merge_specs(
        towers, ModeKeys.TRAIN, updates, _placement.host(devices[0])
    )
    return spec.loss, spec.train_op


def tower_index() -> int:
    """The index of the tower being built (0-based); 0 outside towers.

    For work a hand-written tower loop did in one tower only (`if i == 0:
    accuracy = ...`): inside `emg.towers.minimize`'s `tower_fn` (or a model_fn
    under `emg.replicate_model_fn`), `if emg.towers.tower_index() == 0:`.
    """
    current = _context.current()
    return 0 if current is None else current.index
