"""Merges the towers' EstimatorSpecs into one spec for the global batch."""

from __future__ import annotations

from collections.abc import Sequence

import tensorflow as tf

from estimator_multigpu import _tf_internals, per_device
from estimator_multigpu._model_fn import EstimatorSpec, ModeKeys
from estimator_multigpu.towers import (
    _empty,
    _losses,
    _metrics,
)


def concat(tensors: Sequence[tf.Tensor], counts: Sequence | None = None) -> tf.Tensor:
    """Concatenates tower outputs `[shard_size, ...]` into `[batch_size, ...]`.

    Scalars (no batch dimension) are taken from tower 0. With `counts`
    (`counts[t]` = tower t's examples), the output of a tower that ran on a
    stand-in example is cut back to its `counts[t]` (zero) examples.
    """
    tensors = [tf.convert_to_tensor(t) for t in tensors]
    if tensors[0].shape.rank == 0:
        return tensors[0]
    if counts is not None:
        tensors = [_empty.trim(t, c) for t, c in zip(tensors, counts)]
    return tf.concat(tensors, axis=0)


def concat_nest(values: Sequence, counts: Sequence | None = None) -> object:
    """Concatenates a tensor or dict of tensors, key by key (see `concat`)."""
    if isinstance(values[0], dict):
        return {key: concat([v[key] for v in values], counts) for key in values[0]}
    return concat(values, counts)


def _concat_export_output(outputs: Sequence, counts: Sequence) -> object:
    """The towers' `ExportOutput`s joined into one of the same class."""
    export_output = _tf_internals.export_output()
    first = outputs[0]
    if isinstance(first, export_output.ClassificationOutput):
        scores = (
            None
            if first.scores is None
            else concat([o.scores for o in outputs], counts)
        )
        classes = (
            None
            if first.classes is None
            else concat([o.classes for o in outputs], counts)
        )
        return export_output.ClassificationOutput(scores=scores, classes=classes)
    if isinstance(first, export_output.RegressionOutput):
        return export_output.RegressionOutput(
            concat([o.value for o in outputs], counts)
        )
    if isinstance(first, export_output.PredictOutput):
        return export_output.PredictOutput(
            concat_nest([o.outputs for o in outputs], counts)
        )
    raise TypeError(
        f"Cannot merge export output {type(first).__name__} across towers; use "
        "PredictOutput, ClassificationOutput or RegressionOutput."
    )


def _export_outputs(towers: Sequence) -> dict | None:
    first = towers[0].spec.export_outputs
    if not first:
        return first
    counts = _counts(towers)
    return {
        key: _concat_export_output([t.spec.export_outputs[key] for t in towers], counts)
        for key in first
    }


def _counts(towers: Sequence) -> list:
    return [t.context.count for t in towers]


def _loss(towers: Sequence) -> tf.Tensor | None:
    if towers[0].spec.loss is None:
        return None
    with tf.name_scope("merge_tower_losses"):
        shares = [_losses.scale_loss(t.spec.loss, t.context) for t in towers]
        return tf.add_n(shares, name="loss")


def _train_op(towers: Sequence, updates: Sequence[tf.Operation]) -> tf.Operation:
    """Tower 0's train_op, the optimizer updates and tower 0's UPDATE_OPS."""
    first = towers[0]
    update_ops = first.owned[tf.compat.v1.GraphKeys.UPDATE_OPS]
    parts = [first.spec.train_op, *updates, *update_ops]
    return tf.group(*[p for p in parts if p is not None], name="train_op")


def _scaffold(towers: Sequence, merge_locals: Sequence) -> tf.compat.v1.train.Scaffold:
    """Tower 0's scaffold; its own local_init_op also initialises the input
    iterators, the local variables (metrics) of the other towers and those
    the metric merge created."""
    scaffold = per_device.merge_into_scaffold(towers[0].spec.scaffold)
    later = [v for t in towers[1:] for v in t.local_variables] + list(merge_locals)
    if scaffold is None or scaffold.local_init_op is None or not later:
        return scaffold
    local_init = tf.group(
        scaffold.local_init_op, tf.compat.v1.variables_initializer(later)
    )
    return tf.compat.v1.train.Scaffold(
        copy_from_scaffold=scaffold, local_init_op=local_init
    )


def merge_specs(
    towers: Sequence, mode: str, updates: Sequence, host: str
) -> EstimatorSpec:
    """The spec of the replicated model_fn.

    Args:
      towers: the built towers, in device order.
      mode: a `ModeKeys` value.
      updates: the optimizer update ops (TRAIN).
      host: device for the concatenations and the summed loss.

    Returns:
      An `EstimatorSpec`: loss over the global batch; predictions and export
      outputs concatenated in global-batch order; merged metrics; tower 0's
      hooks, and its scaffold with input initializers merged in.
    """
    first = towers[0].spec
    with tf.device(host):
        loss = _loss(towers)
        predictions = first.predictions
        if predictions is not None and (
            not isinstance(predictions, dict) or predictions
        ):
            predictions = concat_nest(
                [t.spec.predictions for t in towers], _counts(towers)
            )
        export_outputs = _export_outputs(towers) if mode == ModeKeys.PREDICT else None
        eval_metric_ops, merge_locals = (
            _metrics.merge_metrics(towers) if mode == ModeKeys.EVAL else (None, [])
        )
    train_op = _train_op(towers, updates) if mode == ModeKeys.TRAIN else None
    return EstimatorSpec(
        mode=mode,
        predictions=predictions,
        loss=loss,
        train_op=train_op,
        eval_metric_ops=eval_metric_ops,
        export_outputs=export_outputs,
        training_chief_hooks=first.training_chief_hooks,
        training_hooks=first.training_hooks,
        scaffold=_scaffold(towers, merge_locals),
        evaluation_hooks=first.evaluation_hooks,
        prediction_hooks=first.prediction_hooks,
    )
