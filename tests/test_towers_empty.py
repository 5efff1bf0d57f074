"""A tower with no examples never runs its model on an empty batch.

oneDNN's CPU convolutions (on by default) fail on a zero-example batch
("input depth must be evenly divisible by filter depth"), so an empty tower
runs on a one-example stand-in whose loss, gradients, predictions and metric
updates are masked out exactly. Every case compares with one device.
"""

import numpy as np
import pytest
import tensorflow as tf
from conftest import ALL_DEVICES

import estimator_multigpu as emg
from estimator_multigpu.estimator._spec import EstimatorSpec, ModeKeys

pytestmark = pytest.mark.tf_compat

_RNG = np.random.RandomState(0)
X = _RNG.rand(5, 8, 8, 3).astype(np.float32)
Y = (np.arange(5) % 3).astype(np.int64)


def conv_model_fn(features, labels, mode):
    """Two convolutions (oneDNN kernels on CPU), then 3 logits per example."""
    init = tf.compat.v1.random_normal_initializer(seed=1)
    f1 = tf.compat.v1.get_variable("f1", [3, 3, 3, 8], initializer=init)
    f2 = tf.compat.v1.get_variable("f2", [3, 3, 8, 8], initializer=init)
    hidden = tf.nn.relu(tf.nn.conv2d(features, f1, 1, "SAME"))
    hidden = tf.nn.relu(tf.nn.conv2d(hidden, f2, 1, "SAME"))
    logits = tf.reduce_mean(hidden, [1, 2])[:, :3]
    # log(0) on the zero stand-in would be -inf: masking must still be exact.
    logits += 1e-3 * tf.math.log(tf.reduce_mean(features, [1, 2, 3]))[:, None]
    predicted = tf.argmax(logits, 1)
    predictions = {"class": predicted, "logits": logits}
    if mode == ModeKeys.PREDICT:
        return EstimatorSpec(mode, predictions=predictions)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    metrics = {
        "accuracy": tf.compat.v1.metrics.accuracy(labels, predicted),
        "mean_logit": tf.compat.v1.metrics.mean(logits),
    }
    optimizer = emg.TowerOptimizer(tf.compat.v1.train.GradientDescentOptimizer(0.5))
    train_op = optimizer.minimize(
        loss, global_step=tf.compat.v1.train.get_or_create_global_step()
    )
    return EstimatorSpec(
        mode,
        loss=loss,
        train_op=train_op,
        eval_metric_ops=metrics,
        predictions=predictions,
    )


def _split_input(batch, n):
    """Plain batches: the towers split each one (a batch of 1 leaves tower 1 empty)."""
    dataset = tf.data.Dataset.from_tensor_slices((X[:n], Y[:n])).batch(batch)
    return tf.compat.v1.data.make_one_shot_iterator(dataset).get_next()


def _sharded_input(devices, batch):
    input_fn = emg.inputs.sharded_input_fn(
        lambda ctx: tf.data.Dataset.from_tensor_slices((X, Y)),
        devices,
        global_batch_size=batch,
        remainder="uneven",
    )
    return input_fn()


def _initialize(session):
    session.run(tf.compat.v1.global_variables_initializer())
    session.run(tf.compat.v1.local_variables_initializer())
    session.run(tf.compat.v1.tables_initializer())


def _run(devices, mode, kind, batch=4, n=5):
    """Runs `mode` over the first `n` examples.

    Returns the metric values (EVAL), the trained variables (TRAIN) or each
    step's predictions (PREDICT).
    """
    with tf.Graph().as_default():
        tf.compat.v1.set_random_seed(0)
        if kind == "split":
            features, labels = _split_input(batch, n)
        else:
            features, labels = _sharded_input(devices, batch)
        model_fn = emg.replicate_model_fn(conv_model_fn, devices=devices)
        spec = model_fn(features, labels, mode)
        fetch = {
            ModeKeys.TRAIN: lambda: spec.train_op,
            ModeKeys.EVAL: lambda: [op for _, op in spec.eval_metric_ops.values()],
            ModeKeys.PREDICT: lambda: spec.predictions,
        }[mode]()
        outputs = []
        with tf.compat.v1.Session() as session:
            _initialize(session)
            with pytest.raises(tf.errors.OutOfRangeError):
                while len(outputs) < 100:
                    outputs.append(session.run(fetch))
            if mode == ModeKeys.EVAL:
                return session.run({k: v for k, (v, _) in spec.eval_metric_ops.items()})
            if mode == ModeKeys.TRAIN:
                return session.run(tf.compat.v1.trainable_variables())
        return outputs


@pytest.mark.parametrize(
    "kind, batch",
    [("split", 1), ("split", 4), ("sharded", 4)],
    ids=["split_batch1", "split_batch4", "sharded_batch4"],
)
def test_eval_with_an_empty_tower_equals_one_device(kind, batch):
    expected = _run(ALL_DEVICES[:1], ModeKeys.EVAL, "split", batch=5)
    merged = _run(ALL_DEVICES[:2], ModeKeys.EVAL, kind, batch)
    assert merged["accuracy"] == expected["accuracy"]
    np.testing.assert_allclose(merged["mean_logit"], expected["mean_logit"], rtol=1e-5)


@pytest.mark.parametrize("kind", ["split", "sharded"])
def test_predict_with_an_empty_tower_equals_one_device(kind):
    expected = _run(ALL_DEVICES[:1], ModeKeys.PREDICT, "split", batch=5)[0]
    steps = _run(ALL_DEVICES[:3], ModeKeys.PREDICT, kind, batch=4)
    classes = np.concatenate([s["class"] for s in steps])
    logits = np.concatenate([s["logits"] for s in steps])
    np.testing.assert_array_equal(classes, expected["class"])
    np.testing.assert_allclose(logits, expected["logits"], rtol=1e-5)


@pytest.mark.parametrize("kind", ["split", "sharded"])
def test_train_step_with_an_empty_tower_equals_one_device(kind):
    """One step on example 4 alone (towers 1 and 2 empty) after a full batch."""
    expected = _run(ALL_DEVICES[:1], ModeKeys.TRAIN, "split", batch=4)
    trained = _run(ALL_DEVICES[:3], ModeKeys.TRAIN, kind, batch=4)
    for got, want in zip(trained, expected):
        assert np.all(np.isfinite(got))
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)


def test_metrics_when_tower_zero_is_empty():
    """Tower 0's metric state goes back to before the step when it had no examples."""
    devices = ALL_DEVICES[:2]
    expected = _run(ALL_DEVICES[:1], ModeKeys.EVAL, "split", batch=3, n=3)
    with tf.Graph().as_default():
        tf.compat.v1.set_random_seed(0)
        with tf.device("/cpu:0"):  # Not known to be 0 when the graph is built.
            count0 = tf.compat.v1.placeholder_with_default(0, [])
        counts = [count0, tf.constant(3)]
        features = emg.PerDevice(
            [tf.constant(X[:0]), tf.constant(X[:3])], devices, counts
        )
        labels = emg.PerDevice(
            [tf.constant(Y[:0]), tf.constant(Y[:3])], devices, counts
        )
        spec = emg.replicate_model_fn(conv_model_fn, devices=devices)(
            features, labels, ModeKeys.EVAL
        )
        with tf.compat.v1.Session() as session:
            _initialize(session)
            updates = [op for _, op in spec.eval_metric_ops.values()]
            values = {k: v for k, (v, _) in spec.eval_metric_ops.items()}
            session.run(updates)
            got = session.run(values)
            # Resetting the metrics resets what the merge kept of them too.
            reset = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.METRIC_VARIABLES)
            session.run(updates)
            session.run(tf.compat.v1.variables_initializer(reset))
            session.run(updates)
            assert session.run(values) == got
    assert got["accuracy"] == expected["accuracy"]
    np.testing.assert_allclose(got["mean_logit"], expected["mean_logit"], rtol=1e-5)


def test_string_features_of_an_empty_tower_come_back_in_order():
    """The stand-in of a string feature is an empty string, trimmed like the rest."""
    names = np.array([b"a", b"bb", b"ccc"])

    def model_fn(features, labels, mode):
        del labels
        scale = tf.compat.v1.get_variable(
            "scale", [], initializer=tf.compat.v1.ones_initializer()
        )
        length = tf.cast(tf.strings.length(features["name"]), tf.float32) * scale
        return EstimatorSpec(
            mode, predictions={"name": features["name"], "length": length}
        )

    with tf.Graph().as_default():
        dataset = tf.data.Dataset.from_tensor_slices({"name": names}).batch(2)
        features = tf.compat.v1.data.make_one_shot_iterator(dataset).get_next()
        spec = emg.replicate_model_fn(model_fn, devices=ALL_DEVICES[:3])(
            features, None, ModeKeys.PREDICT
        )
        with tf.compat.v1.Session() as session:
            _initialize(session)
            steps = [session.run(spec.predictions) for _ in range(2)]
    assert [list(s["name"]) for s in steps] == [[b"a", b"bb"], [b"ccc"]]
    assert [list(s["length"]) for s in steps] == [[1.0, 2.0], [3.0]]
