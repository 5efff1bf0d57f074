"""`replicate_model_fn`: runs one model_fn as towers on several devices."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import tensorflow as tf

from estimator_multigpu import _model_fn, per_device
from estimator_multigpu import devices as devices_lib
from estimator_multigpu._model_fn import ModeKeys
from estimator_multigpu.towers import (
    _build,
    _diagnostics,
    _losses,
    _merge,
    _optimizer,
    _placement,
    _session_check,
    _split,
)

_REDUCTIONS = ("mean", "sum")


def _check_model_fn(model_fn: Callable) -> None:
    if not callable(model_fn):
        raise TypeError(
            f"`model_fn` must be a function (features, labels, mode, params, "
            f"config) -> EstimatorSpec; received {model_fn!r}."
        )
    if "features" not in _model_fn.fn_args(model_fn):
        raise ValueError(
            f"`model_fn` {model_fn!r} takes no `features` argument; a model_fn "
            "takes (features, labels, mode, params, config), features first."
        )


def check_reduction(loss_reduction: str) -> str:
    if loss_reduction not in _REDUCTIONS:
        raise ValueError(
            f"`loss_reduction` must be 'mean' or 'sum'; received {loss_reduction!r}. "
            "'mean' averages the loss over the global batch, 'sum' adds the "
            "towers' losses."
        )
    return loss_reduction


def _check_not_listed_shards(value, name: str, devices: Sequence[str]) -> None:
    """Rejects a list of one value per device where a PerDevice belongs.

    Splitting such a list would give every tower a slice of every device's
    values instead of its own.
    """
    if isinstance(value, list) and len(value) == len(devices) > 1:
        raise TypeError(
            f"`{name}` is a list of {len(value)} values, one per device "
            f"({len(devices)} devices); replicate_model_fn would split each of "
            "them across the towers. If they are per-device shards, return "
            "emg.PerDevice(values, devices) (the emg.inputs builders do); if "
            "they are several inputs of one model, return them as a dict or tuple."
        )


def _shards(features, labels, devices: Sequence[str], remainder: str):
    """`([(features, labels)] per tower, counts)`: PerDevice as is, else split."""
    features, labels = (
        _split.lists_as_tensors(features),
        _split.lists_as_tensors(labels),
    )
    _check_not_listed_shards(features, "features", devices)
    _check_not_listed_shards(labels, "labels", devices)
    if per_device.is_per_device(features):
        per_device.check_devices(features, devices, "features")
        if labels is None:
            labels_values = [None] * len(devices)
        elif per_device.is_per_device(labels):
            per_device.check_devices(labels, devices, "labels")
            labels_values = list(labels.values)
        else:
            raise TypeError(
                "`features` is a PerDevice but `labels` is a "
                f"{type(labels).__name__}; an input_fn must return both per device."
            )
        return list(zip(features.values, labels_values)), list(features.counts)
    if per_device.is_per_device(labels):
        raise TypeError(
            "`labels` is a PerDevice but `features` is not; an input_fn must "
            "return both per device."
        )
    with tf.device(_placement.host(devices[0])):
        features, labels, counts = _split.split(
            features, labels, len(devices), remainder
        )
    return list(zip(features, labels)), counts


def _single_device(model_fn: Callable, device: str) -> Callable:
    """The model_fn, run as is on `device` (a PerDevice of one shard unwrapped).

    Pinned like each of N towers, whatever the device: '/cpu:0' on a GPU host
    runs on the CPU, not wherever default placement puts it.
    """

    def single_device_model_fn(features, labels, mode, params=None, config=None):
        if per_device.is_per_device(features):
            ((features, labels),) = _shards(features, labels, [device], "uneven")[0]
        with tf.device(device), _model_fn.explain_non_scalar_loss():
            spec = _model_fn.call_model_fn(
                model_fn, features, labels, mode, params, config
            )
        _model_fn.check_scalar_loss(spec.loss, "the model_fn's loss")
        scaffold = per_device.merge_into_scaffold(spec.scaffold)
        return spec if scaffold is spec.scaffold else spec._replace(scaffold=scaffold)

    return single_device_model_fn


def replicate_model_fn(
    model_fn: Callable,
    devices: Sequence[str] | None = None,
    loss_reduction: str = "mean",
    variable_device: str = "auto",
    remainder: str = "uneven",
) -> Callable:
    """Replicates a model_fn over several devices, as towers.

    The returned model_fn calls `model_fn` once per device ("tower") on that
    device's share of the batch and merges the results into one
    `EstimatorSpec` for the global batch. With one device it runs `model_fn`
    as is, pinned to that device.

    Input: `PerDevice` features/labels (from `emg.inputs` builders) are used
    as they are, with their example counts. Other features and labels (a
    tensor or dict of tensors `[batch_size, ...]`) are split along the batch;
    see `remainder`. A `tf.SparseTensor` is split by rows (`tf.sparse.slice`,
    as tf.contrib's replicate_model_fn did): each tower gets its examples'
    rows, renumbered from 0. A list of plain values (`labels=[0, 1, 1, 0]`)
    is one tensor, as a single-device model_fn would make of it. A tower with no examples contributes nothing (its loss
    and gradients are masked to exactly 0).

    Variables: tower 0 creates them under the names a single-device run
    uses, so checkpoints move between 1 and N devices; the other towers
    reuse them (create variables with `tf.compat.v1.get_variable`). Only the
    other towers' ops are under `tower_<i>/` name scopes. `params` and
    `config` reach every tower unchanged.

    Loss and gradients: with `'mean'`, tower t's loss weighs its share of
    the examples, so the reported and optimised loss is the mean over the
    global batch and an N-tower step equals the single-device step on the
    same batch; regularization losses added to every tower's loss count
    once. With `'sum'` the towers' losses add up, and towers after the first
    drop the REGULARIZATION_LOSSES they add, which count once. Optimizers:
    a `tf.compat.v1.train` optimizer's `minimize`/`apply_gradients` called in
    the model_fn acts as if wrapped in `emg.TowerOptimizer` (wrap it yourself
    to clip or transform the aggregated gradients): gradients are summed over
    towers once per variable on its device, then clipped/transformed and
    applied once. Pairs computed with `tf.gradients` instead of
    `compute_gradients` are weighted by the tower's share of the examples.
    The update waits for every tower's loss, so the reported loss is the
    loss before the step's update, also for reference variables (v1
    behaviour) and terms no gradient needs (an L2 penalty).
    Keras optimizers and hand-made `assign` updates raise an error naming
    the line.

    Batch norm and UPDATE_OPS: each tower sees only its own entries of the
    UPDATE_OPS, LOSSES and SUMMARIES collections, and only tower 0's are kept:
    tower 0's UPDATE_OPS are grouped into the train op, so moving averages
    update once per step, from tower 0's sub-batch. In training each tower
    normalises with its own sub-batch statistics (no synchronised batch norm),
    as in every tower-style multi-GPU setup.

    What is merged and what is tower 0's: the spec's `loss` (the global-batch
    loss), the gradients and update, `eval_metric_ops` made with
    `tf.compat.v1.metrics` (totals and counts summed over towers each step),
    `predictions` and `export_outputs` (concatenated in global-batch order)
    cover all towers. Everything else comes from tower 0 and sees only its
    examples: `training_hooks`, `training_chief_hooks`, `evaluation_hooks`,
    `prediction_hooks`, the `scaffold` (input iterator initializers are merged
    into a user scaffold's `local_init_op`), summaries (the SUMMARIES
    collection), and any tensor the model_fn computes itself, such as the
    loss a `LoggingTensorHook` logs. To log or summarise the value of a
    per-tower scalar over the whole global batch, wrap it:
    `tf.compat.v1.summary.scalar("loss", emg.towers.all_towers_mean(loss))`.

    Args:
      model_fn: `model_fn(features, labels, mode, params, config)` returning
        an `EstimatorSpec`; it may omit the arguments it does not use.
      devices: device names; default `emg.devices.resolve()`.
      loss_reduction: `'mean'` or `'sum'`, see above.
      variable_device: `'auto'` (the host CPU with several GPUs, else the
        device), `'cpu'`, `'gpu'` (variables spread over `devices` by size) or
        a device name.
      remainder: for split batches that do not divide by the device count:
        `'uneven'` (default: first towers get one example more), `'drop'` or
        `'error'`; the vocabulary (and default) of the input builders, see
        `estimator_multigpu._sharding`.

    Returns:
      A model_fn `(features, labels, mode, params=None, config=None)`.

    Raises:
      TypeError, ValueError: for bad arguments, before any graph is built.
    """
    _check_model_fn(model_fn)
    devices = devices_lib.resolve(devices=devices)
    loss_reduction = check_reduction(loss_reduction)
    variable_device = _placement.check_variable_device(variable_device)
    remainder = _split.check_remainder(remainder)
    if len(devices) == 1:
        return _single_device(model_fn, devices[0])
    tf.get_logger().info("Replicating the model_fn over %s.", devices)
    warned = []

    def replicated_model_fn(features, labels, mode, params=None, config=None):
        _session_check.warn_once(warned, config, devices)
        shards, counts = _shards(features, labels, devices, remainder)
        with tf.device(_placement.host(devices[0])):
            weights = _losses.tower_weights(counts, loss_reduction)
        placer = _placement.variable_placer(variable_device, devices)
        towers = _build.build_towers(
            model_fn,
            shards,
            devices,
            _build.RunArgs(mode=mode, params=params, config=config),
            weights,
            counts,
            loss_reduction,
            placer,
        )
        _diagnostics.check_train_ops(towers, mode)
        updates = []
        if mode == ModeKeys.TRAIN:
            updates = _optimizer.apply_tower_gradients(
                towers[0].context.calls, [tower.spec.loss for tower in towers]
            )
        return _merge.merge_specs(towers, mode, updates, _placement.host(devices[0]))

    return replicated_model_fn
