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
"""The canned estimators' shared model_fn: features to logits to a head's spec."""

from __future__ import annotations

from collections.abc import Callable

import tensorflow as tf

from estimator_multigpu.estimator._canned import _head_base, _heads
from estimator_multigpu.estimator._estimator import Estimator
from estimator_multigpu.estimator._spec import ModeKeys


def check_features(features) -> None:
    """Raises ValueError unless `features` is a dict of tensors."""
    if not isinstance(features, dict):
        raise ValueError(
            "features should be a dictionary of `Tensor`s. Given type: "
            f"{type(features)} (return a dict from the input_fn)."
        )


def model_scope(name: str, v1: bool, **kwargs):
    """The variable scope `name` of a canned model's own variables.

    tf.estimator's v2 models made resource variables (Keras layers,
    `tf.Variable`, `use_resource=True`) even where `get_variable` makes
    reference ones (under `disable_v2_behavior()`), and their Keras
    optimizers create no slot for a reference variable; its v1 models took
    `get_variable`'s default. `kwargs`: `variable_scope`'s (`partitioner`).
    """
    return tf.compat.v1.variable_scope(
        name, use_resource=None if v1 else True, **kwargs
    )


def classifier_head(n_classes, weight_column, label_vocabulary, loss_reduction, v1):
    """A binary head for `n_classes == 2`, else a multi-class one.

    Raises:
      ValueError: for `n_classes` below 2.
    """
    if n_classes is None or n_classes < 2:
        raise ValueError(
            f"n_classes must be >= 2: {n_classes} (a classifier has at least "
            "two classes)."
        )
    if n_classes == 2:
        return _heads.BinaryClassHead(
            weight_column, None, label_vocabulary, loss_reduction, v1=v1
        )
    return _heads.MultiClassHead(
        n_classes, weight_column, label_vocabulary, loss_reduction, v1=v1
    )


def regressor_head(label_dimension, weight_column, loss_reduction, v1):
    """tf.estimator's regression head for the canned regressors."""
    return _heads.RegressionHead(label_dimension, weight_column, loss_reduction, v1=v1)


def model_fn_of(head, logits_fn: Callable, train_fn: Callable) -> Callable:
    """A model_fn: `logits_fn(features, mode, config)` into `head`.

    `train_fn(config)` returns `{"optimizer": ...}` or `{"train_op_fn": ...}`
    for the head in TRAIN mode. The model_fn's `tower_loss_reduction` tells
    the Estimator how towers add up the head's loss.
    """

    def model_fn(features, labels, mode, config):
        check_features(features)
        logits = logits_fn(features, mode, config)
        train_args = train_fn(config) if mode == ModeKeys.TRAIN else {}
        return head.create_estimator_spec(
            features=features, mode=mode, logits=logits, labels=labels, **train_args
        )

    model_fn.tower_loss_reduction = _head_base.tower_reduction(head.loss_reduction)
    return model_fn


class CannedEstimator(Estimator):
    """An Estimator whose model_fn a canned estimator built (internal base)."""

    def __init__(self, head, logits_fn, train_fn, model_dir, config, warm_start_from):
        super().__init__(
            model_fn=model_fn_of(head, logits_fn, train_fn),
            model_dir=model_dir,
            config=config,
            warm_start_from=warm_start_from,
        )
        self._head = head
