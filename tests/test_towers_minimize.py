"""`emg.towers.minimize`: compat.v1 tower loops on N devices take the 1-device step."""

import time

import numpy as np
import pytest
import tensorflow as tf
from conftest import ALL_DEVICES
from placement_helpers import PlacementRecorder

import estimator_multigpu as emg

DEVICE_COUNTS = [1, 2, 3]
_IDS = [f"{n}dev" for n in DEVICE_COUNTS]
_EXAMPLES, _GLOBAL_BATCH, _STEPS = 16, 7, 3  # Batches of 7, 7, 2 examples.


def _data():
    rng = np.random.RandomState(0)
    x = rng.randn(_EXAMPLES, 3).astype(np.float32)
    return x, rng.randint(0, 2, _EXAMPLES).astype(np.int64)


def tower_loss(x, y):
    """A tower of a compat.v1 script: get_variable, L2, an UPDATE_OP."""
    init = tf.compat.v1.random_normal_initializer(seed=1)
    with tf.compat.v1.variable_scope("model"):
        w = tf.compat.v1.get_variable("kernel", [3, 2], initializer=init)
        b = tf.compat.v1.get_variable("bias", [2], initializer=tf.zeros_initializer())
        average = tf.compat.v1.get_variable(
            "kernel_average",
            [3, 2],
            initializer=tf.zeros_initializer(),
            trainable=False,
        )
    tf.compat.v1.add_to_collection(
        tf.compat.v1.GraphKeys.UPDATE_OPS,
        tf.compat.v1.assign(average, 0.9 * average + 0.1 * w),
    )
    logits = tf.matmul(x, w) + b
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
    return tf.reduce_mean(xent) + 0.01 * tf.nn.l2_loss(w)


def _optimizer():
    return tf.compat.v1.train.MomentumOptimizer(0.3, 0.9)


def _global_batches():
    dataset = tf.data.Dataset.from_tensor_slices(_data()).batch(_GLOBAL_BATCH)
    return tf.compat.v1.data.make_one_shot_iterator(dataset).get_next()


def _single_device_step(global_step):
    """The script before: one device, no towers."""
    loss = tower_loss(*_global_batches())
    # After the loss: with reference variables (v1 behaviour) a term no
    # gradient needs could otherwise read the updated weights.
    update_ops = tf.compat.v1.get_collection("update_ops")
    with tf.control_dependencies(update_ops + [loss]):
        return loss, _optimizer().minimize(loss, global_step)


def _towers_step(devices, global_step):
    return emg.towers.minimize(
        tower_loss, _global_batches(), _optimizer(), devices, global_step
    )


def _sharded_step(devices, global_step):
    input_fn = emg.inputs.sharded_input_fn(
        lambda ctx: tf.data.Dataset.from_tensor_slices(_data()),
        devices=devices,
        global_batch_size=_GLOBAL_BATCH,
        remainder="uneven",
    )
    features, labels = input_fn()
    return emg.towers.minimize(
        tower_loss, (features, labels), _optimizer(), global_step=global_step
    )


def _train(build_step, hooks=()):
    """Runs the script's MonitoredTrainingSession loop to the input's end."""
    with tf.Graph().as_default():
        global_step = tf.compat.v1.train.get_or_create_global_step()
        loss, train_op = build_step(global_step)
        variables = tf.compat.v1.global_variables()
        losses = []
        with tf.compat.v1.train.MonitoredTrainingSession(
            log_step_count_steps=None, hooks=list(hooks)
        ) as session:
            for _ in range(_STEPS):
                losses.append(session.run([loss, train_op])[0])
            values = session.run({v.op.name: v for v in variables})
            session.run(train_op)  # The input has ended.
            assert session.should_stop()
    return losses, values


@pytest.fixture(scope="module")
def reference():
    return _train(_single_device_step)


def _assert_same_training(reference, trained):
    np.testing.assert_allclose(trained[0], reference[0], rtol=1e-5)
    assert sorted(trained[1]) == sorted(reference[1])
    for name, value in reference[1].items():
        np.testing.assert_allclose(trained[1][name], value, rtol=1e-5, atol=1e-6)


@pytest.mark.tf_compat
@pytest.mark.parametrize("num_devices", DEVICE_COUNTS, ids=_IDS)
def test_split_batches_train_like_one_device(reference, num_devices):
    devices = ALL_DEVICES[:num_devices]
    towers = PlacementRecorder([f"tower_{i}/" for i in range(1, num_devices)])
    trained = _train(lambda step: _towers_step(devices, step), [towers])
    expected = {f"tower_{i}/": {devices[i]} for i in range(1, num_devices)}
    assert towers.devices == expected  # Each tower ran on its own device.
    _assert_same_training(reference, trained)
    assert reference[1]["global_step"] == _STEPS
    assert np.max(np.abs(reference[1]["model/kernel_average"])) > 0  # Ran.


@pytest.mark.parametrize("num_devices", DEVICE_COUNTS, ids=_IDS)
def test_per_device_input_trains_like_one_device(reference, num_devices):
    devices = ALL_DEVICES[:num_devices]
    trained = _train(lambda step: _sharded_step(devices, step))
    _assert_same_training(reference, trained)


def batch_norm_tower_loss(x):
    """Batch statistics in the forward pass; moving mean as an UPDATE_OP."""
    moving_mean = tf.compat.v1.get_variable(
        "moving_mean", [3], initializer=tf.zeros_initializer(), trainable=False
    )
    scale = tf.compat.v1.get_variable("scale", [3], initializer=tf.ones_initializer())
    mean, variance = tf.nn.moments(x, axes=[0])
    tf.compat.v1.add_to_collection(
        tf.compat.v1.GraphKeys.UPDATE_OPS,
        tf.compat.v1.assign(moving_mean, 0.9 * moving_mean + 0.1 * mean),
    )
    normalized = (x - mean) * tf.math.rsqrt(variance + 1e-3) * scale
    return tf.reduce_mean(tf.square(normalized - 1.0))


def _slow_update_tower_loss(x, y):
    """`tower_loss` whose UPDATE_OP reads the kernel only after a pause.

    Nothing but an ordering makes that read come before the step's update:
    without one, the optimizer updates the kernel during the pause.
    """
    loss = tower_loss(x, y)
    (kernel,) = tf.compat.v1.global_variables("model/kernel:")
    before = tf.compat.v1.get_variable(
        "kernel_before_update",
        [3, 2],
        initializer=tf.zeros_initializer(),
        trainable=False,
    )
    pause = tf.py_function(lambda: time.sleep(0.2) or 0, [], tf.int32)
    with tf.control_dependencies([pause]):
        late = tf.compat.v1.assign(before, tf.identity(kernel))
    tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.UPDATE_OPS, late)
    return loss


def _single_device_slow_update_step(global_step):
    loss = _slow_update_tower_loss(*_global_batches())
    update_ops = tf.compat.v1.get_collection("update_ops")
    with tf.control_dependencies(update_ops + [loss]):
        return loss, _optimizer().minimize(loss, global_step)


@pytest.fixture(scope="module")
def slow_update_reference():
    return _train(_single_device_slow_update_step)


@pytest.mark.parametrize("num_devices", DEVICE_COUNTS, ids=_IDS)
def test_update_ops_read_the_variables_before_the_update(
    slow_update_reference, num_devices
):
    """As `with tf.control_dependencies(update_ops): opt.minimize(loss)`."""
    trained = _train(
        lambda step: emg.towers.minimize(
            _slow_update_tower_loss,
            _global_batches(),
            _optimizer(),
            ALL_DEVICES[:num_devices],
            step,
        )
    )
    _assert_same_training(slow_update_reference, trained)


def test_batch_norm_update_ops_run_once_from_tower_zero():
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    with tf.Graph().as_default():
        loss, train_op = emg.towers.minimize(
            batch_norm_tower_loss,
            (tf.constant(x),),
            tf.compat.v1.train.GradientDescentOptimizer(0.1),
            devices=ALL_DEVICES[:2],
        )
        (moving_mean,) = tf.compat.v1.global_variables("moving_mean")
        with tf.compat.v1.train.MonitoredTrainingSession(
            log_step_count_steps=None
        ) as session:
            session.run(train_op)
            got = session.run(moving_mean)
    assert moving_mean.op.name == "moving_mean"  # Single-device name.
    np.testing.assert_allclose(got, 0.1 * x[:2].mean(axis=0), rtol=1e-6)


def test_tower_optimizer_clips_the_aggregate():
    clipped = emg.TowerOptimizer(_optimizer(), clip_global_norm=1e-3)
    with tf.Graph().as_default():
        _, train_op = emg.towers.minimize(
            tower_loss, _global_batches(), clipped, devices=ALL_DEVICES[:2]
        )
        (kernel,) = tf.compat.v1.global_variables("model/kernel:")
        with tf.compat.v1.train.MonitoredTrainingSession(
            log_step_count_steps=None
        ) as session:
            before = session.run(kernel)
            session.run(train_op)
            change = session.run(kernel) - before
    assert 0 < np.linalg.norm(change) <= 0.3 * 1e-3 * (1 + 1e-5)


def _minimize(**overrides):
    with tf.Graph().as_default():
        arguments = {
            "tower_fn": tower_loss,
            "inputs": (tf.ones([4, 3]), tf.zeros([4], tf.int64)),
            "optimizer": _optimizer(),
            "devices": ALL_DEVICES[:2],
        }
        arguments.update(overrides)
        return emg.towers.minimize(**arguments)


@pytest.mark.parametrize(
    "overrides, error, message",
    [
        (
            {"var_list": "model/bias"},
            TypeError,
            r"`var_list` must be a non-empty list or tuple of tf.Variable.*"
            r"received 'model/bias'",
        ),
        ({"var_list": []}, TypeError, r"`var_list` must be a non-empty list"),
        (
            {"var_list": [3]},
            TypeError,
            r"`var_list`\[0\] must be a tf.Variable.*received 3 of type int",
        ),
        (
            {"var_list": lambda: "bias"},
            TypeError,
            r"`var_list\(\)` must be a non-empty list.*received 'bias'",
        ),
        ({"tower_fn": 3}, TypeError, r"`tower_fn` must be a function.*received 3"),
        (
            {"inputs": "images"},
            TypeError,
            r"`inputs` must be a non-empty tuple or list.*received 'images'.*\(tensor,\)",
        ),
        ({"inputs": ()}, TypeError, r"`inputs` must be a non-empty tuple"),
        (
            {"optimizer": "sgd"},
            TypeError,
            r"`optimizer` must be a tf.compat.v1.train.Optimizer.*received 'sgd'",
        ),
        (
            {"loss_reduction": "avg"},
            ValueError,
            r"`loss_reduction` must be 'mean' or 'sum'; received 'avg'",
        ),
        ({"remainder": "pad"}, ValueError, r"`remainder` must be one of .*'pad'"),
        (
            {"global_step": 5},
            TypeError,
            r"`global_step` must be None or the global step variable.*received 5",
        ),
        (
            {"tower_fn": lambda x, y: x * 2.0},
            ValueError,
            r"`tower_fn` must return the tower's scalar mean loss.*shape \(2, 3\)",
        ),
    ],
    ids=[
        "var_list_str",
        "var_list_empty",
        "var_list_int",
        "var_list_fn_str",
        "tower_fn",
        "inputs_str",
        "inputs_empty",
        "optimizer",
        "loss_reduction",
        "remainder",
        "global_step",
        "loss_not_scalar",
    ],
)
def test_bad_arguments(overrides, error, message):
    with pytest.raises(error, match=message):
        _minimize(**overrides)


def _reused_tower_loss(x, y):
    with tf.compat.v1.variable_scope("", reuse=tf.compat.v1.AUTO_REUSE):
        return tower_loss(x, y)


def _bias_only_step(devices, var_list):
    """(kernel before, kernel after, bias change) of one step updating the
    bias only, on `devices` (None: one device, no towers). `var_list="made"`:
    the variables exist before the call and the list names them."""
    with tf.Graph().as_default():
        if devices is None or var_list == "made":
            loss = _reused_tower_loss(*_global_batches())
            var_list = tf.compat.v1.trainable_variables("model/bias")
        if devices is None:
            train_op = _optimizer().minimize(loss, var_list=var_list)
        else:
            _, train_op = emg.towers.minimize(
                _reused_tower_loss,
                _global_batches(),
                _optimizer(),
                devices,
                var_list=var_list,
            )
        kernel, bias = [tf.compat.v1.global_variables(f"model/{n}:")[0] for n in
                        ("kernel", "bias")]  # fmt: skip
        with tf.compat.v1.train.MonitoredTrainingSession(
            log_step_count_steps=None
        ) as session:
            before = session.run([kernel, bias])
            session.run(train_op)
            after = session.run([kernel, bias])
    return before[0], after[0], after[1] - before[1]


@pytest.mark.parametrize(
    "var_list",
    [lambda: tf.compat.v1.trainable_variables("model/bias"), "made"],
    ids=["function", "list"],
)
def test_var_list_updates_only_those_variables(var_list):
    reference = _bias_only_step(None, None)
    kernel0, kernel1, change = _bias_only_step(ALL_DEVICES[:2], var_list)
    np.testing.assert_array_equal(kernel0, kernel1)
    np.testing.assert_allclose(change, reference[2], rtol=1e-5, atol=1e-7)
    assert np.max(np.abs(change)) > 0


def test_mixed_per_device_and_plain_inputs_are_refused():
    with tf.Graph().as_default():
        shards = emg.PerDevice([tf.ones([2, 3])] * 2, ALL_DEVICES[:2])
        with pytest.raises(TypeError, match=r"`inputs` mixes emg.PerDevice values"):
            emg.towers.minimize(
                tower_loss, (shards, tf.zeros([4], tf.int64)), _optimizer()
            )


def test_per_device_inputs_for_other_devices_are_refused():
    with tf.Graph().as_default():
        shards = emg.PerDevice([tf.ones([2, 3])] * 2, ALL_DEVICES[:2])
        labels = emg.PerDevice([tf.zeros([2], tf.int64)] * 2, ALL_DEVICES[:2])
        with pytest.raises(ValueError, match=r"`inputs\[0\]` holds shards for devices"):
            emg.towers.minimize(
                tower_loss, (shards, labels), _optimizer(), devices=ALL_DEVICES[2:]
            )


def test_exported_from_the_package():
    assert "minimize" in emg.towers.__all__
    assert emg.towers.minimize.__module__ == "estimator_multigpu.towers._loop"


def test_tower_index_inside_and_outside_towers():
    seen = []

    def tower(x):
        seen.append(emg.towers.tower_index())
        with tf.compat.v1.variable_scope("m"):
            w = tf.compat.v1.get_variable("w", [3], initializer=tf.ones_initializer())
        return tf.reduce_mean(x * w)

    with tf.Graph().as_default():
        emg.towers.minimize(
            tower,
            (tf.ones([4, 3]),),
            tf.compat.v1.train.GradientDescentOptimizer(0.1),
            devices=ALL_DEVICES[:2],
        )
    assert seen == [0, 1]
    assert emg.towers.tower_index() == 0
