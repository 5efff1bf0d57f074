"""Misuse of replicate_model_fn / TowerOptimizer raises errors that say the fix."""

import re

import pytest
import tensorflow as tf
from conftest import ALL_DEVICES

import estimator_multigpu as emg
from estimator_multigpu.estimator._spec import EstimatorSpec, ModeKeys


def _loss(features):
    w = tf.compat.v1.get_variable("w", [features.shape[-1], 1])
    return tf.reduce_mean(tf.matmul(features, w))


def raw_apply_model_fn(features, labels, mode):
    """Updates the variable with an Apply op of its own, not an optimizer."""
    loss = _loss(features)
    w = tf.compat.v1.trainable_variables()[0]
    grad = tf.gradients(loss, w)[0]
    if hasattr(w, "handle"):  # A resource variable (v2 behaviour).
        train_op = tf.raw_ops.ResourceApplyGradientDescent(
            var=w.handle, alpha=0.1, delta=grad
        )  # line!
    else:
        train_op = tf.raw_ops.ApplyGradientDescent(
            var=w, alpha=0.1, delta=grad
        ).op  # line!
    return EstimatorSpec(mode, loss=loss, train_op=train_op)


def manual_update_model_fn(features, labels, mode):
    loss = _loss(features)
    w = tf.compat.v1.trainable_variables()[0]
    train_op = w.assign_sub(0.1 * tf.gradients(loss, w)[0])
    return EstimatorSpec(mode, loss=loss, train_op=train_op)


def tf_variable_model_fn(features, labels, mode):
    w = tf.compat.v1.Variable(tf.ones([2, 1]), name="plain")
    return EstimatorSpec(mode, predictions=tf.matmul(features, w))


def later_tower_variable_model_fn(features, labels, mode):
    """Creates a variable outside its tower's name scope in tower 1 only."""
    w = tf.compat.v1.get_variable("w", [2, 1])
    if emg.towers.tower_index() > 0:
        tf.compat.v1.get_variable("counter", [], trainable=False)
    return EstimatorSpec(mode, predictions=tf.matmul(features, w))


def not_a_spec_model_fn(features, labels, mode):
    return {"loss": _loss(features)}


def _build(model_fn, features=None, labels=None, mode=ModeKeys.TRAIN, **options):
    with tf.Graph().as_default():
        features = tf.ones([4, 2]) if features is None else features()
        replicated = emg.replicate_model_fn(
            model_fn, devices=ALL_DEVICES[:2], **options
        )
        return replicated(features, labels, mode)


def test_own_apply_op_names_the_line():
    with pytest.raises(
        ValueError, match=r"In tower 0, the model_fn updates variables itself"
    ) as info:
        _build(raw_apply_model_fn)
    assert re.search(
        r"test_towers_errors.py:\d+: train_op = tf.raw_ops", str(info.value)
    )
    assert "tf.compat.v1.train optimizer's minimize" in str(info.value)


def test_train_op_without_tower_optimizer():
    with pytest.raises(
        ValueError, match="train_op was not built by emg.TowerOptimizer"
    ):
        _build(manual_update_model_fn)


def test_new_variables_in_later_towers():
    with pytest.raises(
        ValueError, match=r"Tower 1 created new variables \['counter:0'\]"
    ):
        _build(later_tower_variable_model_fn, mode=ModeKeys.PREDICT)


def test_model_fn_must_return_a_spec():
    with pytest.raises(
        ValueError,
        match="model_fn should return an EstimatorSpec; in tower 0 it returned dict",
    ):
        _build(not_a_spec_model_fn)


@pytest.mark.parametrize(
    "options, error, message",
    [
        ({"devices": []}, ValueError, r"`devices` is empty"),
        (
            {"devices": ["/cpu:9"]},
            ValueError,
            r"`devices` names '/cpu:9', which does not exist",
        ),
        ({"devices": "/cpu:0"}, TypeError, r"`devices` must be a list"),
        (
            {"loss_reduction": "avg"},
            ValueError,
            r"`loss_reduction` must be 'mean' or 'sum'; received 'avg'",
        ),
        (
            {"variable_device": "disk"},
            ValueError,
            r"`variable_device` must be .* received 'disk'",
        ),
        ({"variable_device": 3}, TypeError, r"`variable_device` must be .* received 3"),
        (
            {"remainder": "pad"},
            ValueError,
            r"`remainder` must be one of .* received 'pad'",
        ),
    ],
    ids=[
        "empty_devices",
        "missing_device",
        "device_string",
        "reduction",
        "variable_device",
        "variable_device_type",
        "remainder",
    ],
)
def test_bad_arguments(options, error, message):
    with pytest.raises(error, match=message):
        emg.replicate_model_fn(raw_apply_model_fn, **options)


@pytest.mark.parametrize(
    "model_fn, error, message",
    [
        (None, TypeError, r"`model_fn` must be a function"),
        (lambda x, mode: x, ValueError, r"takes no `features` argument"),
    ],
    ids=["not_callable", "no_features"],
)
def test_bad_model_fn(model_fn, error, message):
    with pytest.raises(error, match=message):
        emg.replicate_model_fn(model_fn)


@pytest.mark.parametrize(
    "optimizer, options, error, message",
    [
        (
            "sgd",
            {},
            TypeError,
            r"`optimizer` must be a tf.compat.v1.train.Optimizer.*received 'sgd'",
        ),
        (
            None,
            {"clip_global_norm": -1.0},
            ValueError,
            r"`clip_global_norm` must be a positive number or None; received -1.0",
        ),
        (
            None,
            {"transform_gradients": 3},
            TypeError,
            r"`transform_gradients` must be a function",
        ),
    ],
    ids=["not_an_optimizer", "negative_clip", "transform_not_callable"],
)
def test_bad_tower_optimizer(optimizer, options, error, message):
    optimizer = optimizer or tf.compat.v1.train.GradientDescentOptimizer(0.1)
    with pytest.raises(error, match=message):
        emg.TowerOptimizer(optimizer, **options)


def test_tower_optimizer_wrapped_twice():
    inner = emg.TowerOptimizer(tf.compat.v1.train.GradientDescentOptimizer(0.1))
    with pytest.raises(TypeError, match="already a TowerOptimizer"):
        emg.TowerOptimizer(inner)


def test_remainder_error_static_batch():
    with pytest.raises(
        ValueError, match=r"global batch \(5 examples\) does not divide .* \(2\)"
    ):
        _build(
            tf_variable_model_fn, features=lambda: tf.ones([5, 2]), remainder="error"
        )


def test_remainder_error_unknown_batch_raises_when_run():
    def model_fn(features, mode):
        return EstimatorSpec(mode, predictions=features * 2)

    with tf.Graph().as_default():
        features = tf.compat.v1.placeholder(tf.float32, [None, 2])
        replicated = emg.replicate_model_fn(
            model_fn, devices=ALL_DEVICES[:2], remainder="error"
        )
        spec = replicated(features, None, ModeKeys.PREDICT)
        with tf.compat.v1.Session() as session:
            with pytest.raises(
                tf.errors.InvalidArgumentError,
                match="does not divide by the number of devices",
            ):
                session.run(spec.predictions, {features: [[1.0, 2.0]] * 3})


@pytest.mark.parametrize(
    "features, error, message",
    [
        (lambda: tf.constant(1.0), ValueError, r"is a scalar"),
        (
            lambda: tf.ragged.constant([[1.0], [2.0, 3.0]]),
            TypeError,
            r"Cannot split a RaggedTensor.*to_sparse\(\) is split by rows",
        ),
    ],
    ids=["scalar", "ragged"],
)
def test_unsplittable_features(features, error, message):
    with tf.Graph().as_default():
        replicated = emg.replicate_model_fn(
            tf_variable_model_fn, devices=ALL_DEVICES[:2]
        )
        with pytest.raises(error, match=message):
            replicated(features(), None, ModeKeys.PREDICT)


def test_per_device_built_for_other_devices():
    with tf.Graph().as_default():
        shards = emg.PerDevice([tf.ones([2, 2])] * 2, ALL_DEVICES[2:])
        replicated = emg.replicate_model_fn(
            tf_variable_model_fn, devices=ALL_DEVICES[:2]
        )
        with pytest.raises(ValueError, match=r"`features` holds shards for devices"):
            replicated(shards, None, ModeKeys.PREDICT)


def test_per_device_labels_with_plain_features():
    with tf.Graph().as_default():
        labels = emg.PerDevice([tf.ones([2])] * 2, ALL_DEVICES[:2])
        replicated = emg.replicate_model_fn(
            tf_variable_model_fn, devices=ALL_DEVICES[:2]
        )
        with pytest.raises(
            TypeError, match=r"`labels` is a PerDevice but `features` is not"
        ):
            replicated(tf.ones([4, 2]), labels, ModeKeys.PREDICT)


def test_labels_for_a_model_fn_without_labels():
    def model_fn(features, mode):
        return EstimatorSpec(mode, predictions=features)

    with tf.Graph().as_default():
        replicated = emg.replicate_model_fn(model_fn, devices=ALL_DEVICES[:2])
        with pytest.raises(ValueError, match="takes no `labels` argument"):
            replicated(tf.ones([4, 2]), tf.ones([4]), ModeKeys.PREDICT)
