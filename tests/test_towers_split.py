"""Splitting a global batch across towers, for every remainder policy."""

import re

import numpy as np
import pytest
import tensorflow as tf

from estimator_multigpu.towers import _split


def _split_values(batch_size, num, remainder, static):
    """Returns (feature shards, label shards, counts) as numpy values."""
    with tf.Graph().as_default():
        x = np.arange(batch_size * 2, dtype=np.float32).reshape(batch_size, 2)
        shape = [batch_size if static else None, 2]
        features = {"x": tf.compat.v1.placeholder_with_default(x, shape)}
        labels = tf.compat.v1.placeholder_with_default(x[:, 0], shape[:1])
        shards, label_shards, counts = _split.split(features, labels, num, remainder)
        if static:
            assert all(isinstance(c, int) for c in counts)
        counts = [tf.convert_to_tensor(c) for c in counts]
        with tf.compat.v1.Session() as session:
            return session.run(([s["x"] for s in shards], label_shards, counts))


@pytest.mark.parametrize("static", [True, False], ids=["static", "unknown_size"])
@pytest.mark.parametrize(
    "batch_size, num, remainder, expected",
    [
        (8, 4, "uneven", [2, 2, 2, 2]),
        (7, 3, "uneven", [3, 2, 2]),
        (2, 4, "uneven", [1, 1, 0, 0]),
        (7, 3, "drop", [2, 2, 2]),
        (1, 2, "drop", [0, 0]),
        (6, 3, "error", [2, 2, 2]),
    ],
    ids=["even", "uneven", "fewer_than_towers", "drop", "drop_all", "error_divides"],
)
def test_shard_sizes_and_order(batch_size, num, remainder, expected, static):
    shards, label_shards, counts = _split_values(batch_size, num, remainder, static)
    assert list(counts) == expected
    assert [len(s) for s in shards] == expected
    joined = np.concatenate(shards)
    np.testing.assert_array_equal(joined[:, 0], np.arange(sum(expected)) * 2)
    np.testing.assert_array_equal(np.concatenate(label_shards), joined[:, 0])


def test_labels_none():
    with tf.Graph().as_default():
        shards, labels, counts = _split.split(tf.ones([5, 3]), None, 2, "uneven")
    assert labels == [None, None]
    assert counts == [3, 2]
    assert [s.shape.as_list() for s in shards] == [[3, 3], [2, 3]]


# Rows 0..4 of a [5, 3] SparseTensor: row 3 is empty.
_SPARSE = tf.compat.v1.SparseTensorValue(
    indices=[[0, 0], [1, 0], [1, 2], [2, 1], [4, 1]],
    values=[1.0, 2.0, 3.0, 4.0, 5.0],
    dense_shape=[5, 3],
)


def _run_sparse(shards):
    with tf.compat.v1.Session() as session:
        return session.run([(s.indices, s.values, s.dense_shape) for s in shards])


@pytest.mark.parametrize(
    "dense_first", [True, False], ids=["dense_feature_first", "sparse_feature_first"]
)
def test_sparse_tensor_value_is_split_by_rows(dense_first):
    x = np.arange(10, dtype=np.float32).reshape(5, 2)
    with tf.Graph().as_default():
        # tf.nest orders a dict's keys: "a" before "b".
        features = {"a": x, "b": _SPARSE} if dense_first else {"a": _SPARSE, "b": x}
        sparse_key, dense_key = ("b", "a") if dense_first else ("a", "b")
        shards, _, counts = _split.split(features, None, 2, "uneven")
        assert counts == [3, 2]
        pieces = [s[sparse_key] for s in shards]
        assert all(isinstance(p, tf.SparseTensor) for p in pieces)
        assert [p.shape.as_list() for p in pieces] == [[None, 3], [None, 3]]
        (i0, v0, s0), (i1, v1, s1) = _run_sparse(pieces)
        dense = tf.compat.v1.Session().run([s[dense_key] for s in shards])
    np.testing.assert_array_equal(i0, [[0, 0], [1, 0], [1, 2], [2, 1]])
    np.testing.assert_array_equal(v0, [1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(s0, [3, 3])
    np.testing.assert_array_equal(i1, [[1, 1]])  # Row 4, renumbered from 0.
    np.testing.assert_array_equal(v1, [5.0])
    np.testing.assert_array_equal(s1, [2, 3])
    np.testing.assert_array_equal(np.concatenate(dense), x)


def test_sparse_only_features_of_unknown_batch_size():
    with tf.Graph().as_default():
        ids = tf.compat.v1.sparse_placeholder(tf.float32, shape=[None, 3])
        shards, labels, counts = _split.split(ids, None, 3, "drop")
        assert labels == [None] * 3
        with tf.compat.v1.Session() as session:
            feed = {ids: _SPARSE}
            sizes = session.run(counts, feed)
            pieces = session.run([(s.indices, s.dense_shape) for s in shards], feed)
    assert sizes == [1, 1, 1]  # Rows 3 and 4 are dropped.
    np.testing.assert_array_equal(pieces[1][0], [[0, 0], [0, 2]])  # Row 1.
    assert [list(shape) for _, shape in pieces] == [[1, 3]] * 3


@pytest.mark.parametrize(
    "value, converted",
    [
        ([0, 1, 1], True),
        ([[0.5], [1.5]], True),
        ([np.int64(2), True], True),
        ([], False),
        ([0, None], False),
        ("labels", False),
    ],
    ids=["ints", "nested_floats", "numpy_and_bool", "empty", "with_none", "string"],
)
def test_lists_of_plain_values_become_tensors(value, converted):
    with tf.Graph().as_default():
        out = _split.lists_as_tensors({"k": (value, [tf.ones([2])])})
        assert isinstance(out, dict) and type(out["k"]) is tuple
        assert isinstance(out["k"][0], tf.Tensor) == converted
        assert isinstance(out["k"][1], list)  # A list of tensors stays a list.
        if converted:
            np.testing.assert_array_equal(
                tf.compat.v1.Session().run(out["k"][0]), value
            )
        else:
            assert out["k"][0] is value


def test_a_dense_feature_gives_the_static_batch_size():
    # The sparse feature's batch is unknown; the dense one's (4) is static.
    with tf.Graph().as_default():
        ids = tf.compat.v1.sparse_placeholder(tf.float32, shape=[None, 3])
        features = {"ids": ids, "x": tf.ones([4, 2])}
        shards, _, counts = _split.split(features, None, 2, "uneven")
        assert counts == [2, 2]
        assert [s["x"].shape.as_list() for s in shards] == [[2, 2], [2, 2]]


_RAGGED = (
    "Cannot split a RaggedTensor across towers; convert it in the input_fn "
    "(RaggedTensor.to_sparse() is split by rows, RaggedTensor.to_tensor() along "
    "the batch), or shard the input with emg.inputs.multi_device_input_fn."
)
_SCALAR = (
    "Cannot split the features across towers: {} is a scalar. Every feature "
    "and label needs a leading batch dimension."
)
_STATIC = (
    "The global batch (5 examples) does not divide by the number of devices "
    "(2); pass remainder='uneven' or 'drop' to replicate_model_fn, or a batch "
    "size divisible by the device count."
)


@pytest.mark.parametrize(
    "features, error, message",
    [
        (lambda: tf.ragged.constant([[1.0], [2.0, 3.0]]), TypeError, _RAGGED),
        (lambda: tf.constant(1.0, name="scale"), ValueError, _SCALAR.format("scale:0")),
        (lambda: tf.ones([5, 2]), ValueError, _STATIC),
    ],
    ids=["ragged", "scalar", "static_batch_does_not_divide"],
)
def test_errors_in_full(features, error, message):
    with tf.Graph().as_default():
        with pytest.raises(error, match=f"^{re.escape(message)}$"):
            _split.split(features(), None, 2, "error")


def test_unknown_batch_that_does_not_divide_fails_in_full_when_run():
    message = (
        "The global batch does not divide by the number of devices (2); pass "
        "remainder='uneven' or 'drop' to replicate_model_fn."
    )
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 2])
        shards, _, _ = _split.split(x, None, 2, "error")
        with tf.compat.v1.Session() as session:
            # The assertion prints its message in brackets, quotes escaped.
            pattern = re.escape(f"[{message}]").replace("'", r"\\?'")
            with pytest.raises(tf.errors.InvalidArgumentError, match=pattern):
                session.run(shards, {x: np.ones([3, 2])})
