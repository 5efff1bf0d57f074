"""device_array_dataset_fn drives Estimators: copies initialised at session start."""

import numpy as np
import pytest
import tensorflow as tf

import estimator_multigpu as emg

pytestmark = pytest.mark.tf_compat

SIGNAL = np.sin(
    np.arange(4000, dtype=np.float32) * 0.05
)  # x[t+1] ~ linear in x[t-3..t].
WINDOW = 5
STARTS = range(0, len(SIGNAL) - WINDOW + 1, 37)


def _inputs_and_target(fragments, starts):
    del starts
    return {"x": fragments[:, :-1]}, fragments[:, -1:]


def _model_fn(features, labels, mode):
    """A linear next-sample predictor that walks the shards by hand."""
    w = tf.compat.v1.get_variable(
        "w", [WINDOW - 1, 1], initializer=tf.zeros_initializer()
    )
    total_sq, total_count = 0.0, 0
    for x, y, count, device in zip(
        features.values, labels.values, features.counts, features.devices
    ):
        with tf.device(device):
            total_sq += tf.reduce_sum(tf.square(tf.matmul(x["x"], w) - y))
            total_count += count
    loss = total_sq / tf.maximum(tf.cast(total_count, tf.float32), 1.0)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.5).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step()
    )
    metrics = {"examples": tf.compat.v1.metrics.mean(tf.cast(total_count, tf.float32))}
    return emg.estimator.EstimatorSpec(
        mode, loss=loss, train_op=train_op, eval_metric_ops=metrics
    )


def _input_fns():
    devices = emg.devices.resolve(num_gpus=2)
    resident = emg.inputs.DeviceArray(SIGNAL)  # One copy per device, shared.

    def build(**options):
        dataset_fn = emg.inputs.device_array_dataset_fn(
            resident, STARTS, WINDOW, element_fn=_inputs_and_target, **options
        )
        return emg.inputs.sharded_input_fn(
            dataset_fn, devices, global_batch_size=16, seed=2, user_batches=True
        )

    return build(num_epochs=None), build(shuffle=False)


def _train_and_evaluate(estimator):
    train_fn, eval_fn = _input_fns()
    before = estimator.train(train_fn, steps=1).evaluate(eval_fn)
    after = estimator.train(train_fn, steps=30).evaluate(eval_fn)
    assert after["loss"] < 0.2 * before["loss"]
    assert after["global_step"] == 31


def test_emg_estimator_trains_and_evaluates(tmp_path):
    _train_and_evaluate(emg.estimator.Estimator(_model_fn, model_dir=str(tmp_path)))


def test_real_tf_estimator_trains_and_evaluates(tmp_path):
    pytest.importorskip(
        "tensorflow_estimator", reason="tf.estimator exists on TF <= 2.15"
    )
    _train_and_evaluate(tf.estimator.Estimator(_model_fn, model_dir=str(tmp_path)))
