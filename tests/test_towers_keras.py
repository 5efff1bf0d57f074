"""A model_fn that builds a Keras model on every call shares tower 0's variables.

tf_keras (Keras 2) layers and Keras 3 layers do not look at the variable
scope's reuse; later towers get tower 0's variables by creation order.
"""

import importlib

import numpy as np
import pytest
import tensorflow as tf
from conftest import ALL_DEVICES

import estimator_multigpu as emg
from estimator_multigpu.estimator._spec import EstimatorSpec, ModeKeys

pytestmark = pytest.mark.tf_compat


def _keras(name):
    """The Keras package `name`; skipped only where it is not installed."""
    try:
        return importlib.import_module(name)
    except ImportError:
        pytest.skip(f"{name} is not installed with this TensorFlow")


def _sequential(keras, dense_units=3, use_bias=True):
    init = keras.initializers.GlorotUniform
    return keras.Sequential(
        [
            keras.layers.Reshape((6, 6, 1)),
            keras.layers.Conv2D(2, 3, kernel_initializer=init(seed=1)),
            keras.layers.Flatten(),
            keras.layers.Dense(
                dense_units, kernel_initializer=init(seed=2), use_bias=use_bias
            ),
        ]
    )


def _train_spec(mode, logits, labels):
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.5)
    step = tf.compat.v1.train.get_or_create_global_step()
    return EstimatorSpec(mode, loss=loss, train_op=optimizer.minimize(loss, step))


def _model_fn(keras):
    def model_fn(features, labels, mode):
        model = _sequential(keras)  # A new model on every call, as in mnist.py.
        logits = model(features, training=mode == ModeKeys.TRAIN)
        return _train_spec(mode, logits, labels)

    return model_fn


def _first_step(model_fn, devices, keras=None):
    """Returns (loss, {variable name: value after one step}, trainable names).

    Keras 3 numbers layer names per process, not per graph:
    `keras.backend.clear_session()` makes every graph start from `sequential`.
    """
    if keras is not None:
        keras.backend.clear_session()
    with tf.Graph().as_default():
        rng = np.random.RandomState(0)
        features = tf.constant(rng.randn(8, 36).astype(np.float32))
        labels = tf.constant(rng.randint(0, 3, size=8).astype(np.int64))
        spec = emg.replicate_model_fn(model_fn, devices=devices)(
            features, labels, ModeKeys.TRAIN
        )
        variables = tf.compat.v1.global_variables()
        trainable = sorted(v.op.name for v in tf.compat.v1.trainable_variables())
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            _, loss = session.run([spec.train_op, spec.loss])
            values = {v.op.name: session.run(v) for v in variables}
    return loss, values, trainable


@pytest.mark.parametrize("package", ["tf_keras", "keras"])
@pytest.mark.slow
def test_keras_model_per_call_takes_the_one_device_step(package):
    keras = _keras(package)
    model_fn = _model_fn(keras)
    loss1, values1, trainable1 = _first_step(model_fn, ALL_DEVICES[:1], keras)
    assert len(trainable1) == 4, trainable1  # conv + dense, kernel and bias.
    for count in (2, 4):
        loss, values, trainable = _first_step(model_fn, ALL_DEVICES[:count], keras)
        assert trainable == trainable1, f"{count} devices"
        assert sorted(values) == sorted(values1), f"{count} devices"
        np.testing.assert_allclose(loss, loss1, rtol=1e-5)
        for name, value in values1.items():
            np.testing.assert_allclose(
                values[name], value, rtol=1e-5, atol=1e-6, err_msg=name
            )


def test_tf_variable_per_call_is_shared():
    def model_fn(features, labels, mode):
        w = tf.Variable(tf.ones([36, 3]), name="plain")
        return _train_spec(mode, tf.matmul(features, w), labels)

    _, values1, _ = _first_step(model_fn, ALL_DEVICES[:1])
    _, values4, trainable = _first_step(model_fn, ALL_DEVICES[:4])
    assert trainable == ["plain"]
    np.testing.assert_allclose(values4["plain"], values1["plain"], rtol=1e-5)


def _tower_dependent(keras, **later):
    def model_fn(features, labels, mode):
        model = _sequential(keras, **(later if emg.towers.tower_index() else {}))
        return _train_spec(mode, model(features), labels)

    return model_fn


@pytest.mark.parametrize("package", ["tf_keras", "keras"])
def test_different_layers_in_a_later_tower_name_both(package):
    model_fn = _tower_dependent(_keras(package), dense_units=4)
    with pytest.raises(ValueError) as info:
        _first_step(model_fn, ALL_DEVICES[:2])
    message = str(info.value)
    assert "Tower 1 creates a variable outside tf.compat.v1.get_variable" in message
    assert "creation #3 is 'tower_1/sequential" in message
    assert "(shape [32, 4], float32, trainable)" in message
    assert "tower 0's is '" in message and "(shape [32, 3], float32" in message
    assert "test_towers_keras.py" in message


@pytest.mark.parametrize("package", ["tf_keras", "keras"])
def test_fewer_layers_in_a_later_tower(package):
    model_fn = _tower_dependent(_keras(package), use_bias=False)
    with pytest.raises(ValueError, match=r"Tower 1 created 3 variables outside"):
        _first_step(model_fn, ALL_DEVICES[:2])


def test_model_built_once_creates_none_in_later_towers():
    keras = _keras("tf_keras")
    models = []

    def model_fn(features, labels, mode):
        if not models:
            models.append(_sequential(keras))
        return _train_spec(mode, models[0](features), labels)

    _, values, trainable = _first_step(model_fn, ALL_DEVICES[:2])
    assert len(trainable) == 4


def _estimator_model_fn(features, labels, mode):
    """mnist.py's shape: a tf_keras model per call, PREDICT with an export."""
    keras = _keras("tf_keras")
    logits = _sequential(keras)(features["x"], training=mode == ModeKeys.TRAIN)
    if mode == ModeKeys.PREDICT:
        return EstimatorSpec(mode, predictions={"classes": tf.argmax(logits, 1)})
    return _train_spec(mode, logits, labels)


def _train_evaluate_export(tmp_path, devices):
    rng = np.random.RandomState(1)
    x = rng.randn(16, 36).astype(np.float32)
    y = rng.randint(0, 3, size=16).astype(np.int64)

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(8)

    model_dir = str(tmp_path / f"model_{len(devices)}")
    estimator = emg.estimator.Estimator(
        emg.replicate_model_fn(_estimator_model_fn, devices=devices), model_dir
    )
    estimator.train(input_fn)
    metrics = estimator.evaluate(input_fn)
    with tf.Graph().as_default():  # As a TF1 script: a placeholder's spec.
        image = tf.compat.v1.placeholder(tf.float32, [None, 36])
    receiver = emg.estimator.export.build_raw_serving_input_receiver_fn({"x": image})
    estimator.export_saved_model(str(tmp_path / f"export_{len(devices)}"), receiver)
    return metrics, tf.train.list_variables(model_dir)


@pytest.mark.slow
def test_estimator_trains_evaluates_exports_a_keras_model_per_call(tmp_path):
    metrics1, saved1 = _train_evaluate_export(tmp_path, ALL_DEVICES[:1])
    metrics2, saved2 = _train_evaluate_export(tmp_path, ALL_DEVICES[:2])
    assert saved2 == saved1  # Same names and shapes: one set of variables.
    assert metrics2["global_step"] == metrics1["global_step"] == 2
    np.testing.assert_allclose(metrics2["loss"], metrics1["loss"], rtol=1e-4)


def _minimize_step(devices):
    """emg.towers.minimize over a tower_fn that builds a tf_keras model."""
    keras = _keras("tf_keras")

    def tower_fn(features, labels):
        logits = _sequential(keras)(features, training=True)
        return tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)

    with tf.Graph().as_default():
        rng = np.random.RandomState(2)
        features = tf.constant(rng.randn(8, 36).astype(np.float32))
        labels = tf.constant(rng.randint(0, 3, size=8).astype(np.int64))
        optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.5)
        loss, train_op = emg.towers.minimize(
            tower_fn, (features, labels), optimizer, devices=devices
        )
        variables = tf.compat.v1.global_variables()
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            _, loss = session.run([train_op, loss])
            return loss, {v.op.name: session.run(v) for v in variables}


def test_tower_loop_minimize_with_a_keras_model_per_tower():
    loss1, values1 = _minimize_step(ALL_DEVICES[:1])
    loss2, values2 = _minimize_step(ALL_DEVICES[:2])
    assert sorted(values2) == sorted(values1) and len(values1) == 4
    np.testing.assert_allclose(loss2, loss1, rtol=1e-5)
    for name, value in values1.items():
        np.testing.assert_allclose(values2[name], value, rtol=1e-5, atol=1e-6)
