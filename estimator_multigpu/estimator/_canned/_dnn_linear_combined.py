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
"""DNNLinearCombined{Classifier,Regressor,Estimator}: wide-and-deep (v2 and v1).

Ported from tensorflow_estimator's `canned/dnn_linear_combined.py` (TF 2.15):
the logits are the sum of `_dnn.dnn_logits` and `_linear.linear_logits`;
one step applies the deep part's optimizer (Adagrad at 0.001) to the `dnn/`
variables and the wide part's (FTRL at min(0.005, 1/sqrt(columns))) to the
`linear/` ones. Both go through `emg.TowerOptimizer`, so on N devices the
towers' summed gradients reach each once.
"""

from __future__ import annotations

import math

import tensorflow as tf

from estimator_multigpu import towers
from estimator_multigpu.estimator._canned import (
    _canned,
    _dnn,
    _head_base,
    _linear,
    _optimizers,
)

DNN_LEARNING_RATE = 0.001
LINEAR_LEARNING_RATE = 0.005


def linear_learning_rate(num_linear_feature_columns: int) -> float:
    """min(0.005, 1/sqrt(columns)): tf.estimator's wide-part learning rate."""
    return min(LINEAR_LEARNING_RATE, 1.0 / math.sqrt(num_linear_feature_columns))


class _Parts:
    """The wide and deep parts of one model, from the constructor's arguments."""

    def __init__(self, args: dict, v1: bool):
        self.v1 = v1
        self.linear_columns = tuple(args["linear_feature_columns"] or [])
        self.linear_optimizer = args["linear_optimizer"]
        self.sparse_combiner = _linear.check_sparse_combiner(
            args["linear_sparse_combiner"]
        )
        self.dnn_optimizer = args["dnn_optimizer"]
        self.dnn = None
        if not self.linear_columns and not args["dnn_feature_columns"]:
            raise ValueError(
                "Either linear_feature_columns or dnn_feature_columns must be "
                "defined (both were empty)."
            )
        if args["dnn_feature_columns"]:
            if not args["dnn_hidden_units"]:
                raise ValueError(
                    "dnn_hidden_units must be defined when dnn_feature_columns "
                    f"is specified; received {args['dnn_hidden_units']!r}."
                )
            self.dnn = _dnn.DNNSpec(
                args["dnn_hidden_units"],
                args["dnn_feature_columns"],
                args["dnn_activation_fn"],
                args["dnn_dropout"],
                args["batch_norm"],
                args.get("input_layer_partitioner"),
            )

    def logits(self, features, mode, config, units: int):
        """The sum of the deep and the wide logits `[batch_size, units]`."""
        logits = []
        if self.dnn is not None:
            logits.append(
                _dnn.dnn_logits(
                    features, mode, config, spec=self.dnn, units=units, v1=self.v1
                )
            )
        if self.linear_columns:
            partitioner = self.dnn.input_layer_partitioner if self.dnn else None
            logits.append(
                _linear.linear_logits(
                    features,
                    mode,
                    config,
                    columns=self.linear_columns,
                    units=units,
                    sparse_combiner=self.sparse_combiner,
                    v1=self.v1,
                    partitioner=partitioner,
                )
            )
        return tf.add_n(logits) if len(logits) > 1 else logits[0]

    def optimizers(self) -> list:
        """`[(optimizer, variable scope)]`: deep first; the last owns the step."""
        parts = []
        if self.dnn is not None:
            parts.append((self.dnn_optimizer, DNN_LEARNING_RATE, "dnn"))
        if self.linear_columns:
            rate = linear_learning_rate(len(self.linear_columns))
            parts.append((self.linear_optimizer, rate, "linear"))
        return [
            (
                _optimizers.optimizer_for(
                    optimizer, self.v1, rate, owns_global_step=index == 0
                ),
                scope,
            )
            for index, (optimizer, rate, scope) in enumerate(parts)
        ]


def _train_op_fn(parts: _Parts):
    """`fn(loss)`: each part's optimizer on its variables, the step once."""
    chosen = parts.optimizers()

    def train_op_fn(loss):
        global_step = tf.compat.v1.train.get_global_step()
        train_ops = []
        for index, (optimizer, scope) in enumerate(chosen):
            variables = tf.compat.v1.get_collection(
                tf.compat.v1.GraphKeys.TRAINABLE_VARIABLES, scope=f"{scope}/"
            )
            last = index == len(chosen) - 1
            step = global_step if parts.v1 and last else None
            train_ops.append(
                towers.TowerOptimizer(optimizer).minimize(
                    loss, step, var_list=variables
                )
            )
        return tf.group(*train_ops)

    return train_op_fn


def _estimator(self, head, args: dict, v1: bool) -> None:
    parts = _Parts(args, v1)

    def logits_fn(features, mode, config):
        return parts.logits(features, mode, config, head.logits_dimension)

    def train_fn(config):
        del config
        return {"train_op_fn": _train_op_fn(parts)}

    _canned.CannedEstimator.__init__(
        self,
        head,
        logits_fn,
        train_fn,
        args["model_dir"],
        args["config"],
        args.get("warm_start_from"),
    )


class DNNLinearCombinedClassifier(_canned.CannedEstimator):
    """tf.estimator.DNNLinearCombinedClassifier: a wide-and-deep classifier.

    Args (tf.estimator's): model_dir, linear_feature_columns,
    linear_optimizer ('Ftrl'), dnn_feature_columns, dnn_optimizer
    ('Adagrad'), dnn_hidden_units, dnn_activation_fn, dnn_dropout,
    n_classes, weight_column, label_vocabulary, config, warm_start_from,
    loss_reduction (SUM_OVER_BATCH_SIZE), batch_norm, linear_sparse_combiner.
    """

    def __init__(
        self,
        model_dir=None,
        linear_feature_columns=None,
        linear_optimizer="Ftrl",
        dnn_feature_columns=None,
        dnn_optimizer="Adagrad",
        dnn_hidden_units=None,
        dnn_activation_fn=tf.nn.relu,
        dnn_dropout=None,
        n_classes=2,
        weight_column=None,
        label_vocabulary=None,
        config=None,
        warm_start_from=None,
        loss_reduction=_head_base.SUM_OVER_BATCH_SIZE,
        batch_norm=False,
        linear_sparse_combiner="sum",
    ):
        head = _canned.classifier_head(
            n_classes, weight_column, label_vocabulary, loss_reduction, False
        )
        _estimator(self, head, locals(), False)


class DNNLinearCombinedRegressor(_canned.CannedEstimator):
    """tf.estimator.DNNLinearCombinedRegressor: a wide-and-deep regressor.

    Args as `DNNLinearCombinedClassifier`'s, with `label_dimension` for
    `n_classes` and `label_vocabulary`.
    """

    def __init__(
        self,
        model_dir=None,
        linear_feature_columns=None,
        linear_optimizer="Ftrl",
        dnn_feature_columns=None,
        dnn_optimizer="Adagrad",
        dnn_hidden_units=None,
        dnn_activation_fn=tf.nn.relu,
        dnn_dropout=None,
        label_dimension=1,
        weight_column=None,
        config=None,
        warm_start_from=None,
        loss_reduction=_head_base.SUM_OVER_BATCH_SIZE,
        batch_norm=False,
        linear_sparse_combiner="sum",
    ):
        head = _canned.regressor_head(
            label_dimension, weight_column, loss_reduction, False
        )
        _estimator(self, head, locals(), False)


class DNNLinearCombinedEstimator(_canned.CannedEstimator):
    """tf.estimator.DNNLinearCombinedEstimator: wide-and-deep on any head."""

    def __init__(
        self,
        head,
        model_dir=None,
        linear_feature_columns=None,
        linear_optimizer="Ftrl",
        dnn_feature_columns=None,
        dnn_optimizer="Adagrad",
        dnn_hidden_units=None,
        dnn_activation_fn=tf.nn.relu,
        dnn_dropout=None,
        config=None,
        batch_norm=False,
        linear_sparse_combiner="sum",
    ):
        _estimator(self, head, locals(), False)


class DNNLinearCombinedClassifierV1(_canned.CannedEstimator):
    """tf.compat.v1.estimator.DNNLinearCombinedClassifier: SUM loss, v1 optimizers."""

    def __init__(
        self,
        model_dir=None,
        linear_feature_columns=None,
        linear_optimizer="Ftrl",
        dnn_feature_columns=None,
        dnn_optimizer="Adagrad",
        dnn_hidden_units=None,
        dnn_activation_fn=tf.nn.relu,
        dnn_dropout=None,
        n_classes=2,
        weight_column=None,
        label_vocabulary=None,
        input_layer_partitioner=None,
        config=None,
        warm_start_from=None,
        loss_reduction=_head_base.V1_SUM,
        batch_norm=False,
        linear_sparse_combiner="sum",
    ):
        head = _canned.classifier_head(
            n_classes, weight_column, label_vocabulary, loss_reduction, True
        )
        _estimator(self, head, locals(), True)


class DNNLinearCombinedRegressorV1(_canned.CannedEstimator):
    """tf.compat.v1.estimator.DNNLinearCombinedRegressor: SUM loss, v1 optimizers."""

    def __init__(
        self,
        model_dir=None,
        linear_feature_columns=None,
        linear_optimizer="Ftrl",
        dnn_feature_columns=None,
        dnn_optimizer="Adagrad",
        dnn_hidden_units=None,
        dnn_activation_fn=tf.nn.relu,
        dnn_dropout=None,
        label_dimension=1,
        weight_column=None,
        input_layer_partitioner=None,
        config=None,
        warm_start_from=None,
        loss_reduction=_head_base.V1_SUM,
        batch_norm=False,
        linear_sparse_combiner="sum",
    ):
        head = _canned.regressor_head(
            label_dimension, weight_column, loss_reduction, True
        )
        _estimator(self, head, locals(), True)


class DNNLinearCombinedEstimatorV1(_canned.CannedEstimator):
    """tf.compat.v1.estimator.DNNLinearCombinedEstimator: wide-and-deep, any head."""

    def __init__(
        self,
        head,
        model_dir=None,
        linear_feature_columns=None,
        linear_optimizer="Ftrl",
        dnn_feature_columns=None,
        dnn_optimizer="Adagrad",
        dnn_hidden_units=None,
        dnn_activation_fn=tf.nn.relu,
        dnn_dropout=None,
        input_layer_partitioner=None,
        config=None,
        batch_norm=False,
        linear_sparse_combiner="sum",
    ):
        _estimator(self, head, locals(), True)
