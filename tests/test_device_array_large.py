"""An array above the 2 GB GraphDef limit: resident copy without a constant."""

import numpy as np
import pytest
import tensorflow as tf

import estimator_multigpu as emg

LENGTH = 2**31 + 4096  # bytes: past the 2 GB GraphDef and int32 index limits.
FRAGMENT = 8
STARTS = [0, 2**31 - 4, 2**31 + 100, LENGTH - FRAGMENT]


def _big_array() -> np.ndarray:
    array = np.zeros([LENGTH], np.uint8)  # Untouched pages cost no memory.
    for start in STARTS:
        array[start : start + FRAGMENT] = np.arange(1, FRAGMENT + 1) + start % 200
    return array


@pytest.mark.slow
def test_array_above_2gib_works_in_graph_mode():
    array = _big_array()
    with tf.Graph().as_default() as graph:
        dataset = emg.inputs.device_array_dataset(
            array, STARTS, FRAGMENT, 2, device="/cpu:0", shuffle=False
        )
        iterator = tf.compat.v1.data.make_initializable_iterator(dataset)
        batch = iterator.get_next()
        assert graph.as_graph_def().ByteSize() < 64_000
        with tf.compat.v1.Session() as sess:
            sess.run([tf.compat.v1.tables_initializer(), iterator.initializer])
            got = np.concatenate([sess.run(batch), sess.run(batch)])
    expected = np.stack([array[s : s + FRAGMENT] for s in STARTS])
    np.testing.assert_array_equal(got, expected)
    assert got.any()
