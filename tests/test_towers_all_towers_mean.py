"""`emg.towers.all_towers_mean`: hooks and summaries see the global-batch value."""

import numpy as np
import pytest
import tensorflow as tf
from conftest import ALL_DEVICES

import estimator_multigpu as emg
from estimator_multigpu.estimator._spec import EstimatorSpec, ModeKeys

_FEATURES = np.arange(10, dtype=np.float32).reshape(5, 2)  # Uneven over 2 and 3.


def model_fn(features, labels, mode, params):
    """Logs tower 0's own loss and the all-tower loss, like a user would."""
    w = tf.compat.v1.get_variable("w", [2, 1], initializer=tf.ones_initializer())
    loss = tf.reduce_mean(tf.square(tf.matmul(features, w)))
    merged = emg.towers.all_towers_mean(loss)
    tf.compat.v1.summary.scalar("loss_all_towers", merged)
    hook = tf.compat.v1.train.LoggingTensorHook(
        {"own": loss, "all": merged},
        every_n_iter=1,
        formatter=lambda values: params["logged"].append(dict(values)) or "",
    )
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.0)
    step = tf.compat.v1.train.get_or_create_global_step()
    return EstimatorSpec(
        mode,
        loss=loss,
        train_op=optimizer.minimize(loss, step),
        training_hooks=[hook],
    )


def _run(devices, features):
    logged = []
    with tf.Graph().as_default():
        replicated = emg.replicate_model_fn(model_fn, devices=devices)
        spec = replicated(features(), None, ModeKeys.TRAIN, {"logged": logged})
        summary = tf.compat.v1.summary.merge_all()
        with tf.compat.v1.train.MonitoredSession(hooks=spec.training_hooks) as session:
            loss, summary_bytes, _ = session.run([spec.loss, summary, spec.train_op])
    (value,) = tf.compat.v1.Summary.FromString(summary_bytes).value
    return loss, value.simple_value, logged[0]


@pytest.mark.tf_compat
@pytest.mark.parametrize("num_devices", [1, 2, 3], ids=["1dev", "2dev", "3dev"])
@pytest.mark.parametrize(
    "features",
    [
        lambda: tf.constant(_FEATURES),
        lambda: tf.compat.v1.placeholder_with_default(_FEATURES[:2], [None, 2]),
    ],
    ids=["uneven_static", "empty_tower_dynamic"],
)
def test_hook_and_summary_see_the_global_batch_loss(num_devices, features):
    loss, summarised, logged = _run(ALL_DEVICES[:num_devices], features)
    np.testing.assert_allclose(logged["all"], loss, rtol=1e-6)
    np.testing.assert_allclose(summarised, loss, rtol=1e-6)
    if num_devices > 1:  # Tower 0's own value is not the global one.
        assert not np.isclose(logged["own"], loss)


def test_outside_towers_it_is_the_value():
    with tf.Graph().as_default():
        value = tf.constant(2.5)
        with tf.compat.v1.Session() as session:
            assert session.run(emg.towers.all_towers_mean(value)) == 2.5


def test_integer_values_average_as_float():
    def int_model_fn(features, mode):
        count = emg.towers.all_towers_mean(tf.shape(features)[0])
        return EstimatorSpec(mode, predictions={"x": features}, loss=count)

    with tf.Graph().as_default():
        replicated = emg.replicate_model_fn(int_model_fn, devices=ALL_DEVICES[:2])
        spec = replicated(tf.constant(_FEATURES), None, ModeKeys.EVAL)
        (merged,) = [
            op.outputs[0]
            for op in tf.compat.v1.get_default_graph().get_operations()
            if op.name == "all_towers_mean"
        ]
        with tf.compat.v1.Session() as session:
            # Towers of 3 and 2 examples: (3 * 3 + 2 * 2) / 5.
            np.testing.assert_allclose(session.run(merged), 13 / 5, rtol=1e-6)
    assert spec.loss is not None


@pytest.mark.parametrize(
    "value, error, message",
    [
        (lambda: tf.ones([3]), ValueError, r"takes a scalar.*shape \(3,\)"),
        (lambda: tf.constant("a"), TypeError, r"takes a numeric scalar.*string"),
    ],
    ids=["not_scalar", "string"],
)
def test_bad_values(value, error, message):
    with tf.Graph().as_default(), pytest.raises(error, match=message):
        emg.towers.all_towers_mean(value())


def test_towers_making_different_calls_are_refused():
    def uneven_model_fn(features, mode):
        from estimator_multigpu.towers import _context

        loss = tf.reduce_mean(features)
        if _context.current().index == 0:
            emg.towers.all_towers_mean(loss)
        return EstimatorSpec(mode, predictions={"x": features}, loss=loss)

    with (
        tf.Graph().as_default(),
        pytest.raises(ValueError, match=r"called all_towers_mean \[1, 0\] times"),
    ):
        emg.replicate_model_fn(uneven_model_fn, devices=ALL_DEVICES[:2])(
            tf.constant(_FEATURES), None, ModeKeys.EVAL
        )
