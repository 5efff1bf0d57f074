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
"""DNNClassifier, DNNRegressor and DNNEstimator (v2 and v1 forms).

Ported from tensorflow_estimator's `canned/dnn.py` (TF 2.15), with the
variables created by `tf.compat.v1.get_variable` under tf.estimator's scopes
(`dnn/input_from_feature_columns/input_layer/...`, `dnn/hiddenlayer_<i>/`,
`dnn/logits/`), so checkpoints move both ways. The v1 forms partition as
tf.estimator v1 did (one part without ps tasks), which names their slots;
the v2 forms' variables are resource ones, as Keras layers' were.
"""

from __future__ import annotations

import functools

import tensorflow as tf

from estimator_multigpu.estimator._canned import (
    _canned,
    _feature_layer,
    _head_base,
    _optimizers,
)
from estimator_multigpu.estimator._spec import ModeKeys

_EPSILON = 1e-3
_MOMENTUM = 0.999


def _layer_summary(value, tag: str) -> None:
    tf.compat.v1.summary.scalar(
        f"{tag}/fraction_of_zero_values", tf.math.zero_fraction(value)
    )
    tf.compat.v1.summary.histogram(f"{tag}/activation", value)


def _dense(net, units: int, scope: str, activation_fn=None):
    with tf.compat.v1.variable_scope(scope):
        kernel = tf.compat.v1.get_variable(
            "kernel",
            [net.shape[-1], units],
            initializer=tf.compat.v1.glorot_uniform_initializer(),
        )
        bias = tf.compat.v1.get_variable(
            "bias", [units], initializer=tf.compat.v1.zeros_initializer()
        )
        net = tf.matmul(net, kernel) + bias
        return net if activation_fn is None else activation_fn(net)


def _batch_norm(net, scope: str, training: bool):
    """Keras's BatchNormalization (momentum 0.999, epsilon 1e-3) on `net`."""
    size = [net.shape[-1]]
    with tf.compat.v1.variable_scope(scope) as bn_scope:
        gamma, beta = (
            tf.convert_to_tensor(
                tf.compat.v1.get_variable(name, size, initializer=init)
            )  # A v1 partitioned variable (one part) reads as one tensor.
            for name, init in (
                ("gamma", tf.ones_initializer()),
                ("beta", tf.zeros_initializer()),
            )
        )
        # As Keras's BatchNormalization: the moving averages are never
        # partitioned (they are assigned to).
        bn_scope.set_partitioner(None)
        moving_mean, moving_variance = (
            tf.compat.v1.get_variable(name, size, initializer=init, trainable=False)
            for name, init in (
                ("moving_mean", tf.zeros_initializer()),
                ("moving_variance", tf.ones_initializer()),
            )
        )
    if not training:
        return tf.nn.batch_normalization(
            net, moving_mean, moving_variance, beta, gamma, _EPSILON
        )
    mean, variance = tf.nn.moments(net, [0])
    for variable, value in ((moving_mean, mean), (moving_variance, variance)):
        update = tf.compat.v1.assign_sub(
            variable, (variable - value) * (1.0 - _MOMENTUM)
        )
        tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.UPDATE_OPS, update)
    return tf.nn.batch_normalization(net, mean, variance, beta, gamma, _EPSILON)


def _partitioner(config, v1: bool, min_slice_size=None):
    if not v1:
        return None
    num_ps = getattr(config, "num_ps_replicas", 0) or 0
    if min_slice_size is None:
        return tf.compat.v1.min_max_variable_partitioner(max_partitions=num_ps)
    return tf.compat.v1.min_max_variable_partitioner(
        max_partitions=num_ps, min_slice_size=min_slice_size
    )


def dnn_logits(features, mode, config, *, spec, units: int, v1: bool):
    """The DNN's logits `[batch_size, units]` under the `dnn` scope.

    Args:
      features: the input_fn's feature dict.
      mode: a `ModeKeys` value (dropout and batch norm train in TRAIN).
      config: the RunConfig (its ps tasks partition v1 variables).
      spec: a `DNNSpec`.
      units: the head's logits dimension.
      v1: tf.estimator v1's partitioning (and variable kind, see
        `_canned.model_scope`).
    """
    training = mode == ModeKeys.TRAIN
    root_scope = tf.compat.v1.get_variable_scope()
    with _canned.model_scope("dnn", v1, partitioner=_partitioner(config, v1)):
        with tf.compat.v1.variable_scope(
            "input_from_feature_columns",
            partitioner=spec.input_layer_partitioner
            or _partitioner(config, v1, 64 << 20),
        ):
            net = _feature_layer.input_layer(features, spec.feature_columns, root_scope)
        for index, size in enumerate(spec.hidden_units):
            scope = f"hiddenlayer_{index}"
            net = _dense(net, size, scope, spec.activation_fn)
            if spec.dropout is not None and training:
                net = tf.nn.dropout(net, rate=spec.dropout)
            if spec.batch_norm:
                net = _batch_norm(net, f"{scope}/batchnorm_{index}", training)
            _layer_summary(net, f"dnn/{scope}")
        logits = _dense(net, units, "logits")
        _layer_summary(logits, "dnn/logits")
    return logits


class DNNSpec:
    """The DNN's shape: feature columns, hidden units, activation, dropout."""

    def __init__(
        self,
        hidden_units,
        feature_columns,
        activation_fn=tf.nn.relu,
        dropout=None,
        batch_norm=False,
        input_layer_partitioner=None,
    ):
        self.hidden_units = list(hidden_units or [])
        self.feature_columns = tuple(feature_columns or [])
        self.activation_fn = activation_fn
        self.dropout = dropout
        self.batch_norm = batch_norm
        self.input_layer_partitioner = input_layer_partitioner
        if not self.feature_columns:
            raise ValueError(
                "feature_columns must be given and non-empty; received "
                f"{feature_columns!r}."
            )


def _estimator(self, head, spec: DNNSpec, optimizer, v1, model_dir, config, warm):
    logits_fn = functools.partial(
        dnn_logits, spec=spec, units=head.logits_dimension, v1=v1
    )

    def train_fn(config):
        del config
        learning_rate = _optimizers.LEARNING_RATE if v1 else None
        scope = "dnn" if v1 else None
        return {
            "optimizer": _optimizers.optimizer_for(optimizer, v1, learning_rate, scope)
        }

    _canned.CannedEstimator.__init__(
        self, head, logits_fn, train_fn, model_dir, config, warm
    )


class DNNClassifier(_canned.CannedEstimator):
    """tf.estimator.DNNClassifier: a feed-forward classifier.

    Args (tf.estimator's): hidden_units (units per layer, e.g. `[64, 32]`),
    feature_columns, model_dir, n_classes, weight_column, label_vocabulary,
    optimizer (an instance, 'Adagrad', 'Adam', 'Ftrl', 'RMSProp', 'SGD' or a
    callable; default Keras Adagrad at its own rate, 0.001), activation_fn,
    dropout, config, warm_start_from, loss_reduction (SUM_OVER_BATCH_SIZE),
    batch_norm.
    """

    _V1 = False

    def __init__(
        self,
        hidden_units,
        feature_columns,
        model_dir=None,
        n_classes=2,
        weight_column=None,
        label_vocabulary=None,
        optimizer="Adagrad",
        activation_fn=tf.nn.relu,
        dropout=None,
        config=None,
        warm_start_from=None,
        loss_reduction=_head_base.SUM_OVER_BATCH_SIZE,
        batch_norm=False,
    ):
        head = _canned.classifier_head(
            n_classes, weight_column, label_vocabulary, loss_reduction, self._V1
        )
        spec = DNNSpec(
            hidden_units, feature_columns, activation_fn, dropout, batch_norm
        )
        _estimator(
            self, head, spec, optimizer, self._V1, model_dir, config, warm_start_from
        )


class DNNRegressor(_canned.CannedEstimator):
    """tf.estimator.DNNRegressor: a feed-forward regressor.

    Args as `DNNClassifier`'s, with `label_dimension` (targets per example)
    for `n_classes` and `label_vocabulary`.
    """

    _V1 = False

    def __init__(
        self,
        hidden_units,
        feature_columns,
        model_dir=None,
        label_dimension=1,
        weight_column=None,
        optimizer="Adagrad",
        activation_fn=tf.nn.relu,
        dropout=None,
        config=None,
        warm_start_from=None,
        loss_reduction=_head_base.SUM_OVER_BATCH_SIZE,
        batch_norm=False,
    ):
        head = _canned.regressor_head(
            label_dimension, weight_column, loss_reduction, self._V1
        )
        spec = DNNSpec(
            hidden_units, feature_columns, activation_fn, dropout, batch_norm
        )
        _estimator(
            self, head, spec, optimizer, self._V1, model_dir, config, warm_start_from
        )


class DNNEstimator(_canned.CannedEstimator):
    """tf.estimator.DNNEstimator: a feed-forward network on any head.

    Args: head (e.g. `emg.estimator.MultiLabelHead(3)`), hidden_units,
    feature_columns, model_dir, optimizer, activation_fn, dropout, config,
    warm_start_from, batch_norm.
    """

    _V1 = False

    def __init__(
        self,
        head,
        hidden_units,
        feature_columns,
        model_dir=None,
        optimizer="Adagrad",
        activation_fn=tf.nn.relu,
        dropout=None,
        config=None,
        warm_start_from=None,
        batch_norm=False,
    ):
        spec = DNNSpec(
            hidden_units, feature_columns, activation_fn, dropout, batch_norm
        )
        _estimator(
            self, head, spec, optimizer, self._V1, model_dir, config, warm_start_from
        )


class DNNClassifierV1(_canned.CannedEstimator):
    """tf.compat.v1.estimator.DNNClassifier: SUM loss, v1 Adagrad at 0.05.

    Args as `DNNClassifier`'s, plus `input_layer_partitioner`; the optimizer
    is a `tf.compat.v1.train` one (a name gets learning rate 0.05).
    """

    def __init__(
        self,
        hidden_units,
        feature_columns,
        model_dir=None,
        n_classes=2,
        weight_column=None,
        label_vocabulary=None,
        optimizer="Adagrad",
        activation_fn=tf.nn.relu,
        dropout=None,
        input_layer_partitioner=None,
        config=None,
        warm_start_from=None,
        loss_reduction=_head_base.V1_SUM,
        batch_norm=False,
    ):
        head = _canned.classifier_head(
            n_classes, weight_column, label_vocabulary, loss_reduction, True
        )
        spec = DNNSpec(
            hidden_units,
            feature_columns,
            activation_fn,
            dropout,
            batch_norm,
            input_layer_partitioner,
        )
        _estimator(
            self, head, spec, optimizer, True, model_dir, config, warm_start_from
        )


class DNNRegressorV1(_canned.CannedEstimator):
    """tf.compat.v1.estimator.DNNRegressor: SUM loss, v1 Adagrad at 0.05."""

    def __init__(
        self,
        hidden_units,
        feature_columns,
        model_dir=None,
        label_dimension=1,
        weight_column=None,
        optimizer="Adagrad",
        activation_fn=tf.nn.relu,
        dropout=None,
        input_layer_partitioner=None,
        config=None,
        warm_start_from=None,
        loss_reduction=_head_base.V1_SUM,
        batch_norm=False,
    ):
        head = _canned.regressor_head(
            label_dimension, weight_column, loss_reduction, True
        )
        spec = DNNSpec(
            hidden_units,
            feature_columns,
            activation_fn,
            dropout,
            batch_norm,
            input_layer_partitioner,
        )
        _estimator(
            self, head, spec, optimizer, True, model_dir, config, warm_start_from
        )


class DNNEstimatorV1(_canned.CannedEstimator):
    """tf.compat.v1.estimator.DNNEstimator: a DNN on any (v1) head."""

    def __init__(
        self,
        head,
        hidden_units,
        feature_columns,
        model_dir=None,
        optimizer="Adagrad",
        activation_fn=tf.nn.relu,
        dropout=None,
        input_layer_partitioner=None,
        config=None,
        warm_start_from=None,
        batch_norm=False,
    ):
        spec = DNNSpec(
            hidden_units,
            feature_columns,
            activation_fn,
            dropout,
            batch_norm,
            input_layer_partitioner,
        )
        _estimator(
            self, head, spec, optimizer, True, model_dir, config, warm_start_from
        )
