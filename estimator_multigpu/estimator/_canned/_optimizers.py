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
"""The canned estimators' optimizers: names, defaults, and their update scopes.

Ported from tensorflow_estimator's `canned/optimizers.py` (TF 2.15). The v1
estimators take `tf.compat.v1.train` optimizers, the v2 ones Keras legacy
optimizers (tf_keras on TF 2.16+); both are applied through
`emg.TowerOptimizer`, so one update serves every tower.
"""

from __future__ import annotations

import inspect

import tensorflow as tf

LEARNING_RATE = 0.05

_V1_NAMES = {
    "Adagrad": tf.compat.v1.train.AdagradOptimizer,
    "Adam": tf.compat.v1.train.AdamOptimizer,
    "Ftrl": tf.compat.v1.train.FtrlOptimizer,
    "RMSProp": tf.compat.v1.train.RMSPropOptimizer,
    "SGD": tf.compat.v1.train.GradientDescentOptimizer,
}
_V2_NAMES = ("Adagrad", "Adam", "Ftrl", "RMSProp", "SGD")
_KERAS_CLASS = {"RMSProp": "RMSprop"}


def keras():
    """The Keras 2 package: tf.keras on TF <= 2.15, else tf_keras.

    Raises:
      ImportError: on TF 2.16+ without tf_keras.
    """
    if tf.__version__ < "2.16":
        return tf.keras
    try:
        import tf_keras
    except ImportError as error:
        raise ImportError(
            "The v2 canned estimators (emg.estimator.DNNClassifier, ...) train "
            "with Keras 2 optimizers, which TF 2.16+ keeps in tf_keras: "
            "`pip install tf-keras`, or use the v1 forms (emg.estimator.v1.*)."
        ) from error
    return tf_keras


def _unsupported(opt, names) -> ValueError:
    return ValueError(
        f"Unsupported optimizer name: {opt}. Supported names are: "
        f"{tuple(sorted(names))}"
    )


def get_optimizer_instance(opt, learning_rate=None):
    """A `tf.compat.v1.train.Optimizer` from an instance, name or callable.

    Args:
      opt: an optimizer, one of 'Adagrad', 'Adam', 'Ftrl', 'RMSProp', 'SGD',
        or a function of no arguments returning an optimizer.
      learning_rate: the learning rate of an optimizer given by name.

    Raises:
      ValueError: for an unknown name, a name without `learning_rate`, or a
        value that is not an optimizer.
    """
    if isinstance(opt, str):
        if opt not in _V1_NAMES:
            raise _unsupported(opt, _V1_NAMES)
        if not learning_rate:
            raise ValueError("learning_rate must be specified when opt is string.")
        return _V1_NAMES[opt](learning_rate=learning_rate)
    if callable(opt) and not isinstance(opt, tf.compat.v1.train.Optimizer):
        opt = opt()
    if not isinstance(opt, tf.compat.v1.train.Optimizer):
        raise ValueError(
            f"The given object is not an Optimizer instance. Given: {opt} (the "
            "v1 estimators take a tf.compat.v1.train optimizer)."
        )
    return opt


def _has_default_learning_rate(cls) -> bool:
    parameter = inspect.signature(cls.__init__).parameters.get("learning_rate")
    return parameter is not None and parameter.default is not inspect.Parameter.empty


def get_optimizer_instance_v2(opt, learning_rate=None):
    """A Keras legacy optimizer from an instance, name or callable.

    A name without `learning_rate` takes the optimizer's own default, as
    tf.estimator's v2 estimators did (Keras Adagrad: 0.001).

    Raises:
      ValueError: for an unknown name or a value that is not a Keras legacy
        optimizer.
    """
    legacy = keras().optimizers.legacy
    if isinstance(opt, str):
        if opt not in _V2_NAMES:
            raise _unsupported(opt, _V2_NAMES)
        cls = getattr(legacy, _KERAS_CLASS.get(opt, opt))
        if learning_rate:
            return cls(learning_rate=learning_rate)
        if _has_default_learning_rate(cls):
            return cls()
        return cls(learning_rate=LEARNING_RATE)
    if callable(opt) and not isinstance(opt, legacy.Optimizer):
        opt = opt()
    if not isinstance(opt, legacy.Optimizer):
        raise ValueError(
            "The given object is not a tf.keras.optimizers.Optimizer instance. "
            f"Given: {opt} (pass a {keras().__name__}.optimizers.legacy one, "
            "e.g. optimizers.legacy.Adagrad(0.05), or a v1 estimator a "
            "tf.compat.v1.train optimizer)."
        )
    return opt


class ScopedOptimizer(tf.compat.v1.train.Optimizer):
    """Applies a v1 optimizer inside a variable scope, as tf.estimator did.

    tf.estimator's v1 estimators call `minimize` inside their model's scope
    (`dnn`, `linear`), which is in the names of the slots they write
    (`dnn/hiddenlayer_0/kernel/t_0/Adagrad`); under towers the update runs
    after every tower is built, so the scope is entered again here.
    """

    def __init__(self, optimizer, scope: str):
        super().__init__(use_locking=False, name=optimizer.get_name())
        self._optimizer = optimizer
        self._scope = scope

    def compute_gradients(self, loss, var_list=None, **kwargs):
        return self._optimizer.compute_gradients(loss, var_list, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        with tf.compat.v1.variable_scope(self._scope, auxiliary_name_scope=False):
            return self._optimizer.apply_gradients(grads_and_vars, global_step, name)

    def get_slot(self, *args, **kwargs):
        return self._optimizer.get_slot(*args, **kwargs)

    def get_slot_names(self, *args, **kwargs):
        return self._optimizer.get_slot_names(*args, **kwargs)

    def variables(self):
        return self._optimizer.variables()


class KerasOptimizer(tf.compat.v1.train.Optimizer):
    """A Keras legacy optimizer behind the `tf.compat.v1.train` interface.

    Its update is Keras's own, under the `training` name scope tf.estimator's
    v2 heads used (slots `training/Adagrad/<variable>/accumulator`), and its
    `iterations` is the global step, which the update increments (unless
    `owns_global_step=False`: the second optimizer of a wide-and-deep model).
    """

    def __init__(self, optimizer, owns_global_step: bool = True):
        super().__init__(use_locking=False, name=optimizer.get_config()["name"])
        self._keras = optimizer
        if owns_global_step:
            optimizer.iterations = tf.compat.v1.train.get_or_create_global_step()

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        del global_step, name  # Keras increments `iterations`, the global step.
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        # "training/" re-enters one scope for every optimizer of the step.
        with tf.compat.v1.name_scope("training/"):
            return self._keras.apply_gradients(pairs)

    def variables(self):
        return self._keras.variables()


def optimizer_for(
    optimizer, v1: bool, learning_rate, scope=None, owns_global_step=True
):
    """A canned estimator's optimizer behind the `tf.compat.v1.train` interface.

    Args:
      optimizer: what the estimator was given (instance, name or callable).
      v1: a v1 estimator (`tf.compat.v1.train` optimizers) or a v2 one (Keras).
      learning_rate: the learning rate of an optimizer given by name (v1; v2
        when the Keras optimizer has no default).
      scope: the variable scope a v1 estimator applied its update in.
      owns_global_step: whether a v2 optimizer's `iterations` is the step.
    """
    if v1:
        instance = get_optimizer_instance(optimizer, learning_rate)
        return instance if scope is None else ScopedOptimizer(instance, scope)
    return KerasOptimizer(
        get_optimizer_instance_v2(optimizer, learning_rate), owns_global_step
    )
