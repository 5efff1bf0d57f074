"""EVAL metrics merge exactly; PREDICT outputs come back in global-batch order."""

import numpy as np
import pytest
import tensorflow as tf
from conftest import ALL_DEVICES
from tensorflow.python.saved_model.model_utils import export_output

import estimator_multigpu as emg
from estimator_multigpu.estimator._spec import EstimatorSpec, ModeKeys

pytestmark = pytest.mark.tf_compat

_NUM_EXAMPLES, _BATCH = 1003, 64


def _data():
    rng = np.random.RandomState(1)
    x = rng.randn(_NUM_EXAMPLES, 5).astype(np.float32)
    return x, (x[:, 0] + 0.5 * rng.randn(_NUM_EXAMPLES) > 0).astype(np.int64)


def eval_model_fn(features, labels, mode):
    w = tf.compat.v1.get_variable(
        "w", [5, 2], initializer=tf.compat.v1.random_normal_initializer(seed=3)
    )
    logits = tf.matmul(features, w)
    predicted = tf.argmax(logits, 1)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    metrics = {
        "accuracy": tf.compat.v1.metrics.accuracy(labels, predicted),
        "true_positives": tf.compat.v1.metrics.true_positives(labels, predicted),
        "mean_logit": tf.compat.v1.metrics.mean(logits[:, 1]),
        "auc": tf.compat.v1.metrics.auc(labels, tf.nn.softmax(logits)[:, 1]),
    }
    return EstimatorSpec(mode, loss=loss, eval_metric_ops=metrics)


def _plain_input():
    x, y = _data()
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(_BATCH)
    return tf.compat.v1.data.make_one_shot_iterator(dataset).get_next()


def _per_device_input(devices):
    x, y = _data()
    input_fn = emg.inputs.multi_device_input_fn(
        lambda ctx: tf.data.Dataset.from_tensor_slices((x, y)),
        devices,
        global_batch_size=_BATCH,
        remainder="uneven",
    )
    return input_fn()


def _evaluate(devices, per_device):
    """Runs EVAL over all examples; returns {metric: value}."""
    with tf.Graph().as_default():
        features, labels = _per_device_input(devices) if per_device else _plain_input()
        model_fn = emg.replicate_model_fn(eval_model_fn, devices=devices)
        spec = model_fn(features, labels, ModeKeys.EVAL)
        updates = [op for _, op in spec.eval_metric_ops.values()]
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            session.run(tf.compat.v1.local_variables_initializer())
            session.run(tf.compat.v1.tables_initializer())
            while True:
                try:
                    session.run(updates)
                except tf.errors.OutOfRangeError:
                    break
            return session.run({k: v for k, (v, _) in spec.eval_metric_ops.items()})


@pytest.mark.parametrize("per_device", [False, True], ids=["split", "per_device"])
def test_metrics_equal_single_device(per_device):
    reference = _evaluate(ALL_DEVICES[:1], per_device=False)
    merged = _evaluate(ALL_DEVICES[:3], per_device)
    assert merged["accuracy"] == reference["accuracy"]
    assert merged["true_positives"] == reference["true_positives"]
    assert 0 < reference["true_positives"] < _NUM_EXAMPLES
    np.testing.assert_allclose(merged["mean_logit"], reference["mean_logit"], rtol=1e-6)
    np.testing.assert_allclose(merged["auc"], reference["auc"], rtol=1e-6)


def predict_model_fn(features, mode):
    scores = tf.stack([features, 2 * features, 3 * features], axis=1)
    classes = tf.strings.as_string(tf.cast(scores, tf.int64))
    return EstimatorSpec(
        mode,
        predictions={"x": features, "scores": scores},
        export_outputs={
            "classify": export_output.ClassificationOutput(scores, classes),
            "serving_default": export_output.PredictOutput({"x": features}),
        },
    )


def _predict_features(devices, per_device, num, batch):
    dataset = tf.data.Dataset.range(num).map(lambda i: tf.cast(i, tf.float32))
    if per_device:  # Shards with zero examples in the last step.
        input_fn = emg.inputs.multi_device_input_fn(
            lambda ctx: dataset, devices, global_batch_size=batch, remainder="uneven"
        )
        features, _ = input_fn()
        return features
    return tf.compat.v1.data.make_one_shot_iterator(dataset.batch(batch)).get_next()


@pytest.mark.parametrize("per_device", [False, True], ids=["split", "per_device"])
def test_predictions_in_global_batch_order(device_list, per_device):
    num, batch = 10, 4  # The last batch (2 examples) leaves towers empty.
    with tf.Graph().as_default():
        features = _predict_features(device_list, per_device, num, batch)
        model_fn = emg.replicate_model_fn(predict_model_fn, devices=device_list)
        spec = model_fn(features, None, ModeKeys.PREDICT)
        classify = spec.export_outputs["classify"]
        fetches = (spec.predictions, classify.scores, classify.classes)
        got = {"x": [], "scores": [], "classes": []}
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.tables_initializer())
            for _ in range(3):
                predictions, scores, classes = session.run(fetches)
                got["x"].append(predictions["x"])
                got["scores"].append(scores)
                got["classes"].append(classes)
            with pytest.raises(tf.errors.OutOfRangeError):
                session.run(fetches)
    x = np.concatenate(got["x"])
    np.testing.assert_array_equal(x, np.arange(num))
    np.testing.assert_array_equal(np.concatenate(got["scores"])[:, 2], 3 * x)
    classes = np.concatenate(got["classes"])
    assert classes.shape == (num, 3)
    assert classes[7, 1] == b"14"
