"""Variable names, placement and checkpoints are those of a single-device run."""

import numpy as np
import pytest
import tensorflow as tf
from conftest import ALL_DEVICES

import estimator_multigpu as emg
from estimator_multigpu import devices as devices_lib
from estimator_multigpu.estimator._spec import EstimatorSpec, ModeKeys

pytestmark = pytest.mark.tf_compat


def model_fn(features, labels, mode):
    init = tf.compat.v1.random_normal_initializer(seed=4)
    with tf.compat.v1.variable_scope("layer"):
        w = tf.compat.v1.get_variable("kernel", [3, 4], initializer=init)
        b = tf.compat.v1.get_variable("bias", [4], initializer=init)
    loss = tf.reduce_mean(tf.square(tf.matmul(features, w) + b - labels))
    optimizer = emg.TowerOptimizer(tf.compat.v1.train.AdamOptimizer(0.1))
    step = tf.compat.v1.train.get_or_create_global_step()
    return EstimatorSpec(mode, loss=loss, train_op=optimizer.minimize(loss, step))


def _graph(devices, **options):
    """Builds a training graph; returns (spec, global variables)."""
    rng = np.random.RandomState(0)
    features = tf.constant(rng.randn(8, 3).astype(np.float32))
    labels = tf.constant(rng.randn(8, 4).astype(np.float32))
    replicated = emg.replicate_model_fn(model_fn, devices=devices, **options)
    spec = replicated(features, labels, ModeKeys.TRAIN)
    return spec, tf.compat.v1.global_variables()


def _train_and_save(devices, path):
    with tf.Graph().as_default():
        spec, variables = _graph(devices)
        saver = tf.compat.v1.train.Saver()
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            session.run(spec.train_op)
            saver.save(session, path)
            return {v.op.name: session.run(v) for v in variables}


def _restore(devices, path):
    with tf.Graph().as_default():
        _, variables = _graph(devices)
        with tf.compat.v1.Session() as session:
            tf.compat.v1.train.Saver().restore(session, path)
            return {v.op.name: session.run(v) for v in variables}


@pytest.mark.parametrize(
    "writer, reader", [(4, 1), (1, 4)], ids=["4_to_1_device", "1_to_4_devices"]
)
def test_checkpoints_move_between_device_counts(tmp_path, writer, reader):
    path = str(tmp_path / "model.ckpt")
    saved = _train_and_save(ALL_DEVICES[:writer], path)
    restored = _restore(ALL_DEVICES[:reader], path)
    assert sorted(restored) == sorted(saved)
    assert "layer/kernel/Adam" in saved and "beta1_power" in saved
    for name, value in saved.items():
        np.testing.assert_array_equal(restored[name], value, err_msg=name)


def _devices_of(variables):
    return {v.op.name: devices_lib.canonical(v.device) for v in variables}


@pytest.mark.parametrize(
    "variable_device, expected",
    [("auto", "/cpu:1"), ("cpu", "/cpu:0"), ("/cpu:3", "/cpu:3")],
    ids=["auto", "cpu", "explicit"],
)
def test_variable_device(variable_device, expected):
    with tf.Graph().as_default():
        _, variables = _graph(ALL_DEVICES[1:3], variable_device=variable_device)
        layer = [v for v in variables if v.op.name.startswith("layer/")]
        assert set(_devices_of(layer).values()) == {expected}


def test_variable_device_gpu_spreads_by_size():
    with tf.Graph().as_default():
        _, variables = _graph(ALL_DEVICES[:2], variable_device="gpu")
        placed = _devices_of(variables)
        assert placed["layer/kernel"] != placed["layer/bias"]


def test_tower_ops_on_their_devices_and_scopes():
    with tf.Graph().as_default():
        _graph(ALL_DEVICES[:2])
        graph = tf.compat.v1.get_default_graph()
        first = graph.get_operation_by_name("MatMul")
        second = graph.get_operation_by_name("tower_1/MatMul")
        assert devices_lib.canonical(first.device) == "/cpu:0"
        assert devices_lib.canonical(second.device) == "/cpu:1"


def test_single_device_runs_model_fn_unchanged():
    def count_ops(wrap):
        with tf.Graph().as_default() as graph:
            features, labels = tf.ones([8, 3]), tf.ones([8, 4])
            fn = (
                emg.replicate_model_fn(model_fn, devices=["/cpu:0"])
                if wrap
                else model_fn
            )
            spec = fn(features, labels, ModeKeys.TRAIN)
            return len(graph.get_operations()), spec.loss.name

    assert count_ops(wrap=True) == count_ops(wrap=False)


def _has_legacy_layers():
    try:
        return callable(tf.compat.v1.layers.dense)
    except (AttributeError, ImportError):  # Keras 3 without tf-keras.
        return False


def layers_model_fn(features, labels, mode):
    x = tf.compat.v1.layers.dense(features, 8)
    x = tf.compat.v1.layers.batch_normalization(x, training=True)
    loss = tf.reduce_mean(tf.square(tf.compat.v1.layers.dense(x, 1) - labels))
    optimizer = emg.TowerOptimizer(tf.compat.v1.train.AdamOptimizer(0.1))
    with tf.control_dependencies(tf.compat.v1.get_collection("update_ops")):
        train_op = optimizer.minimize(
            loss, tf.compat.v1.train.get_or_create_global_step()
        )
    return EstimatorSpec(mode, loss=loss, train_op=train_op)


def _layer_variable_names(devices):
    with tf.Graph().as_default():
        features, labels = tf.random.normal([6, 3], seed=1), tf.ones([6, 1])
        replicated = emg.replicate_model_fn(layers_model_fn, devices=devices)
        spec = replicated(features, labels, ModeKeys.TRAIN)
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            assert np.isfinite(session.run([spec.loss, spec.train_op])[0])
        return sorted(v.op.name for v in tf.compat.v1.global_variables())


@pytest.mark.skipif(not _has_legacy_layers(), reason="needs tf.compat.v1.layers")
def test_legacy_layers_keep_single_device_names():
    names = _layer_variable_names(ALL_DEVICES[:1])
    assert "dense_1/kernel" in names and "batch_normalization/moving_mean" in names
    assert _layer_variable_names(ALL_DEVICES[:4]) == names
