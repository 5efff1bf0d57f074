"""Summing the towers' gradients per variable: `towers._gradients`, op by op."""

import numpy as np
import pytest
import tensorflow as tf
from conftest import ALL_DEVICES
from placement_helpers import traced_devices

from estimator_multigpu import devices
from estimator_multigpu.towers import _gradients


def _variables(names, device=None):
    """Resource variables `names`, `[2]` float32 each, on `device` if given."""
    with tf.device(device):
        return [tf.compat.v1.get_variable(n, [2], use_resource=True) for n in names]


def _run(value):
    with tf.compat.v1.Session() as session:
        return session.run(value)


def _indexed(values, indices):
    values = tf.constant(values, tf.float32)
    return tf.IndexedSlices(values, tf.constant(indices), tf.constant([4, 2]))


def test_sums_run_on_the_variables_device():
    device = ALL_DEVICES[3]
    with tf.Graph().as_default() as graph:
        (var,) = _variables(["w"], device)
        tower_grads = []
        for t, tower_device in enumerate(ALL_DEVICES[:2]):
            with tf.device(tower_device):
                tower_grads.append([(tf.fill([2], float(t + 1)), var)])
        ((summed, _),) = _gradients.aggregate(tower_grads)
        ops = [op for op in graph.get_operations() if "aggregate_gradients" in op.name]
        assert summed.op in ops
        assert {tf.DeviceSpec.from_string(op.device) for op in ops} == {
            tf.DeviceSpec.from_string(var.device)
        }
        np.testing.assert_array_equal(_run(summed), [3.0, 3.0])


def test_a_variable_without_a_device_sums_where_the_caller_is():
    with tf.Graph().as_default():
        (var,) = _variables(["w"])
        with tf.device(ALL_DEVICES[2]):
            ((summed, _),) = _gradients.aggregate([[(tf.ones([2]), var)]] * 2)
        assert tf.DeviceSpec.from_string(summed.device) == tf.DeviceSpec.from_string(
            ALL_DEVICES[2]
        )
        assert "aggregate_gradients" in summed.op.name
        assert summed.op.type == "AddN"


def test_sums_in_a_training_step_ran_on_the_variables_device():
    """The trace, not the graph: where the sums actually ran."""
    with tf.Graph().as_default():
        (var,) = _variables(["w"], ALL_DEVICES[1])
        tower_grads = []
        for tower_device in (ALL_DEVICES[0], ALL_DEVICES[2]):
            with tf.device(tower_device):
                tower_grads.append([(tf.square(var.read_value()), var)])
        ((summed, _),) = _gradients.aggregate(tower_grads)
        config = devices.session_config()
        with tf.compat.v1.Session(config=config) as session:
            session.run(var.initializer)
            ran = traced_devices(session, summed, "aggregate_gradients")
    assert ran == {devices.canonical(ALL_DEVICES[1])}


def test_keeps_tower_0s_order_and_sums_each_variable():
    with tf.Graph().as_default():
        a, b = _variables(["a", "b"])
        tower_0 = [(tf.fill([2], 1.0), a), (tf.fill([2], 10.0), b)]
        tower_1 = [(tf.fill([2], 20.0), b), (tf.fill([2], 2.0), a)]
        result = _gradients.aggregate([tower_0, tower_1])
        assert [v for _, v in result] == [a, b]
        sums = _run([g for g, _ in result])
    np.testing.assert_array_equal(sums, [[3.0, 3.0], [30.0, 30.0]])


def test_a_variable_no_tower_has_a_gradient_for_stays_none():
    with tf.Graph().as_default():
        a, b = _variables(["a", "b"])
        result = _gradients.aggregate([[(None, a), (tf.ones([2]), b)]] * 3)
        assert result[0] == (None, a)
        np.testing.assert_array_equal(_run(result[1][0]), [3.0, 3.0])


@pytest.mark.parametrize("tower", [0, 1, 2])
def test_a_gradient_in_only_one_tower_passes_through(tower):
    with tf.Graph().as_default():
        (var,) = _variables(["w"])
        grad = tf.constant([1.0, 2.0])
        tower_grads = [[(grad if t == tower else None, var)] for t in range(3)]
        ((summed, summed_var),) = _gradients.aggregate(tower_grads)
        assert summed is grad and summed_var is var


def test_sparse_gradients_are_concatenated_not_densified():
    with tf.Graph().as_default():
        (var,) = _variables(["emb"])
        grads = [
            _indexed([[1.0, 2.0]], [0]),
            _indexed([[3.0, 4.0], [5.0, 6.0]], [2, 0]),
        ]
        ((summed, _),) = _gradients.aggregate([[(g, var)] for g in grads])
        assert isinstance(summed, tf.IndexedSlices)
        values, indices, shape = _run(
            [summed.values, summed.indices, summed.dense_shape]
        )
    np.testing.assert_array_equal(values, [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    np.testing.assert_array_equal(indices, [0, 2, 0])
    np.testing.assert_array_equal(shape, [4, 2])


def test_sparse_and_dense_gradients_sum_densely():
    with tf.Graph().as_default():
        var = tf.compat.v1.get_variable("emb", [4, 2], use_resource=True)
        grads = [_indexed([[1.0, 2.0]], [3]), tf.ones([4, 2])]
        ((summed, _),) = _gradients.aggregate([[(g, var)] for g in grads])
        assert not isinstance(summed, tf.IndexedSlices)
        value = _run(summed)
    np.testing.assert_array_equal(value, [[1, 1], [1, 1], [1, 1], [2, 3]])


def test_every_tower_must_build_the_same_model():
    with tf.Graph().as_default():
        a, b = _variables(["a", "b"])
        tower_grads = [[(tf.ones([2]), a)], [(tf.ones([2]), a)], [(tf.ones([2]), b)]]
        with pytest.raises(
            ValueError,
            match=r"Tower 2 applies gradients to variables \['b:0'\], but tower 0 "
            r"to \['a:0'\]; every tower must build the same model\.",
        ):
            _gradients.aggregate(tower_grads)


def test_a_tower_with_an_extra_variable_is_refused():
    with tf.Graph().as_default():
        a, b = _variables(["a", "b"])
        tower_grads = [[(tf.ones([2]), a)], [(tf.ones([2]), a), (tf.ones([2]), b)]]
        with pytest.raises(ValueError, match=r"Tower 1 applies .*\['a:0', 'b:0'\]"):
            _gradients.aggregate(tower_grads)


@pytest.mark.parametrize("tower", [0, 1])
def test_a_variable_passed_twice_is_refused(tower):
    with tf.Graph().as_default():
        (a,) = _variables(["a"])
        tower_grads = [[(tf.ones([2]), a)], [(tf.ones([2]), a)]]
        tower_grads[tower] = tower_grads[tower] * 2
        with pytest.raises(
            ValueError,
            match=rf"Tower {tower} passes variable 'a:0' to apply_gradients twice; "
            "pass each variable once",
        ):
            _gradients.aggregate(tower_grads)


@pytest.mark.parametrize(
    "count, expected",
    [(0, 0.0), (1, 5.0), (3, 5.0)],
    ids=["empty", "one_example", "several"],
)
def test_mask_empty_zeroes_only_an_empty_tower(count, expected):
    with tf.Graph().as_default():
        a, b, c = _variables(["a", "b", "c"])
        dense = tf.constant([5.0, np.nan])  # NaN: what reduce_mean of nothing gives.
        sparse = tf.IndexedSlices(tf.constant([[5.0, np.nan]]), tf.constant([1]))
        masked = _gradients.mask_empty([(dense, a), (sparse, b), (None, c)], count)
        assert [v for _, v in masked] == [a, b, c]
        assert masked[2][0] is None
        assert isinstance(masked[1][0], tf.IndexedSlices)
        dense_out, values, indices = _run(
            [masked[0][0], masked[1][0].values, masked[1][0].indices]
        )
    np.testing.assert_array_equal(dense_out[0], expected)
    np.testing.assert_array_equal(values[0, 0], expected)
    assert (dense_out[1] == 0) == (count == 0)
    np.testing.assert_array_equal(indices, [1])


def test_clip_by_global_norm_clips_all_gradients_together():
    with tf.Graph().as_default():
        a, b = _variables(["a", "b"])
        pairs = [(tf.constant([3.0, 0.0]), a), (tf.constant([0.0, 4.0]), b)]
        clipped = _gradients.clip_by_global_norm(pairs, 1.0)
        assert [v for _, v in clipped] == [a, b]
        values = _run([g for g, _ in clipped])
    np.testing.assert_allclose(values, [[0.6, 0.0], [0.0, 0.8]], rtol=1e-6)
