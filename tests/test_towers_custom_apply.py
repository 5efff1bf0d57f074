"""An optimizer subclass with its own `apply_gradients` (an AdamW) under towers."""

import re

import numpy as np
import pytest
import tensorflow as tf
from conftest import ALL_DEVICES
from test_towers_gradients import (
    _assert_same_step,
    _logits,
    _one_step,
    _update_ops_and,
)

import estimator_multigpu as emg
from estimator_multigpu.estimator._spec import EstimatorSpec

DEVICE_COUNTS = [1, 2, 3]
_IDS = [f"{n}dev" for n in DEVICE_COUNTS]


class AdamWeightDecay(tf.compat.v1.train.Optimizer):
    """The widely copied AdamW shape: apply_gradients only, no _apply_dense.

    Its slots are `tf.compat.v1.get_variable`s named after the variable, its
    update is plain assign ops, and it never touches `global_step`.
    """

    def __init__(self, learning_rate, weight_decay_rate=0.01, name="AdamWeightDecay"):
        super().__init__(False, name)
        self.learning_rate = learning_rate
        self.weight_decay_rate = weight_decay_rate
        self.beta_1, self.beta_2, self.epsilon = 0.9, 0.999, 1e-6

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        assignments = []
        for grad, param in grads_and_vars:
            if grad is None or param is None:
                continue
            grad = tf.convert_to_tensor(grad)
            param_name = re.sub(r":\d+$", "", param.name)
            m, v = (
                tf.compat.v1.get_variable(
                    f"{param_name}/adam_{slot}",
                    shape=param.shape.as_list(),
                    dtype=tf.float32,
                    trainable=False,
                    initializer=tf.zeros_initializer(),
                )
                for slot in ("m", "v")
            )
            next_m = self.beta_1 * m + (1.0 - self.beta_1) * grad
            next_v = self.beta_2 * v + (1.0 - self.beta_2) * tf.square(grad)
            update = next_m / (tf.sqrt(next_v) + self.epsilon)
            if "bias" not in param_name:
                update += self.weight_decay_rate * param
            assignments += [
                param.assign(param - self.learning_rate * update),
                m.assign(next_m),
                v.assign(next_v),
            ]
        return tf.group(*assignments, name=name)


def _loss(features, labels):
    logits = _logits(features)
    tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    return tf.compat.v1.losses.get_total_loss()


def _spec(mode, loss, train_op):
    return EstimatorSpec(mode, loss=loss, train_op=train_op)


def compute_apply_model_fn(features, labels, mode):
    loss = _loss(features, labels)
    optimizer = AdamWeightDecay(0.1)
    pairs = optimizer.compute_gradients(loss)
    step = tf.compat.v1.train.get_or_create_global_step()
    # After all gradients: the update reads the variables it assigns.
    waits = _update_ops_and(loss) + [g for g, _ in pairs]
    with tf.control_dependencies(waits):
        return _spec(mode, loss, optimizer.apply_gradients(pairs, step))


def minimize_model_fn(features, labels, mode):
    loss = _loss(features, labels)
    step = tf.compat.v1.train.get_or_create_global_step()
    with tf.control_dependencies(_update_ops_and(loss)):
        train_op = AdamWeightDecay(0.1).minimize(loss, step)
    return _spec(mode, loss, train_op)


def _bert_style_model_fn(clip):
    """tf.gradients, the optimizer's own apply, then global_step + 1 by hand."""

    def model_fn(features, labels, mode):
        loss = _loss(features, labels)
        step = tf.compat.v1.train.get_or_create_global_step()
        tvars = tf.compat.v1.trainable_variables()
        grads = tf.tuple(tf.gradients(loss, tvars))
        optimizer = AdamWeightDecay(0.1)
        if clip:
            optimizer = emg.TowerOptimizer(optimizer, clip_global_norm=clip)
        with tf.control_dependencies(_update_ops_and(loss)):
            train_op = optimizer.apply_gradients(zip(grads, tvars), global_step=step)
        train_op = tf.group(train_op, [step.assign(step + 1)])
        return _spec(mode, loss, train_op)

    return model_fn


MODEL_FNS = [
    compute_apply_model_fn,
    minimize_model_fn,
    _bert_style_model_fn(clip=None),
    _bert_style_model_fn(clip=0.05),
]
_MODEL_IDS = ["compute_apply", "minimize", "tf_gradients", "tower_optimizer_clip"]


@pytest.mark.parametrize("model_fn", MODEL_FNS, ids=_MODEL_IDS)
@pytest.mark.parametrize("num_devices", DEVICE_COUNTS, ids=_IDS)
def test_step_equals_single_device(model_fn, num_devices):
    reference = _one_step(model_fn, ALL_DEVICES[:1], 7, True)
    replicated = _one_step(model_fn, ALL_DEVICES[:num_devices], 7, True)
    _assert_same_step(reference, replicated)
    changes = reference[1]
    assert np.max(np.abs(changes["dense/kernel"])) > 0  # The test can fail.
    assert np.max(np.abs(changes["dense/kernel/adam_v"])) > 0  # Its own slots.


def bert_clipped_model_fn(features, labels, mode):
    """BERT's create_optimizer: the clip is inside the tower."""
    loss = _loss(features, labels)
    tvars = tf.compat.v1.trainable_variables()
    grads, _ = tf.clip_by_global_norm(tf.gradients(loss, tvars), clip_norm=1.0)
    train_op = AdamWeightDecay(0.1).apply_gradients(zip(grads, tvars))
    return _spec(mode, loss, train_op)


def test_a_clip_inside_the_tower_names_the_tower_optimizer_fix():
    with pytest.raises(
        ValueError,
        match=r"Tower 0's apply_gradients received gradients clipped inside the "
        r"tower \(clip_by_global_norm.*emg\.TowerOptimizer\(optimizer, "
        r"clip_global_norm=",
    ):
        _one_step(bert_clipped_model_fn, ALL_DEVICES[:2], 7, True)


class _OwnGradients(tf.compat.v1.train.Optimizer):
    """Overrides compute_gradients too: its calls are its own, as before."""

    def compute_gradients(self, loss, var_list=None, **kwargs):
        return list(zip(tf.gradients(loss, var_list), var_list))

    apply_gradients = AdamWeightDecay.apply_gradients


def own_gradients_model_fn(features, labels, mode):
    loss = _loss(features, labels)
    optimizer = _OwnGradients(False, "OwnGradients")
    optimizer.learning_rate, optimizer.weight_decay_rate = 0.1, 0.0
    optimizer.beta_1, optimizer.beta_2, optimizer.epsilon = 0.9, 0.999, 1e-6
    pairs = optimizer.compute_gradients(loss, tf.compat.v1.trainable_variables())
    return _spec(mode, loss, optimizer.apply_gradients(pairs))


def test_a_subclass_with_its_own_compute_gradients_is_not_routed():
    with pytest.raises(ValueError, match=r"updates variables itself"):
        _one_step(own_gradients_model_fn, ALL_DEVICES[:2], 7, True)


class _DoubledAdamWeightDecay(AdamWeightDecay):
    """A subclass of the subclass whose apply hands its base other gradients."""

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        doubled = [
            (None if g is None else 2.0 * tf.convert_to_tensor(g), v)
            for g, v in grads_and_vars
        ]
        return super().apply_gradients(doubled, global_step, name)


def doubled_model_fn(features, labels, mode):
    loss = _loss(features, labels)
    optimizer = _DoubledAdamWeightDecay(0.1)
    with tf.control_dependencies(_update_ops_and(loss)):
        return _spec(mode, loss, optimizer.minimize(loss))


@pytest.mark.parametrize("num_devices", DEVICE_COUNTS, ids=_IDS)
def test_a_subclass_of_the_subclass_applies_once(num_devices):
    reference = _one_step(doubled_model_fn, ALL_DEVICES[:1], 7, True)
    replicated = _one_step(doubled_model_fn, ALL_DEVICES[:num_devices], 7, True)
    _assert_same_step(reference, replicated)
    plain = _one_step(minimize_model_fn, ALL_DEVICES[:1], 7, True)
    # Adam's first step barely depends on the gradient's scale; its moment does.
    np.testing.assert_allclose(
        reference[1]["dense/kernel/adam_m"],
        2 * plain[1]["dense/kernel/adam_m"],
        rtol=1e-5,
    )
