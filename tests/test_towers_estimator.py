"""Replicated model_fns under tf.estimator (TF 2.15) and emg.estimator."""

import numpy as np
import pytest
import tensorflow as tf
from conftest import ALL_DEVICES
from placement_helpers import PlacementRecorder

import estimator_multigpu as emg
from estimator_multigpu.estimator._spec import HAS_TF_ESTIMATOR, EstimatorSpec, ModeKeys

_X = np.random.RandomState(5).randn(23, 3).astype(np.float32)
_Y = (_X[:, 0] > 0).astype(np.int64)

needs_tf_estimator = pytest.mark.skipif(
    not HAS_TF_ESTIMATOR, reason="tf.estimator was removed in TF 2.16"
)


def model_fn(features, labels, mode, params):
    x = features["x"]
    w = tf.compat.v1.get_variable("w", [3, 2], initializer=tf.zeros_initializer())
    logits = tf.matmul(x, w)
    classes = tf.argmax(logits, 1)
    predictions = {"x": x, "classes": classes}
    if mode == ModeKeys.PREDICT:
        return EstimatorSpec(mode, predictions=predictions)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    accuracy = tf.compat.v1.metrics.accuracy(labels, classes)
    optimizer = emg.TowerOptimizer(tf.compat.v1.train.GradientDescentOptimizer(0.5))
    step = tf.compat.v1.train.get_or_create_global_step()
    local_init = tf.group(
        tf.compat.v1.local_variables_initializer(), tf.compat.v1.tables_initializer()
    )
    return EstimatorSpec(
        mode,
        loss=loss,
        train_op=optimizer.minimize(loss, step),
        eval_metric_ops={"accuracy": accuracy},
        scaffold=tf.compat.v1.train.Scaffold(local_init_op=local_init)
        if params.get("own_scaffold")
        else None,
    )


def plain_input_fn():
    dataset = tf.data.Dataset.from_tensor_slices(({"x": _X}, _Y))
    return dataset.batch(7)  # 23 = 3 * 7 + 2: a short, uneven last batch.


def _per_device_input_fn(devices):
    return emg.inputs.multi_device_input_fn(
        lambda ctx: tf.data.Dataset.from_tensor_slices(({"x": _X}, _Y)),
        devices,
        global_batch_size=7,
        remainder="uneven",
    )


def _check(estimator, input_fn):
    towers = PlacementRecorder(("tower_1/",))
    estimator.train(input_fn, steps=3, hooks=[towers])
    assert towers.devices == {"tower_1/": {"/cpu:1"}}  # Not soft-placed on /cpu:0.
    metrics = estimator.evaluate(input_fn)
    assert 0.5 < metrics["accuracy"] <= 1.0
    assert metrics["global_step"] == 3
    predictions = list(estimator.predict(input_fn))
    np.testing.assert_allclose([p["x"] for p in predictions], _X)


@pytest.mark.tf_compat
@needs_tf_estimator
@pytest.mark.parametrize("per_device", [False, True], ids=["split", "per_device"])
def test_real_tf_estimator(tmp_path, per_device):
    devices = ALL_DEVICES[:2]
    input_fn = _per_device_input_fn(devices) if per_device else plain_input_fn
    # tf.estimator's own session config sees only /cpu:0 (see docs/devices.md).
    config = tf.estimator.RunConfig(session_config=emg.devices.session_config())
    estimator = tf.estimator.Estimator(
        emg.replicate_model_fn(model_fn, devices=devices),
        model_dir=str(tmp_path),
        config=config,
        params={"own_scaffold": per_device},
    )
    _check(estimator, input_fn)


@pytest.mark.tf_compat
@needs_tf_estimator
def test_real_tf_estimator_export_serves_on_one_device(tmp_path):
    estimator = tf.estimator.Estimator(
        emg.replicate_model_fn(model_fn, devices=ALL_DEVICES[:2]),
        model_dir=str(tmp_path / "model"),
        params={},
    )
    estimator.train(plain_input_fn, steps=2)

    def receiver():
        x = tf.compat.v1.placeholder(tf.float32, [None, 3])
        return tf.estimator.export.ServingInputReceiver({"x": x}, {"x": x})

    export_dir = estimator.export_saved_model(str(tmp_path / "export"), receiver)
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        meta = tf.compat.v1.saved_model.loader.load(
            session, ["serve"], export_dir, clear_devices=True
        )
        signature = meta.signature_def["serving_default"]
        fetch = signature.outputs["x"].name
        feed = {signature.inputs["x"].name: _X[:5]}
        np.testing.assert_allclose(session.run(fetch, feed), _X[:5])


@pytest.mark.tf_compat
@pytest.mark.parametrize("per_device", [False, True], ids=["split", "per_device"])
def test_emg_estimator(tmp_path, per_device):
    devices = ALL_DEVICES[:2]
    input_fn = _per_device_input_fn(devices) if per_device else plain_input_fn
    estimator = emg.estimator.Estimator(
        model_fn,
        model_dir=str(tmp_path),
        config=emg.estimator.RunConfig(devices=devices),
        params={"own_scaffold": per_device},
    )
    _check(estimator, input_fn)
