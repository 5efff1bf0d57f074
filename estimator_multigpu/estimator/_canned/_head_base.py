# Copyright 2018 The TensorFlow Authors. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
"""The heads base: labels, weights, loss and the EstimatorSpec of each mode.

Ported from tensorflow_estimator's `head/base_head.py` and `canned/head.py`
(TF 2.15). A head turns logits into predictions, a loss, metrics and export
outputs. Metrics are `tf.compat.v1.metrics` pairs, so towers merge them
exactly; the v2 heads' AUC of the precision-recall curve interpolates as
Keras's `AUC` did, the v1 heads' sums trapezoids as `tf.compat.v1.metrics.auc`.
"""

from __future__ import annotations

import tensorflow as tf

from estimator_multigpu import towers
from estimator_multigpu.estimator import export
from estimator_multigpu.estimator._canned import _feature_layer, _optimizers
from estimator_multigpu.estimator._spec import EstimatorSpec, ModeKeys

SUM_OVER_BATCH_SIZE = "sum_over_batch_size"
SUM = "sum"
V1_SUM = tf.compat.v1.losses.Reduction.SUM
V1_SUM_OVER_BATCH_SIZE = tf.compat.v1.losses.Reduction.SUM_OVER_BATCH_SIZE
_V2_REDUCTIONS = {SUM_OVER_BATCH_SIZE: V1_SUM_OVER_BATCH_SIZE, SUM: V1_SUM}
_V1_REDUCTIONS = tuple(r for r in tf.compat.v1.losses.Reduction.all() if r != "none")
_SUMMED = (V1_SUM,)
SERVING_DEFAULT = tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY


def check_loss_reduction(loss_reduction: str, v1: bool) -> str:
    """`loss_reduction` as a `tf.compat.v1.losses.Reduction` value.

    Raises:
      ValueError: for a reduction the head's form does not take.
    """
    if v1 and loss_reduction in _V1_REDUCTIONS:
        return loss_reduction
    if not v1 and loss_reduction in _V2_REDUCTIONS:
        return _V2_REDUCTIONS[loss_reduction]
    allowed = _V1_REDUCTIONS if v1 else tuple(_V2_REDUCTIONS)
    raise ValueError(
        f"Invalid loss_reduction: {loss_reduction!r}; it must be one of "
        f"{allowed} (tf.compat.v1.losses.Reduction for the v1 estimators, "
        "tf.losses.Reduction SUM or SUM_OVER_BATCH_SIZE for the v2 ones)."
    )


# Reductions dividing by a sum over the weights: towers weighing their losses
# by example counts would be inexact, so `weighted_loss` rescales each.
_BY_WEIGHTS = (
    tf.compat.v1.losses.Reduction.MEAN,
    tf.compat.v1.losses.Reduction.SUM_BY_NONZERO_WEIGHTS,
)


def weighted_loss(unweighted, weights_, reduction: str) -> tf.Tensor:
    """`tf.compat.v1.losses.compute_weighted_loss`, exact across towers.

    Under `emg.replicate_model_fn` (loss_reduction 'mean') tower t's loss
    weighs `count_t / N`. For MEAN and SUM_BY_NONZERO_WEIGHTS the global
    loss is `sum_t num_t / sum_t den_t` (`num_t` the tower's weighted sum,
    `den_t` its weight sum or count of nonzero weights), so tower t's
    `num_t / den_t` is scaled by `(den_t / count_t) / (D / N)`, with `D / N`
    from `emg.towers.all_towers_mean` (weights only: no gradient flows
    through it). On one device the factor is exactly 1.
    """
    loss = tf.compat.v1.losses.compute_weighted_loss(
        unweighted, weights_, reduction=reduction
    )
    if reduction not in _BY_WEIGHTS:
        return loss
    weights_ = tf.cast(weights_, loss.dtype) * tf.ones_like(unweighted)
    if reduction == tf.compat.v1.losses.Reduction.MEAN:
        denominator = tf.reduce_sum(weights_)
    else:
        denominator = tf.reduce_sum(tf.cast(tf.not_equal(weights_, 0), loss.dtype))
    count = tf.cast(tf.shape(unweighted)[0], loss.dtype)
    per_example = tf.math.divide_no_nan(denominator, count)
    global_per_example = towers.all_towers_mean(per_example)
    scale = tf.math.divide_no_nan(per_example, global_per_example)
    return loss * tf.stop_gradient(scale)


def tower_reduction(loss_reduction: str) -> str:
    """How towers combine this loss: 'sum' for summed losses, else 'mean'."""
    return "sum" if loss_reduction in _SUMMED else "mean"


def weights(features, weight_column, logits) -> tf.Tensor | float:
    """The example weights `[batch_size, 1]`, or 1.0 without `weight_column`.

    Raises:
      ValueError: if `features` has no `weight_column`.
    """
    if weight_column is None:
        return 1.0
    key = weight_column if isinstance(weight_column, str) else weight_column.key
    if key not in features:
        raise ValueError(
            f"weight_column {key!r} is not in the features (keys: "
            f"{sorted(features)}); add it in the input_fn or drop weight_column."
        )
    value = tf.cast(features[key], tf.float32)
    if isinstance(value, tf.SparseTensor):
        value = tf.sparse.to_dense(value)
    if value.shape.rank == 1:
        value = tf.expand_dims(value, -1)
    return value * tf.ones_like(logits[:, :1])


def mean_metric(values, weights_, name: str):
    """`tf.compat.v1.metrics.mean` of `values` with broadcast `weights_`."""
    values = tf.cast(values, tf.float32)
    if not isinstance(weights_, float):
        weights_ = tf.broadcast_to(weights_, tf.shape(values))
    return tf.compat.v1.metrics.mean(values, weights=weights_, name=name)


def expand_labels(labels, logits_dimension: int):
    """Labels `[batch_size, logits_dimension]` from `[batch_size]` or that."""
    if isinstance(labels, tf.SparseTensor):
        labels = tf.sparse.to_dense(labels)
    labels = tf.convert_to_tensor(labels)
    if labels.shape.rank == 1:
        labels = tf.expand_dims(labels, -1)
    return labels


class Head:
    """What the canned estimators share: loss, train op and the spec.

    Subclasses give `logits_dimension`, `predictions(logits)`,
    `_labels(labels)`, `_unweighted_loss(labels, logits)`,
    `_metrics(labels, predictions, unweighted_loss, weights)` and
    `_export_outputs(predictions)`.
    """

    def __init__(self, weight_column, loss_reduction, name, v1, loss_fn=None):
        self._weight_column = weight_column
        self._loss_reduction = check_loss_reduction(loss_reduction, v1)
        self._name = name
        self._v1 = v1
        self._loss_fn = loss_fn

    @property
    def name(self):
        return self._name

    @property
    def loss_reduction(self) -> str:
        """The loss reduction, a `tf.compat.v1.losses.Reduction` value."""
        return self._loss_reduction

    def _key(self, key: str) -> str:
        return key if self._name is None else f"{key}/{self._name}"

    def unweighted_loss_and_weights(self, features, logits, labels):
        """`(loss [batch_size, d], weights)` for processed `labels`."""
        if self._loss_fn is not None:
            loss = self._loss_fn(labels=labels, logits=logits)
        else:
            loss = self._unweighted_loss(labels, logits)
        return loss, weights(features, self._weight_column, logits)

    def loss(
        self, labels, logits, features=None, mode=None, regularization_losses=None
    ):
        """The scalar training loss (regularization losses added)."""
        del mode
        labels = self._labels(labels)
        unweighted, weights_ = self.unweighted_loss_and_weights(
            features or {}, logits, labels
        )
        loss = weighted_loss(unweighted, weights_, self._loss_reduction)
        if regularization_losses:
            loss = loss + tf.add_n(list(regularization_losses))
        return loss

    def create_estimator_spec(
        self,
        features,
        mode,
        logits,
        labels=None,
        optimizer=None,
        trainable_variables=None,
        train_op_fn=None,
        update_ops=None,
        regularization_losses=None,
    ) -> EstimatorSpec:
        """The `EstimatorSpec` of `mode` for `logits` `[batch_size, d]`.

        Args:
          features: the input_fn's feature dict (for `weight_column`).
          mode: a `ModeKeys` value.
          logits: `[batch_size, logits_dimension]` float tensor.
          labels: the input_fn's labels (TRAIN and EVAL).
          optimizer: a `tf.compat.v1.train` or Keras legacy optimizer
            (TRAIN), applied through `emg.TowerOptimizer`.
          trainable_variables: the variables to train (default: all).
          train_op_fn: `fn(loss) -> train_op`, instead of `optimizer`.
          update_ops: ops the train op waits for (batch norm averages).
          regularization_losses: scalars added to the training loss.

        Raises:
          ValueError: in TRAIN mode without exactly one of `optimizer` and
            `train_op_fn`.
        """
        predictions = self.predictions(logits)
        if mode == ModeKeys.PREDICT:
            return EstimatorSpec(
                mode,
                predictions=predictions,
                export_outputs=self._export_outputs(predictions),
            )
        processed = self._labels(labels)
        unweighted, weights_ = self.unweighted_loss_and_weights(
            features, logits, processed
        )
        loss = weighted_loss(unweighted, weights_, self._loss_reduction)
        if regularization_losses:
            loss = loss + tf.add_n(list(regularization_losses))
        if mode == ModeKeys.EVAL:
            metrics = self._metrics(processed, predictions, unweighted, weights_)
            return EstimatorSpec(
                mode, predictions=predictions, loss=loss, eval_metric_ops=metrics
            )
        self._summaries(loss, unweighted, weights_)
        train_op = self._train_op(
            loss, optimizer, trainable_variables, train_op_fn, update_ops
        )
        return EstimatorSpec(
            mode, predictions=predictions, loss=loss, train_op=train_op
        )

    def _summaries(self, loss, unweighted, weights_) -> None:
        tf.compat.v1.summary.scalar(self._key("loss"), loss)
        if self._v1:
            mean = tf.compat.v1.losses.compute_weighted_loss(
                unweighted, weights_, reduction=tf.compat.v1.losses.Reduction.MEAN
            )
            tf.compat.v1.summary.scalar(self._key("average_loss"), mean)

    def _train_op(self, loss, optimizer, variables, train_op_fn, update_ops):
        if (optimizer is None) == (train_op_fn is None):
            raise ValueError(
                "train_op_fn and optimizer cannot both be set (or both be None); "
                f"received optimizer={optimizer!r}, train_op_fn={train_op_fn!r}."
            )
        untrained = {id(v) for v in _feature_layer.untrained_variables()}
        if variables is None and untrained:
            variables = [
                v for v in tf.compat.v1.trainable_variables() if id(v) not in untrained
            ]
        if optimizer is not None:
            if not isinstance(optimizer, tf.compat.v1.train.Optimizer):
                optimizer = _optimizers.KerasOptimizer(
                    _optimizers.get_optimizer_instance_v2(optimizer)
                )
            train_op = towers.TowerOptimizer(optimizer).minimize(
                loss, tf.compat.v1.train.get_global_step(), var_list=variables
            )
        else:
            train_op = train_op_fn(loss)
        update_ops = list(update_ops or [])
        update_ops += tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)
        if update_ops:
            train_op = tf.group(train_op, *update_ops)
        return train_op


def classification_outputs(
    predictions, with_regression: bool, classes_key: str = "all_classes"
) -> dict:
    """tf.estimator's export outputs of a classifier's `predictions`."""
    classification = export.ClassificationOutput(
        scores=predictions["probabilities"], classes=predictions[classes_key]
    )
    outputs = {
        SERVING_DEFAULT: classification,
        "classification": classification,
        "predict": export.PredictOutput(predictions),
    }
    if with_regression:
        outputs["regression"] = export.RegressionOutput(value=predictions["logistic"])
    return outputs
