"""`emg.towers.create_clones`: slim model_deploy clones, the optimizer chosen after them."""

import time

import numpy as np
import pytest
import tensorflow as tf
from conftest import ALL_DEVICES

import estimator_multigpu as emg

v1 = tf.compat.v1
_RNG = np.random.RandomState(0)
_X = _RNG.randn(8, 3).astype(np.float32)
_Y = _RNG.randint(0, 2, 8)


def clone_fn(iterator):
    """A slim-style clone: its own batch, a regularized variable, LOSSES."""
    x, y = iterator.get_next()
    w = v1.get_variable(
        "w",
        [3, 2],
        initializer=v1.ones_initializer(),
        regularizer=lambda w: 0.01 * tf.nn.l2_loss(w),
    )
    b = v1.get_variable("b", [2], initializer=v1.zeros_initializer())
    logits = tf.matmul(x, w) + b
    v1.losses.sparse_softmax_cross_entropy(y, logits)
    return {"logits": logits}


def _train(num_clones, var_list=None):
    """(loss, w, b, global step) after one step of `num_clones` clones, each
    on its own 8 / num_clones examples."""
    with tf.Graph().as_default():
        dataset = tf.data.Dataset.from_tensor_slices((_X, _Y)).batch(8 // num_clones)
        iterator = v1.data.make_one_shot_iterator(dataset)
        step = v1.train.get_or_create_global_step()
        clones = emg.towers.create_clones(
            clone_fn, [iterator], devices=ALL_DEVICES[:num_clones]
        )
        assert len(clones) == num_clones
        assert clones[0].outputs["logits"].shape[1] == 2
        # The optimizer is chosen after the clones, as slim's scripts do.
        chosen = None if var_list is None else var_list()
        loss, train_op = clones.minimize(
            v1.train.GradientDescentOptimizer(0.5), var_list=chosen, global_step=step
        )
        w, b = [v1.global_variables(name)[0] for name in ("w:", "b:")]
        with v1.Session() as session:
            session.run(v1.global_variables_initializer())
            value, _ = session.run([loss, train_op])
            return value, session.run(w), session.run(b), session.run(step)


@pytest.mark.parametrize("num_clones", [2, 4], ids=["2", "4"])
def test_clones_take_the_one_device_step_on_all_their_batches(num_clones):
    reference = _train(1)
    if num_clones > len(ALL_DEVICES):
        pytest.skip(f"{len(ALL_DEVICES)} simulated devices")
    got = _train(num_clones)
    # The regularization loss counts once (model_deploy added it to one clone).
    np.testing.assert_allclose(got[0], reference[0], rtol=1e-6)
    for a, b in zip(got[1:3], reference[1:3]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert got[3] == reference[3] == 1


def test_var_list_leaves_the_other_variables():
    reference = _train(1)
    got = _train(2, var_list=lambda: v1.trainable_variables("b"))
    np.testing.assert_array_equal(got[1], np.ones([3, 2], np.float32))
    np.testing.assert_allclose(got[2], reference[2], rtol=1e-5, atol=1e-6)


def slow_update_clone_fn(iterator):
    """`clone_fn` plus an UPDATE_OP that copies `w` only after a pause.

    Nothing but an ordering makes that read come before the update: without
    one, the optimizer updates `w` during the pause.
    """
    outputs = clone_fn(iterator)
    (w,) = v1.global_variables("w:")
    before = v1.get_variable(
        "w_before_update", [3, 2], initializer=v1.zeros_initializer(), trainable=False
    )
    pause = tf.py_function(lambda: time.sleep(0.2) or 0, [], tf.int32)
    with tf.control_dependencies([pause]):
        late = v1.assign(before, tf.identity(w))
    v1.add_to_collection(v1.GraphKeys.UPDATE_OPS, late)
    return outputs


@pytest.mark.parametrize("num_clones", [1, 2], ids=["1", "2"])
def test_update_ops_read_the_variables_before_the_update(num_clones):
    """As slim's single-device `with tf.control_dependencies(update_ops)`."""
    with tf.Graph().as_default():
        dataset = tf.data.Dataset.from_tensor_slices((_X, _Y)).batch(8 // num_clones)
        clones = emg.towers.create_clones(
            slow_update_clone_fn,
            [v1.data.make_one_shot_iterator(dataset)],
            devices=ALL_DEVICES[:num_clones],
        )
        _, train_op = clones.minimize(v1.train.GradientDescentOptimizer(0.5))
        w, before = [v1.global_variables(n)[0] for n in ("w:", "w_before_update:")]
        with v1.Session() as session:
            session.run(v1.global_variables_initializer())
            session.run(train_op)
            np.testing.assert_array_equal(session.run(before), np.ones([3, 2]))
            assert np.max(np.abs(session.run(w) - 1.0)) > 0  # Updated after.


def test_bad_arguments_and_a_second_minimize():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match=r"`clone_fn` must be a function.*3"):
            emg.towers.create_clones(3)
        with pytest.raises(TypeError, match=r"`args` must be a list or tuple.*'q'"):
            emg.towers.create_clones(clone_fn, "q")
        dataset = tf.data.Dataset.from_tensor_slices((_X, _Y)).batch(4)
        clones = emg.towers.create_clones(
            clone_fn, [v1.data.make_one_shot_iterator(dataset)], devices=ALL_DEVICES[:2]
        )
        with pytest.raises(TypeError, match=r"`optimizer` must be a"):
            clones.minimize("sgd")
        clones.minimize(v1.train.GradientDescentOptimizer(0.1))
        with pytest.raises(ValueError, match=r"called twice"):
            clones.minimize(v1.train.GradientDescentOptimizer(0.1))
