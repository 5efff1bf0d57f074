"""`queues.prefetch_queue`: every dequeue() gives the next element, like slim's."""

import numpy as np
import pytest
import tensorflow as tf

from estimator_multigpu.inputs import queues

tf1 = tf.compat.v1
pytestmark = pytest.mark.tf_compat

NUM_EXAMPLES = 12
BATCH = 2


def _batches(epochs=1):
    """images [BATCH, 2] = (i, i) and labels [BATCH] = 10 * i, in order."""
    images = np.repeat(np.arange(NUM_EXAMPLES, dtype=np.int64)[:, None], 2, axis=1)
    labels = np.arange(NUM_EXAMPLES, dtype=np.int64) * 10
    dataset = tf.data.Dataset.from_tensor_slices((images, labels))
    return queues.get_next(dataset.repeat(epochs).batch(BATCH))


def _drain(session, fetches):
    """Runs `fetches` until the input ends; returns the results in order."""
    results = []
    while True:
        try:
            results.append(session.run(fetches))
        except tf.errors.OutOfRangeError:
            return results


def test_two_dequeues_in_one_run_give_two_consecutive_batches():
    with tf.Graph().as_default():
        images, labels = _batches()
        queue = queues.prefetch_queue([images, labels], capacity=4)
        first, second = queue.dequeue(), queue.dequeue()
        with tf1.Session() as session:
            (a_images, a_labels), (b_images, b_labels) = session.run([first, second])
    starts = sorted([a_labels[0], b_labels[0]])
    assert not np.array_equal(a_labels, b_labels)
    assert starts == [0, 20]
    np.testing.assert_array_equal(a_images[:, 0] * 10, a_labels)
    np.testing.assert_array_equal(b_images[:, 1] * 10, b_labels)


def test_every_example_once_per_epoch_in_order_across_runs():
    with tf.Graph().as_default():
        images, labels = _batches(epochs=2)
        dequeued = queues.prefetch_queue([images, labels]).dequeue()
        with tf1.Session() as session:
            runs = _drain(session, dequeued)
    seen = np.concatenate([run_labels for _, run_labels in runs])
    epoch = np.arange(NUM_EXAMPLES) * 10
    np.testing.assert_array_equal(seen, np.concatenate([epoch, epoch]))


def test_concatenated_dequeues_cover_the_epoch_once():
    # The shape emg-migrate --fix writes for a tower loop over the queue.
    with tf.Graph().as_default():
        queue = queues.prefetch_queue(list(_batches()))
        parts = zip(*[queue.dequeue() for _ in range(3)])
        image_batch, label_batch = [tf.concat(p, 0) for p in parts]
        with tf1.Session() as session:
            runs = _drain(session, label_batch)
    assert [len(r) for r in runs] == [3 * BATCH, 3 * BATCH]
    np.testing.assert_array_equal(
        np.sort(np.concatenate(runs)), np.arange(NUM_EXAMPLES) * 10
    )


def test_post_processing_ops_are_kept():
    with tf.Graph().as_default():
        images, labels = _batches()
        images = tf.cast(images, tf.float32) * 0.5
        labels = tf.reshape(labels, [BATCH])
        queue = queues.prefetch_queue((images, labels))
        dequeued = queue.dequeue()
        assert isinstance(dequeued, tuple)
        assert dequeued[0].dtype == tf.float32
        assert dequeued[1].shape.as_list() == [BATCH]
        with tf1.Session() as session:
            runs = _drain(session, dequeued)
    np.testing.assert_allclose(runs[1][0], [[1.0, 1.0], [1.5, 1.5]])
    np.testing.assert_array_equal(runs[1][1], [20, 30])
    assert len(runs) == NUM_EXAMPLES // BATCH


def test_dict_structure_is_kept():
    with tf.Graph().as_default():
        images, labels = _batches()
        queue = queues.prefetch_queue({"image": images, "label": labels})
        dequeued = queue.dequeue(name="tower_0")
        assert sorted(dequeued) == ["image", "label"]
        assert dequeued["label"].name.startswith("tower_0/")
        with tf1.Session() as session:
            first = session.run(dequeued)
    np.testing.assert_array_equal(first["label"], [0, 10])


def test_a_tf1_queue_source_also_advances():
    with tf.Graph().as_default():
        fifo = tf1.FIFOQueue(8, [tf.int64], shapes=[[]])
        enqueue = fifo.enqueue_many([tf.range(6, dtype=tf.int64)])
        queue = queues.prefetch_queue([fifo.dequeue() * 2])
        first, second = queue.dequeue(), queue.dequeue()
        with tf1.Session() as session:
            session.run(enqueue)
            values = session.run([first, second])
    assert sorted(v[0] for v in values) == [0, 2]


def _other_graph_tensor():
    with tf.Graph().as_default():
        return tf.constant([1])


BAD_CALLS = [
    (
        "capacity-type",
        lambda t: queues.prefetch_queue(t, capacity="4"),
        TypeError,
        r"`capacity` must be a Python int; received '4'",
    ),
    (
        "capacity-zero",
        lambda t: queues.prefetch_queue(t, capacity=0),
        ValueError,
        r"`capacity` must be >= 1; received 0",
    ),
    (
        "num-threads-zero",
        lambda t: queues.prefetch_queue(t, num_threads=0),
        ValueError,
        r"`num_threads` must be >= 1; received 0",
    ),
    (
        "no-iterator",
        lambda t: queues.prefetch_queue([tf.constant([1, 2]), tf.zeros([2])]),
        ValueError,
        r"`tensors` \(Const:0, zeros:0\) do not come from an iterator",
    ),
    (
        "empty",
        lambda t: queues.prefetch_queue([]),
        ValueError,
        r"`tensors` must hold at least one tensor; received \[\]",
    ),
    (
        "not-a-tensor",
        lambda t: queues.prefetch_queue([t[0], np.zeros(2)]),
        TypeError,
        r"`tensors` must hold graph tensors; received array",
    ),
    (
        "two-graphs",
        lambda t: queues.prefetch_queue([t[0], _other_graph_tensor()]),
        ValueError,
        r"`tensors` must all belong to one graph; received tensors of 2 graphs",
    ),
]


@pytest.mark.parametrize(
    "call, error, match", [c[1:] for c in BAD_CALLS], ids=[c[0] for c in BAD_CALLS]
)
def test_bad_input_is_refused(call, error, match):
    with tf.Graph().as_default():
        tensors = list(_batches())
        with pytest.raises(error, match=match):
            call(tensors)


def test_shared_name_warns():
    with tf.Graph().as_default():
        with pytest.warns(queues.QueueSemanticsWarning, match="`shared_name`"):
            queues.prefetch_queue(list(_batches()), shared_name="q")


def test_eager_mode_is_refused():
    if not tf.executing_eagerly():
        pytest.skip("v2 behaviour is off: this process has no eager mode")
    with pytest.raises(TypeError, match=r"`prefetch_queue` is graph-only"):
        queues.prefetch_queue([tf.constant([1])])


@pytest.fixture
def v1_control_flow():
    """TF1 while loops (Enter/Exit/NextIteration) for this test only."""
    was_v2 = tf1.control_flow_v2_enabled()
    tf1.disable_control_flow_v2()
    yield
    if was_v2:
        tf1.enable_control_flow_v2()


def test_a_tf1_while_loop_after_get_next_is_refused(v1_control_flow):
    with tf.Graph().as_default():
        images, labels = _batches()
        looped = tf.while_loop(
            lambda i, v: i < 2, lambda i, v: (i + 1, v + 1), [0, labels]
        )
        with pytest.raises(ValueError, match=r"through a TF1 while loop \(`while/"):
            queues.prefetch_queue([images, looped[1]])


def test_conditional_post_processing_is_kept():
    with tf.Graph().as_default():
        images, labels = _batches()
        labels = tf.cond(labels[0] > 30, lambda: labels * 2, lambda: -labels)
        dequeued = queues.prefetch_queue([images, labels]).dequeue()
        with tf1.Session() as session:
            runs = _drain(session, dequeued[1])
    np.testing.assert_array_equal(runs[1], [-20, -30])
    np.testing.assert_array_equal(runs[2], [80, 100])


def test_seeded_random_ops_draw_anew_in_each_dequeue():
    # A copy with its original's seeds would add the very same noise.
    with tf.Graph().as_default():
        tf1.set_random_seed(7)
        images, _ = _batches()
        noise = tf.random.uniform(tf.shape(images), seed=1)
        queue = queues.prefetch_queue([noise])
        first, second = queue.dequeue(), queue.dequeue()
        with tf1.Session() as session:
            a, b = session.run([first, second])
    assert not np.allclose(a[0], b[0])


def _queue_batch():
    """A TF1 `tf.train.batch` of [2, 4] float images and [2] labels."""
    image = tf1.train.limit_epochs(tf.ones([4]), num_epochs=3)
    return tf1.train.batch([image, tf.constant(7)], batch_size=2)


@pytest.mark.parametrize("source", ["queue", "dataset"])
def test_dequeue_keeps_the_static_shapes(source):
    with tf.Graph().as_default():
        if source == "queue":
            images, labels = _queue_batch()
        else:
            one = tf.data.Dataset.from_tensors((tf.ones([4]), tf.constant(7)))
            images, labels = queues.get_next(
                one.repeat(3).batch(2, drop_remainder=True)
            )
        queue = queues.prefetch_queue([tf.cast(images, tf.float32) * 2, labels])
        dequeued = queue.dequeue()
        assert [t.shape.as_list() for t in dequeued] == [
            images.shape.as_list(),
            labels.shape.as_list(),
        ]
        assert images.shape.is_fully_defined() and labels.shape.is_fully_defined()
        with tf1.Session() as session:
            session.run(tf1.local_variables_initializer())
            coord = tf1.train.Coordinator()
            threads = tf1.train.start_queue_runners(session, coord)
            got_images, got_labels = session.run(dequeued)
            coord.request_stop()
            coord.join(threads)
    np.testing.assert_array_equal(got_images, np.full([2, 4], 2.0))
    np.testing.assert_array_equal(got_labels, [7, 7])
