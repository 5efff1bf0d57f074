"""Both input_fn builders drive the real tf.estimator.Estimator (TF <= 2.15)."""

import numpy as np
import pytest
import tensorflow as tf

import estimator_multigpu as emg
from estimator_multigpu import devices as devices_lib

tf_estimator = pytest.importorskip(
    "tensorflow_estimator", reason="tf.estimator exists on TF <= 2.15 only"
)
pytestmark = pytest.mark.tf_compat

BUILDERS = {
    "multi_device": emg.inputs.multi_device_input_fn,
    "sharded": emg.inputs.sharded_input_fn,
}


def _linear_data(ctx):
    x = np.linspace(-1, 1, 64, dtype=np.float32)[:, None]
    return tf.data.Dataset.from_tensor_slices(({"x": x}, 3.0 * x + 1.0))


def _model_fn(features, labels, mode):
    """A linear model that walks the shards by hand (no tower wrapper)."""
    w = tf.compat.v1.get_variable("w", [1, 1], initializer=tf.zeros_initializer())
    b = tf.compat.v1.get_variable("b", [1], initializer=tf.zeros_initializer())
    total_sq, total_count, preds = 0.0, 0, []
    for x, y, count, device in zip(
        features.values, labels.values, features.counts, features.devices
    ):
        with tf.device(device):
            pred = tf.matmul(x["x"], w) + b
            total_sq += tf.reduce_sum(tf.square(pred - y))
            total_count += count
            preds.append(pred)
    loss = total_sq / tf.maximum(tf.cast(total_count, tf.float32), 1.0)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.3).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step()
    )
    metrics = {"examples": tf.compat.v1.metrics.mean(tf.cast(total_count, tf.float32))}
    return tf.estimator.EstimatorSpec(
        mode, loss=loss, train_op=train_op, eval_metric_ops=metrics
    )


@pytest.mark.parametrize("name", sorted(BUILDERS), ids=sorted(BUILDERS))
def test_real_estimator_trains_and_evaluates(name, tmp_path):
    devices = devices_lib.resolve(num_gpus=2)
    build = BUILDERS[name]
    train_fn = build(
        _linear_data,
        devices,
        global_batch_size=16,
        shuffle_buffer_size=64,
        seed=1,
        num_epochs=None,
    )
    eval_fn = build(_linear_data, devices, global_batch_size=16)
    est = tf.estimator.Estimator(_model_fn, model_dir=str(tmp_path))
    before = est.train(train_fn, steps=1).evaluate(eval_fn)["loss"]
    result = est.train(train_fn, steps=40).evaluate(eval_fn)
    assert result["global_step"] == 41
    assert result["loss"] < 0.1 * before
    assert result["examples"] == pytest.approx(16.0)  # 4 full steps of 16.
    assert est.get_variable_value("w")[0, 0] == pytest.approx(3.0, abs=0.3)
