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
"""tf.estimator's binary, multi-class, multi-label and regression heads.

Ported from tensorflow_estimator's `head/binary_class_head.py`,
`multi_class_head.py`, `multi_label_head.py` and `regression_head.py`
(TF 2.15), on the base in `_head_base`. `v1=True` gives the heads the v1
canned estimators used (`canned/head.py`): a `tf.compat.v1.losses.Reduction`
and trapezoidal AUCs.
"""

from __future__ import annotations

import tensorflow as tf

from estimator_multigpu.estimator import export
from estimator_multigpu.estimator._canned import _head_base
from estimator_multigpu.estimator._canned._head_base import (
    SERVING_DEFAULT,
    SUM_OVER_BATCH_SIZE,
    Head,
    mean_metric,
)


def _vocabulary_ids(labels, vocabulary):
    table = tf.compat.v1.lookup.index_table_from_tensor(
        vocabulary_list=tuple(vocabulary), name="class_id_lookup"
    )
    return table.lookup(labels)


def _class_strings(class_ids, vocabulary):
    if not vocabulary:
        return tf.strings.as_string(class_ids)
    table = tf.compat.v1.lookup.index_to_string_table_from_tensor(
        vocabulary_list=tuple(vocabulary), name="class_string_lookup"
    )
    return table.lookup(tf.cast(class_ids, tf.int64))


def _all_classes(logits, n_classes: int, vocabulary):
    batch_size = tf.shape(logits)[0]
    ids = tf.tile(tf.expand_dims(tf.range(n_classes), 0), [batch_size, 1])
    if vocabulary:
        names = tf.constant(list(vocabulary))
    else:
        names = tf.strings.as_string(tf.range(n_classes))
    return ids, tf.tile(tf.expand_dims(names, 0), [batch_size, 1])


def _check_vocabulary(label_vocabulary, n_classes: int) -> None:
    if label_vocabulary is None:
        return
    if not isinstance(label_vocabulary, (list, tuple)):
        raise ValueError(
            "label_vocabulary should be a list or a tuple. Given type: "
            f"{type(label_vocabulary)}"
        )
    if len(label_vocabulary) != n_classes:
        raise ValueError(
            f"label_vocabulary has {len(label_vocabulary)} entries "
            f"({list(label_vocabulary)}) but n_classes is {n_classes}; give one "
            "name per class."
        )


class BinaryClassHead(Head):
    """Binary classification: sigmoid cross entropy on one logit.

    Args:
      weight_column: a feature key (or numeric column) of example weights.
      thresholds: also report accuracy/precision/recall at these thresholds.
      label_vocabulary: the two class names, when labels are strings.
      loss_reduction: how the per-example losses are reduced.
      loss_fn: `fn(labels, logits) -> [batch_size, 1]` losses instead.
      name: suffix of the metric and summary keys.
      v1: the v1 estimators' head (tf.compat.v1.losses.Reduction values).
    """

    def __init__(
        self,
        weight_column=None,
        thresholds=None,
        label_vocabulary=None,
        loss_reduction=SUM_OVER_BATCH_SIZE,
        loss_fn=None,
        name=None,
        v1=False,
    ):
        super().__init__(weight_column, loss_reduction, name, v1, loss_fn)
        _check_vocabulary(label_vocabulary, 2)
        self._thresholds = tuple(thresholds or ())
        self._vocabulary = label_vocabulary

    @property
    def logits_dimension(self) -> int:
        return 1

    def _labels(self, labels):
        labels = _head_base.expand_labels(labels, 1)
        if self._vocabulary:
            labels = _vocabulary_ids(labels, self._vocabulary)
        return tf.cast(labels, tf.float32)

    def _unweighted_loss(self, labels, logits):
        return tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)

    def predictions(self, logits) -> dict:
        """logits, logistic, probabilities, class_ids, classes, all_class_ids/classes."""
        two_class = tf.concat([tf.zeros_like(logits), logits], axis=-1)
        class_ids = tf.expand_dims(tf.argmax(two_class, axis=-1), -1)
        all_ids, all_classes = _all_classes(logits, 2, self._vocabulary)
        return {
            "logits": logits,
            "logistic": tf.sigmoid(logits),
            "probabilities": tf.nn.softmax(two_class),
            "class_ids": class_ids,
            "classes": _class_strings(class_ids, self._vocabulary),
            "all_class_ids": all_ids,
            "all_classes": all_classes,
        }

    def _export_outputs(self, predictions) -> dict:
        return _head_base.classification_outputs(predictions, with_regression=True)

    def _metrics(self, labels, predictions, unweighted_loss, weights) -> dict:
        class_ids, logistic = predictions["class_ids"], predictions["logistic"]
        w = None if isinstance(weights, float) else weights
        label_mean = mean_metric(labels, weights, "label_mean")
        value, update = label_mean
        pr_method = "trapezoidal" if self._v1 else "careful_interpolation"
        metrics = {
            "accuracy": tf.compat.v1.metrics.accuracy(labels, class_ids, w),
            "precision": tf.compat.v1.metrics.precision(labels, class_ids, w),
            "recall": tf.compat.v1.metrics.recall(labels, class_ids, w),
            "prediction/mean": mean_metric(logistic, weights, "prediction_mean"),
            "label/mean": label_mean,
            "accuracy_baseline": (
                tf.maximum(value, 1.0 - value),
                tf.maximum(update, 1.0 - update),
            ),
            "auc": tf.compat.v1.metrics.auc(labels, logistic, w, curve="ROC"),
            "auc_precision_recall": tf.compat.v1.metrics.auc(
                labels, logistic, w, curve="PR", summation_method=pr_method
            ),
            "average_loss": mean_metric(unweighted_loss, weights, "average_loss"),
        }
        metrics.update(self._threshold_metrics(labels, logistic, w))
        return {self._key(k): v for k, v in metrics.items()}

    def _threshold_metrics(self, labels, logistic, w) -> dict:
        metrics = {}
        for threshold in self._thresholds:
            above = tf.cast(logistic >= threshold, tf.float32)
            metrics[f"accuracy/positive_threshold_{threshold:g}"] = (
                tf.compat.v1.metrics.accuracy(labels, above, w)
            )
            metrics[f"precision/positive_threshold_{threshold:g}"] = (
                tf.compat.v1.metrics.precision(labels, above, w)
            )
            metrics[f"recall/positive_threshold_{threshold:g}"] = (
                tf.compat.v1.metrics.recall(labels, above, w)
            )
        return metrics


class MultiClassHead(Head):
    """Multi-class classification: softmax cross entropy on `n_classes` logits.

    Args:
      n_classes: the number of classes, > 2.
      weight_column, label_vocabulary, loss_reduction, loss_fn, name, v1: as
        `BinaryClassHead`'s.
    """

    def __init__(
        self,
        n_classes,
        weight_column=None,
        label_vocabulary=None,
        loss_reduction=SUM_OVER_BATCH_SIZE,
        loss_fn=None,
        name=None,
        v1=False,
    ):
        if n_classes is None or n_classes <= 2:
            raise ValueError(
                f"n_classes must be > 2: {n_classes} (for 2 classes use "
                "BinaryClassHead)."
            )
        super().__init__(weight_column, loss_reduction, name, v1, loss_fn)
        _check_vocabulary(label_vocabulary, n_classes)
        self._n_classes = n_classes
        self._vocabulary = label_vocabulary

    @property
    def logits_dimension(self) -> int:
        return self._n_classes

    def _labels(self, labels):
        labels = _head_base.expand_labels(labels, 1)
        if self._vocabulary:
            return _vocabulary_ids(labels, self._vocabulary)
        return tf.cast(labels, tf.int64)

    def _unweighted_loss(self, labels, logits):
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=tf.squeeze(labels, -1), logits=logits
        )
        return tf.expand_dims(loss, -1)

    def predictions(self, logits) -> dict:
        """logits, probabilities, class_ids, classes, all_class_ids/classes."""
        class_ids = tf.expand_dims(tf.argmax(logits, axis=-1), -1)
        all_ids, all_classes = _all_classes(logits, self._n_classes, self._vocabulary)
        return {
            "logits": logits,
            "probabilities": tf.nn.softmax(logits),
            "class_ids": class_ids,
            "classes": _class_strings(class_ids, self._vocabulary),
            "all_class_ids": all_ids,
            "all_classes": all_classes,
        }

    def _export_outputs(self, predictions) -> dict:
        return _head_base.classification_outputs(predictions, with_regression=False)

    def _metrics(self, labels, predictions, unweighted_loss, weights) -> dict:
        w = None if isinstance(weights, float) else weights
        metrics = {
            "accuracy": tf.compat.v1.metrics.accuracy(
                labels, predictions["class_ids"], w
            ),
            "average_loss": mean_metric(unweighted_loss, weights, "average_loss"),
        }
        return {self._key(k): v for k, v in metrics.items()}


class RegressionHead(Head):
    """Regression: mean squared error on `label_dimension` outputs.

    Args:
      label_dimension: the number of regression targets per example.
      weight_column, loss_reduction, loss_fn, name, v1: as
        `BinaryClassHead`'s.
      inverse_link_fn: `fn(logits) -> predictions` (e.g. `tf.exp`).
    """

    def __init__(
        self,
        label_dimension=1,
        weight_column=None,
        loss_reduction=SUM_OVER_BATCH_SIZE,
        loss_fn=None,
        inverse_link_fn=None,
        name=None,
        v1=False,
    ):
        if label_dimension < 1:
            raise ValueError(
                f"Invalid label_dimension {label_dimension}; it must be >= 1."
            )
        super().__init__(weight_column, loss_reduction, name, v1, loss_fn)
        self._dimension = label_dimension
        self._inverse_link_fn = inverse_link_fn

    @property
    def logits_dimension(self) -> int:
        return self._dimension

    def _labels(self, labels):
        return tf.cast(_head_base.expand_labels(labels, self._dimension), tf.float32)

    def _unweighted_loss(self, labels, logits):
        return tf.math.squared_difference(logits, labels)

    def predictions(self, logits) -> dict:
        """predictions (and logits with an `inverse_link_fn`)."""
        if self._inverse_link_fn is None:
            return {"predictions": logits}
        return {"predictions": self._inverse_link_fn(logits), "logits": logits}

    def _export_outputs(self, predictions) -> dict:
        regression = export.RegressionOutput(value=predictions["predictions"])
        return {
            SERVING_DEFAULT: regression,
            "regression": regression,
            "predict": export.PredictOutput(predictions),
        }

    def _metrics(self, labels, predictions, unweighted_loss, weights) -> dict:
        metrics = {
            "average_loss": mean_metric(unweighted_loss, weights, "average_loss"),
            "prediction/mean": mean_metric(
                predictions["predictions"], weights, "prediction_mean"
            ),
            "label/mean": mean_metric(labels, weights, "label_mean"),
        }
        return {self._key(k): v for k, v in metrics.items()}


class MultiLabelHead(Head):
    """Multi-label classification: a sigmoid cross entropy per class.

    Labels are `[batch_size, n_classes]` multi-hot ints (or a SparseTensor of
    class ids).

    Args:
      n_classes: the number of classes, >= 2.
      weight_column, label_vocabulary, loss_reduction, loss_fn, name, v1: as
        `BinaryClassHead`'s.
      thresholds, classes_for_class_based_metrics: accepted; their per-class
        and per-threshold metrics are not built.
    """

    def __init__(
        self,
        n_classes,
        weight_column=None,
        thresholds=None,
        label_vocabulary=None,
        loss_reduction=SUM_OVER_BATCH_SIZE,
        loss_fn=None,
        classes_for_class_based_metrics=None,
        name=None,
        v1=False,
    ):
        if n_classes is None or n_classes < 2:
            raise ValueError(f"n_classes must be > 1 for multi-label: {n_classes}")
        super().__init__(weight_column, loss_reduction, name, v1, loss_fn)
        _check_vocabulary(label_vocabulary, n_classes)
        self._n_classes = n_classes
        self._vocabulary = label_vocabulary
        del thresholds, classes_for_class_based_metrics

    @property
    def logits_dimension(self) -> int:
        return self._n_classes

    def _labels(self, labels):
        if isinstance(labels, tf.SparseTensor):
            ids = labels.values
            if self._vocabulary:
                ids = _vocabulary_ids(ids, self._vocabulary)
            ids = tf.SparseTensor(
                labels.indices, tf.cast(ids, tf.int64), labels.dense_shape
            )
            labels = tf.reduce_max(
                tf.one_hot(tf.sparse.to_dense(ids, -1), self._n_classes), axis=1
            )
        return tf.cast(labels, tf.float32)

    def _unweighted_loss(self, labels, logits):
        loss = tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
        return tf.reduce_mean(loss, axis=-1, keepdims=True)

    def predictions(self, logits) -> dict:
        """logits, probabilities, classes (every class name, per example)."""
        _, all_classes = _all_classes(logits, self._n_classes, self._vocabulary)
        return {
            "logits": logits,
            "probabilities": tf.sigmoid(logits),
            "classes": all_classes,
        }

    def _export_outputs(self, predictions) -> dict:
        return _head_base.classification_outputs(
            predictions, with_regression=False, classes_key="classes"
        )

    def _metrics(self, labels, predictions, unweighted_loss, weights) -> dict:
        w = (
            None
            if isinstance(weights, float)
            else tf.broadcast_to(weights, tf.shape(labels))
        )
        probabilities = predictions["probabilities"]
        metrics = {
            "average_loss": mean_metric(unweighted_loss, weights, "average_loss"),
            "auc": tf.compat.v1.metrics.auc(labels, probabilities, w, curve="ROC"),
            "auc_precision_recall": tf.compat.v1.metrics.auc(
                labels,
                probabilities,
                w,
                curve="PR",
                summation_method="careful_interpolation",
            ),
        }
        return {self._key(k): v for k, v in metrics.items()}
