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
    """Class ids (int64) of string `labels`; -1 for a name not in `vocabulary`."""
    table = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(
            tf.constant(list(vocabulary)),
            tf.range(len(vocabulary), dtype=tf.int64),
        ),
        default_value=-1,
        name="class_id_lookup",
    )
    return table.lookup(labels)


def _class_strings(class_ids, vocabulary):
    if not vocabulary:
        return tf.strings.as_string(class_ids)
    table = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(
            tf.range(len(vocabulary), dtype=tf.int64),
            tf.constant(list(vocabulary)),
        ),
        default_value="UNK",
        name="class_string_lookup",
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


def _check_thresholds(thresholds) -> tuple:
    thresholds = tuple(thresholds or ())
    for threshold in thresholds:
        if not 0.0 < threshold < 1.0:
            raise ValueError(
                f"thresholds must be in the open range (0, 1); received "
                f"{threshold!r} in {thresholds}. They are cut-offs of the "
                "predicted probability, e.g. thresholds=[0.5]."
            )
    return thresholds


def threshold_metrics(labels, probabilities, weights, thresholds, v1: bool) -> dict:
    """tf.estimator's accuracy, precision and recall at each threshold.

    A prediction is positive above the threshold (Keras's metrics, which the
    v2 heads use); the v1 heads' accuracy counts one at the threshold too.

    Args:
      labels: float 0/1 labels, `probabilities`' shape.
      probabilities: the predicted probabilities `[batch_size, d]`.
      weights: weights broadcast to `labels`' shape, or None.
      thresholds: floats in (0, 1).
      v1: the v1 heads' accuracy (`probabilities >= threshold`).
    """
    metrics = {}
    for threshold in thresholds:
        above = tf.cast(probabilities > threshold, tf.float32)
        at_or_above = tf.cast(probabilities >= threshold, tf.float32)
        metrics[f"accuracy/positive_threshold_{threshold:g}"] = (
            tf.compat.v1.metrics.accuracy(labels, at_or_above if v1 else above, weights)
        )
        metrics[f"precision/positive_threshold_{threshold:g}"] = (
            tf.compat.v1.metrics.precision(labels, above, weights)
        )
        metrics[f"recall/positive_threshold_{threshold:g}"] = (
            tf.compat.v1.metrics.recall(labels, above, weights)
        )
    return metrics


def _class_ids_for_metrics(classes, vocabulary, n_classes: int) -> tuple:
    """`classes_for_class_based_metrics` as class ids."""
    classes = tuple(classes or ())
    if classes and isinstance(classes[0], str):
        if not vocabulary:
            raise ValueError(
                "label_vocabulary must be provided when "
                f"classes_for_class_based_metrics are strings ({list(classes)}); "
                "give the class names as label_vocabulary or the classes as ids."
            )
        unknown = [c for c in classes if c not in vocabulary]
        if unknown:
            raise ValueError(
                f"classes_for_class_based_metrics {unknown} are not in "
                f"label_vocabulary {list(vocabulary)}."
            )
        return tuple(list(vocabulary).index(c) for c in classes)
    for class_id in classes:
        if not 0 <= class_id < n_classes:
            raise ValueError(
                "All classes_for_class_based_metrics must be in range "
                f"[0, {n_classes - 1}]. Given: {class_id}"
            )
    return tuple(int(c) for c in classes)


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
        self._thresholds = _check_thresholds(thresholds)
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
        metrics.update(
            threshold_metrics(labels, logistic, w, self._thresholds, self._v1)
        )
        return {self._key(k): v for k, v in metrics.items()}


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
      thresholds: floats in (0, 1); each adds
        `accuracy/positive_threshold_<t>`, `precision/...` and `recall/...`
        over all classes (positive above `t`).
      classes_for_class_based_metrics: class ids (or names of
        `label_vocabulary`); each adds `probability_mean/<class>`,
        `auc/<class>` and `auc_precision_recall/<class>`, where `<class>` is
        `class<id>` or the class name.
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
        self._thresholds = _check_thresholds(thresholds)
        self._metric_classes = _class_ids_for_metrics(
            classes_for_class_based_metrics, label_vocabulary, n_classes
        )

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
            **_aucs("", labels, probabilities, w),
        }
        metrics.update(
            threshold_metrics(labels, probabilities, w, self._thresholds, self._v1)
        )
        for class_id in self._metric_classes:
            name = (
                self._vocabulary[class_id] if self._vocabulary else f"class{class_id}"
            )
            column = slice(class_id, class_id + 1)
            class_weights = None if w is None else w[:, column]
            class_probabilities = probabilities[:, column]
            metrics[f"probability_mean/{name}"] = mean_metric(
                class_probabilities, weights, f"probability_mean_{class_id}"
            )
            metrics.update(
                _aucs(f"/{name}", labels[:, column], class_probabilities, class_weights)
            )
        return {self._key(k): v for k, v in metrics.items()}


def _aucs(suffix: str, labels, probabilities, weights) -> dict:
    """Keras's AUCs as the v2 heads report them: ROC and PR (interpolated)."""
    return {
        f"auc{suffix}": tf.compat.v1.metrics.auc(
            labels, probabilities, weights, curve="ROC"
        ),
        f"auc_precision_recall{suffix}": tf.compat.v1.metrics.auc(
            labels,
            probabilities,
            weights,
            curve="PR",
            summation_method="careful_interpolation",
        ),
    }
