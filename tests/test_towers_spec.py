"""The merged spec keeps tower 0's hooks and scaffold; one device runs as is."""

import tensorflow as tf
from conftest import ALL_DEVICES

import estimator_multigpu as emg
from estimator_multigpu import per_device
from estimator_multigpu.estimator._spec import EstimatorSpec, ModeKeys


def model_fn(features, labels, mode):
    w = tf.compat.v1.get_variable("w", [2, 1])
    loss = tf.reduce_mean(tf.matmul(features, w))
    optimizer = emg.TowerOptimizer(tf.compat.v1.train.GradientDescentOptimizer(0.1))
    hook = tf.compat.v1.train.LoggingTensorHook({"loss": loss}, every_n_iter=1)
    chief = tf.compat.v1.train.StopAtStepHook(num_steps=5)
    local_init = tf.group(
        tf.compat.v1.local_variables_initializer(), name="user_local_init"
    )
    return EstimatorSpec(
        mode,
        loss=loss,
        train_op=optimizer.minimize(loss),
        training_hooks=[hook],
        training_chief_hooks=[chief],
        scaffold=tf.compat.v1.train.Scaffold(local_init_op=local_init),
    )


def _control_ancestors(op):
    names, stack = set(), [op]
    while stack:
        op = stack.pop()
        names.add(op.name)
        stack.extend(op.control_inputs)
    return names


def test_tower_zero_hooks_and_scaffold_are_kept():
    with tf.Graph().as_default():
        init = tf.no_op(name="input_init")
        per_device.register_initializer(init)
        replicated = emg.replicate_model_fn(model_fn, devices=ALL_DEVICES[:2])
        spec = replicated(tf.ones([4, 2]), None, ModeKeys.TRAIN)
        (hook,) = spec.training_hooks
        assert isinstance(hook, tf.compat.v1.train.LoggingTensorHook)
        assert not hook._tensors["loss"].name.startswith("tower_1")
        assert isinstance(
            spec.training_chief_hooks[0], tf.compat.v1.train.StopAtStepHook
        )
        assert {"user_local_init", "input_init"} <= _control_ancestors(
            spec.scaffold.local_init_op
        )


def test_single_device_unwraps_per_device_input():
    seen = {}

    def probe(features, mode):
        seen["features"] = features
        return EstimatorSpec(mode, predictions=features)

    with tf.Graph().as_default():
        shard = tf.ones([3, 2])
        inputs = emg.PerDevice([shard], ["/cpu:0"])
        spec = emg.replicate_model_fn(probe, devices=["/cpu:0"])(
            inputs, None, ModeKeys.PREDICT
        )
        assert seen["features"] is shard
        assert spec.predictions is shard


def test_every_tower_gets_the_same_params():
    seen = []

    def popping_model_fn(features, mode, params):
        seen.append(params.pop("scale"))
        return EstimatorSpec(mode, predictions=features * seen[-1])

    with tf.Graph().as_default():
        replicated = emg.replicate_model_fn(popping_model_fn, devices=ALL_DEVICES[:3])
        replicated(tf.ones([6, 2]), None, ModeKeys.PREDICT, params={"scale": 2.0})
    assert seen == [2.0, 2.0, 2.0]
