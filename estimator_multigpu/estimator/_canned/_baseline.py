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
"""BaselineClassifier, BaselineRegressor and BaselineEstimator (v2 and v1).

Ported from tensorflow_estimator's `canned/baseline.py` (TF 2.15): the
logits are one bias per output (`baseline/bias`), the same for every
example, so the model learns the label distribution (or mean); FTRL at 0.3.
"""

from __future__ import annotations

import tensorflow as tf

from estimator_multigpu.estimator._canned import _canned, _head_base, _optimizers

LEARNING_RATE = 0.3


def _weight_key(weight_column):
    if weight_column is None or isinstance(weight_column, str):
        return weight_column
    return weight_column.key


def _batch_size(features, weight_column):
    """The batch size of the first feature other than the weights."""
    key = _weight_key(weight_column)
    for name in sorted(features):
        if name == key:
            continue
        value = features[name]
        if isinstance(value, tf.SparseTensor):
            return value.dense_shape[0]
        return tf.shape(value, out_type=tf.int64)[0]
    raise ValueError(
        "A baseline estimator needs at least one feature besides the weight "
        f"column to know the batch size; received features {sorted(features)}."
    )


def baseline_logits(features, units: int, weight_column, v1: bool):
    """`baseline/bias` `[units]` tiled to `[batch_size, units]`."""
    with _canned.model_scope("baseline", v1):
        bias = tf.compat.v1.get_variable(
            "bias", [units], initializer=tf.compat.v1.zeros_initializer()
        )
    batch_size = tf.cast(_batch_size(features, weight_column), tf.int32)
    return tf.math.multiply(bias, tf.ones([batch_size, units]))


def _estimator(self, head, optimizer, v1: bool, args: dict) -> None:
    weight_column = args.get("weight_column")

    def logits_fn(features, mode, config):
        del mode, config
        return baseline_logits(features, head.logits_dimension, weight_column, v1)

    def train_fn(config):
        del config
        return {"optimizer": _optimizers.optimizer_for(optimizer, v1, LEARNING_RATE)}

    _canned.CannedEstimator.__init__(
        self, head, logits_fn, train_fn, args["model_dir"], args["config"], None
    )


class BaselineClassifier(_canned.CannedEstimator):
    """tf.estimator.BaselineClassifier: predicts the label distribution.

    Args (tf.estimator's): model_dir, n_classes, weight_column,
    label_vocabulary, optimizer ('Ftrl', at 0.3), config, loss_reduction.
    """

    _V1 = False

    def __init__(
        self,
        model_dir=None,
        n_classes=2,
        weight_column=None,
        label_vocabulary=None,
        optimizer="Ftrl",
        config=None,
        loss_reduction=_head_base.SUM_OVER_BATCH_SIZE,
    ):
        head = _canned.classifier_head(
            n_classes, weight_column, label_vocabulary, loss_reduction, self._V1
        )
        _estimator(self, head, optimizer, self._V1, locals())


class BaselineRegressor(_canned.CannedEstimator):
    """tf.estimator.BaselineRegressor: predicts the label mean.

    Args as `BaselineClassifier`'s, with `label_dimension`.
    """

    _V1 = False

    def __init__(
        self,
        model_dir=None,
        label_dimension=1,
        weight_column=None,
        optimizer="Ftrl",
        config=None,
        loss_reduction=_head_base.SUM_OVER_BATCH_SIZE,
    ):
        head = _canned.regressor_head(
            label_dimension, weight_column, loss_reduction, self._V1
        )
        _estimator(self, head, optimizer, self._V1, locals())


class BaselineEstimator(_canned.CannedEstimator):
    """tf.estimator.BaselineEstimator: a bias per output on any head.

    Args:
      head: the head, e.g. `emg.estimator.MultiClassHead(3)`.
      model_dir: where checkpoints go.
      optimizer: an optimizer, its name or a callable ('Ftrl', at 0.3).
      config: a `RunConfig`.
    """

    _V1 = False

    def __init__(self, head, model_dir=None, optimizer="Ftrl", config=None):
        _estimator(self, head, optimizer, self._V1, locals())


class BaselineClassifierV1(BaselineClassifier):
    """tf.compat.v1.estimator.BaselineClassifier: SUM loss, v1 FTRL at 0.3."""

    _V1 = True

    def __init__(
        self,
        model_dir=None,
        n_classes=2,
        weight_column=None,
        label_vocabulary=None,
        optimizer="Ftrl",
        config=None,
        loss_reduction=_head_base.V1_SUM,
    ):
        super().__init__(
            model_dir,
            n_classes,
            weight_column,
            label_vocabulary,
            optimizer,
            config,
            loss_reduction,
        )


class BaselineRegressorV1(BaselineRegressor):
    """tf.compat.v1.estimator.BaselineRegressor: SUM loss, v1 FTRL at 0.3."""

    _V1 = True

    def __init__(
        self,
        model_dir=None,
        label_dimension=1,
        weight_column=None,
        optimizer="Ftrl",
        config=None,
        loss_reduction=_head_base.V1_SUM,
    ):
        super().__init__(
            model_dir, label_dimension, weight_column, optimizer, config, loss_reduction
        )


class BaselineEstimatorV1(BaselineEstimator):
    """tf.compat.v1.estimator.BaselineEstimator: a bias per output, any head.

    Args:
      head: the head, e.g. `emg.estimator.MultiClassHead(3)`.
      model_dir: where checkpoints go.
      optimizer: an optimizer, its name or a callable ('Ftrl', at 0.3).
      config: a `RunConfig`.
    """

    _V1 = True
