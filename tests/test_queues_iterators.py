"""`queues.make_one_shot_iterator` / `make_initializable_iterator`: TF 1.x's
Dataset methods as functions, which read a dataset made in another graph (or
eagerly) as the methods did by copying it into the iterator's graph."""

import numpy as np
import pytest
import tensorflow as tf

from estimator_multigpu.inputs import queues

tf1 = tf.compat.v1
pytestmark = pytest.mark.tf_compat


def _made_in_another_graph():
    """A dataset with a map function and a shuffle, in a graph of its own."""
    with tf.Graph().as_default() as graph:
        features = {"a": np.arange(8, dtype=np.float32)}
        ds = tf.data.Dataset.from_tensor_slices((features, np.arange(8) * 10))
        ds = ds.map(lambda f, y: ({"a": f["a"] + 0.5}, y + 1)).batch(3)
    return graph, ds


def _read_all(next_element, session, init=None):
    if init is not None:
        session.run(init)
    out = []
    while True:
        try:
            out.append(session.run(next_element))
        except tf.errors.OutOfRangeError:
            return out


def _expected():
    a = np.arange(8, dtype=np.float32) + 0.5
    y = np.arange(8) * 10 + 1
    return [(a[i : i + 3].tolist(), y[i : i + 3].tolist()) for i in (0, 3, 6)]


def _plain(batches):
    return [(f["a"].tolist(), y.tolist()) for f, y in batches]


def test_tf_refuses_what_the_method_took():
    """The case the functions exist for: TensorFlow's own function refuses it."""
    _, ds = _made_in_another_graph()
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="different from the graph"):
            tf1.data.make_one_shot_iterator(ds)


def test_one_shot_reads_a_dataset_made_in_another_graph():
    source_graph, ds = _made_in_another_graph()
    ops_before = len(source_graph.get_operations())
    with tf.Graph().as_default() as graph:
        element = queues.make_one_shot_iterator(ds).get_next()
        assert element[1].graph is graph
        with tf1.Session() as session:
            assert _plain(_read_all(element, session)) == _expected()
    assert len(source_graph.get_operations()) == ops_before  # left as it was


def test_initializable_reads_it_again_after_each_initializer():
    _, ds = _made_in_another_graph()
    with tf.Graph().as_default():
        iterator = queues.make_initializable_iterator(ds, shared_name="")
        element = iterator.get_next()
        with tf1.Session() as session:
            for _ in range(2):
                batches = _read_all(element, session, iterator.initializer)
                assert _plain(batches) == _expected()


def test_a_dataset_made_eagerly_is_read_in_a_graph():
    ds = tf.data.Dataset.range(5).map(lambda x: x * 2)
    assert tf.executing_eagerly()
    with tf.Graph().as_default():
        element = queues.make_one_shot_iterator(ds).get_next()
        with tf1.Session() as session:
            assert [int(v) for v in _read_all(element, session)] == [0, 2, 4, 6, 8]


def test_a_dataset_of_the_same_graph_is_not_copied():
    with tf.Graph().as_default() as graph:
        ds = tf.data.Dataset.range(3)
        ops_before = len(graph.get_operations())
        element = queues.make_one_shot_iterator(ds).get_next()
        copied = [op for op in graph.get_operations() if "dataset_copy" in op.name]
        assert not copied and len(graph.get_operations()) > ops_before
        with tf1.Session() as session:
            assert [int(v) for v in _read_all(element, session)] == [0, 1, 2]


def test_eager_one_shot_iterates_as_tf_does():
    ds = tf.data.Dataset.range(3)
    assert [int(v) for v in queues.make_one_shot_iterator(ds)] == [0, 1, 2]


@pytest.mark.parametrize(
    "function", [queues.make_one_shot_iterator, queues.make_initializable_iterator]
)
def test_what_is_not_a_dataset_is_refused_with_the_argument(function):
    name = function.__name__
    with pytest.raises(TypeError) as error:
        function([1, 2, 3])
    assert str(error.value) == (
        f"`{name}(dataset)`: `dataset` must be a tf.data.Dataset; received list. "
        f"It replaces `dataset.{name}()`: pass the dataset the method was called on."
    )
