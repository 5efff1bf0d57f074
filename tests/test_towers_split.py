"""Splitting a global batch across towers, for every remainder policy."""

import numpy as np
import pytest
import tensorflow as tf

from estimator_multigpu.towers import _split as split


def _split(batch_size, num, remainder, static):
    """Returns (feature shards, label shards, counts) as numpy values."""
    with tf.Graph().as_default():
        x = np.arange(batch_size * 2, dtype=np.float32).reshape(batch_size, 2)
        shape = [batch_size if static else None, 2]
        features = {"x": tf.compat.v1.placeholder_with_default(x, shape)}
        labels = tf.compat.v1.placeholder_with_default(x[:, 0], shape[:1])
        shards, label_shards, counts = split.split(features, labels, num, remainder)
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
    shards, label_shards, counts = _split(batch_size, num, remainder, static)
    assert list(counts) == expected
    assert [len(s) for s in shards] == expected
    joined = np.concatenate(shards)
    np.testing.assert_array_equal(joined[:, 0], np.arange(sum(expected)) * 2)
    np.testing.assert_array_equal(np.concatenate(label_shards), joined[:, 0])


def test_labels_none():
    with tf.Graph().as_default():
        shards, labels, counts = split.split(tf.ones([5, 3]), None, 2, "uneven")
    assert labels == [None, None]
    assert counts == [3, 2]
    assert [s.shape.as_list() for s in shards] == [[3, 3], [2, 3]]
