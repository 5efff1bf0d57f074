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
"""LinearClassifier, LinearRegressor and LinearEstimator (v2 and v1 forms).

Ported from tensorflow_estimator's `canned/linear.py` (TF 2.15) onto
`tf.compat.v1.feature_column.linear_model`, under tf.estimator's scopes
(`linear/linear_model/<column>/weights`, `linear/linear_model/bias_weights`).
FTRL by default; a named optimizer trains at 0.2, the default one (None) at
min(0.2, 1/sqrt(number of columns)), as tf.estimator's did.
"""

from __future__ import annotations

import functools
import math

import tensorflow as tf

from estimator_multigpu.estimator._canned import _canned, _head_base, _optimizers

LEARNING_RATE = 0.2
_SPARSE_COMBINERS = ("sum", "mean", "sqrtn")


def default_optimizer(feature_columns, v1: bool):
    """tf.estimator's default FTRL at min(0.2, 1/sqrt(len(feature_columns)))."""
    learning_rate = min(LEARNING_RATE, 1.0 / math.sqrt(len(feature_columns)))
    if v1:
        return tf.compat.v1.train.FtrlOptimizer(learning_rate=learning_rate)
    return _optimizers.keras().optimizers.legacy.Ftrl(learning_rate=learning_rate)


def check_sparse_combiner(sparse_combiner: str) -> str:
    """Raises ValueError unless `sparse_combiner` is 'sum', 'mean' or 'sqrtn'."""
    if sparse_combiner not in _SPARSE_COMBINERS:
        raise ValueError(
            f"sparse_combiner must be one of {_SPARSE_COMBINERS}; received "
            f"{sparse_combiner!r}."
        )
    return sparse_combiner


def linear_logits(
    features, mode, config, *, columns, units, sparse_combiner, v1, partitioner=None
):
    """The linear model's logits `[batch_size, units]` under the `linear` scope."""
    del mode
    if v1 and partitioner is None:
        num_ps = getattr(config, "num_ps_replicas", 0) or 0
        partitioner = tf.compat.v1.min_max_variable_partitioner(
            max_partitions=num_ps, min_slice_size=64 << 20
        )
    with _canned.model_scope("linear", v1, partitioner=partitioner):
        logits = tf.compat.v1.feature_column.linear_model(
            features, columns, units=units, sparse_combiner=sparse_combiner
        )
    tf.compat.v1.summary.histogram("linear/logits", logits)
    return logits


def _estimator(self, head, columns, optimizer, v1, args):
    """Builds the linear estimator `self`; `args`: model_dir, config, ..."""
    columns = tuple(columns or [])
    if not columns:
        raise ValueError(
            f"feature_columns must be given and non-empty; received {columns!r}."
        )
    logits_fn = functools.partial(
        linear_logits,
        columns=columns,
        units=head.logits_dimension,
        sparse_combiner=check_sparse_combiner(args["sparse_combiner"]),
        v1=v1,
        partitioner=args.get("partitioner"),
    )

    def train_fn(config):
        del config
        chosen = optimizer or default_optimizer(columns, v1)
        scope = "linear" if v1 else None
        return {
            "optimizer": _optimizers.optimizer_for(chosen, v1, LEARNING_RATE, scope)
        }

    _canned.CannedEstimator.__init__(
        self,
        head,
        logits_fn,
        train_fn,
        args["model_dir"],
        args["config"],
        args["warm_start_from"],
    )


class LinearClassifier(_canned.CannedEstimator):
    """tf.estimator.LinearClassifier: a linear model of the feature columns.

    Args (tf.estimator's): feature_columns, model_dir, n_classes,
    weight_column, label_vocabulary, optimizer (default 'Ftrl'), config,
    warm_start_from, loss_reduction (SUM_OVER_BATCH_SIZE), sparse_combiner.
    """

    def __init__(
        self,
        feature_columns,
        model_dir=None,
        n_classes=2,
        weight_column=None,
        label_vocabulary=None,
        optimizer="Ftrl",
        config=None,
        warm_start_from=None,
        loss_reduction=_head_base.SUM_OVER_BATCH_SIZE,
        sparse_combiner="sum",
    ):
        head = _canned.classifier_head(
            n_classes, weight_column, label_vocabulary, loss_reduction, False
        )
        _estimator(self, head, feature_columns, optimizer, False, locals())


class LinearRegressor(_canned.CannedEstimator):
    """tf.estimator.LinearRegressor: a linear regression of the feature columns.

    Args as `LinearClassifier`'s, with `label_dimension` for `n_classes` and
    `label_vocabulary`.
    """

    def __init__(
        self,
        feature_columns,
        model_dir=None,
        label_dimension=1,
        weight_column=None,
        optimizer="Ftrl",
        config=None,
        warm_start_from=None,
        loss_reduction=_head_base.SUM_OVER_BATCH_SIZE,
        sparse_combiner="sum",
    ):
        head = _canned.regressor_head(
            label_dimension, weight_column, loss_reduction, False
        )
        _estimator(self, head, feature_columns, optimizer, False, locals())


class LinearEstimator(_canned.CannedEstimator):
    """tf.estimator.LinearEstimator: a linear model on any head."""

    def __init__(
        self,
        head,
        feature_columns,
        model_dir=None,
        optimizer="Ftrl",
        config=None,
        sparse_combiner="sum",
        warm_start_from=None,
    ):
        _estimator(self, head, feature_columns, optimizer, False, locals())


class LinearClassifierV1(_canned.CannedEstimator):
    """tf.compat.v1.estimator.LinearClassifier: SUM loss, v1 FTRL, a partitioner."""

    def __init__(
        self,
        feature_columns,
        model_dir=None,
        n_classes=2,
        weight_column=None,
        label_vocabulary=None,
        optimizer="Ftrl",
        config=None,
        partitioner=None,
        warm_start_from=None,
        loss_reduction=_head_base.V1_SUM,
        sparse_combiner="sum",
    ):
        head = _canned.classifier_head(
            n_classes, weight_column, label_vocabulary, loss_reduction, True
        )
        _estimator(self, head, feature_columns, optimizer, True, locals())


class LinearRegressorV1(_canned.CannedEstimator):
    """tf.compat.v1.estimator.LinearRegressor: SUM loss, v1 FTRL, a partitioner."""

    def __init__(
        self,
        feature_columns,
        model_dir=None,
        label_dimension=1,
        weight_column=None,
        optimizer="Ftrl",
        config=None,
        partitioner=None,
        warm_start_from=None,
        loss_reduction=_head_base.V1_SUM,
        sparse_combiner="sum",
    ):
        head = _canned.regressor_head(
            label_dimension, weight_column, loss_reduction, True
        )
        _estimator(self, head, feature_columns, optimizer, True, locals())


class LinearEstimatorV1(_canned.CannedEstimator):
    """tf.compat.v1.estimator.LinearEstimator: a linear model on any head."""

    def __init__(
        self,
        head,
        feature_columns,
        model_dir=None,
        optimizer="Ftrl",
        config=None,
        partitioner=None,
        sparse_combiner="sum",
        warm_start_from=None,
    ):
        _estimator(self, head, feature_columns, optimizer, True, locals())
