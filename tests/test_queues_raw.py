"""Raw queues (`FIFOQueue`, `RandomShuffleQueue` + QueueRunner) and per-thread `batch_join`.

Each case builds the TF1 queue version and the `queues` version in graph mode
and compares the examples (multiset, or order where the queue kept one).
"""

import collections

import numpy as np
import pytest
import tensorflow as tf

from estimator_multigpu.inputs import queues

tf1 = tf.compat.v1
pytestmark = pytest.mark.tf_compat

LINES = [f"l{i}" for i in range(12)]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("raw_queue_files")
    paths = []
    for i in range(2):
        path = root / f"t{i}.txt"
        path.write_text("\n".join(LINES[i * 6 : (i + 1) * 6]) + "\n")
        paths.append(str(path))
    return paths


def _drain(fetches, limit=None):
    config = tf1.ConfigProto(inter_op_parallelism_threads=16)
    results = []
    with tf1.Session(config=config) as sess:
        sess.run(tf1.local_variables_initializer())
        coord = tf1.train.Coordinator()
        threads = tf1.train.start_queue_runners(sess, coord)
        try:
            while limit is None or len(results) < limit:
                results.append(sess.run(fetches))
        except tf.errors.OutOfRangeError:
            pass
        finally:
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=5)
    return results


def _graph(build, limit=None):
    with tf.Graph().as_default():
        tf1.set_random_seed(0)
        fetches = build()
        shapes = [t.shape.as_list() for t in tf.nest.flatten(fetches)]
        return shapes, _drain(fetches, limit)


def _lines_tf1(files, threads, many):
    producer = tf1.train.string_input_producer(files, num_epochs=1, shuffle=False)
    queue = tf1.FIFOQueue(capacity=8, dtypes=[tf.string], shapes=[[]])
    _, line = tf1.TextLineReader().read(producer)
    enqueue = queue.enqueue([line])
    tf1.train.add_queue_runner(tf1.train.QueueRunner(queue, [enqueue] * threads))
    return queue.dequeue_many(many) if many else queue.dequeue()


def _lines_ours(files, threads, many):
    producer = queues.string_input_producer(files, num_epochs=1, shuffle=False)
    queue = queues.FIFOQueue(capacity=8, dtypes=[tf.string], shapes=[[]])
    records = queues.read(producer, queues.TextLineReader()).map(lambda _, v: v)
    enqueue = queue.enqueue(records)
    queues.add_queue_runner(queues.QueueRunner(queue, [enqueue] * threads))
    out = queue.dequeue_many(many) if many else queue.dequeue()
    return queues.get_next(out)


@pytest.mark.parametrize("threads,many", [(1, 0), (1, 4), (3, 4), (2, 5)])
def test_fifo_queue_fed_by_a_reader_matches(files, threads, many):
    real_shapes, real = _graph(lambda: _lines_tf1(files, threads, many))
    shapes, ours = _graph(lambda: _lines_ours(files, threads, many))
    assert shapes == real_shapes
    if many:  # dequeue_many drops a partial last batch, like the queue
        assert [len(b) for b in ours] == [len(b) for b in real] == [many] * (12 // many)
    flat = collections.Counter(np.ravel(ours).tolist())
    if many in (0, 4):
        assert flat == collections.Counter(np.ravel(real).tolist())
    if threads == 1:
        assert [np.ravel(b).tolist() for b in ours] == [
            np.ravel(b).tolist() for b in real
        ]


def _constant(kind, values):
    if kind == "tf1":
        queue = tf1.FIFOQueue(capacity=10, dtypes=[tf.int64], shapes=[[2]])
        runner, add = tf1.train.QueueRunner, tf1.train.add_queue_runner
    else:
        queue = queues.FIFOQueue(capacity=10, dtypes=[tf.int64], shapes=[[2]])
        runner, add = queues.QueueRunner, queues.add_queue_runner
    enqueue = queue.enqueue_many([tf.constant(values)])
    add(runner(queue, [enqueue]))
    out = queue.dequeue_many(4)
    return out if kind == "tf1" else queues.get_next(out)


def test_constant_enqueue_many_repeats_forever_in_order():
    values = np.arange(10).reshape(5, 2)
    real_shapes, real = _graph(lambda: _constant("tf1", values), limit=6)
    shapes, ours = _graph(lambda: _constant("ours", values), limit=6)
    assert shapes == real_shapes == [[4, 2]]
    np.testing.assert_array_equal(np.stack(ours), np.stack(real))


def _shuffled(kind, seed):
    cls = tf1.RandomShuffleQueue if kind == "tf1" else queues.RandomShuffleQueue
    queue = cls(20, 6, dtypes=[tf.int32], shapes=[[]], seed=seed)
    enqueue = queue.enqueue_many([tf.range(10)])
    if kind == "tf1":
        tf1.train.add_queue_runner(tf1.train.QueueRunner(queue, [enqueue]))
        return queue.dequeue_many(5)
    queues.add_queue_runner(queues.QueueRunner(queue, [enqueue]))
    return queues.get_next(queue.dequeue_many(5))


def test_random_shuffle_queue_shuffles_repeatably_by_seed():
    real_shapes, real = _graph(lambda: _shuffled("tf1", 3), limit=8)
    shapes, first = _graph(lambda: _shuffled("ours", 3), limit=8)
    _, again = _graph(lambda: _shuffled("ours", 3), limit=8)
    assert shapes == real_shapes == [[5]]
    np.testing.assert_array_equal(first, again)
    seen = np.ravel(first)
    assert set(seen) <= set(range(10)) and set(np.ravel(real)) <= set(range(10))
    assert seen.tolist() != sorted(seen.tolist())
    # Every value comes back as often as the others, give or take the buffer.
    counts = collections.Counter(seen.tolist())
    assert max(counts.values()) - min(counts.values()) <= 3


def test_dequeue_up_to_keeps_the_partial_last_batch(files):
    def ours():
        queue = queues.FIFOQueue(capacity=8, dtypes=[tf.string])
        producer = queues.string_input_producer(files, num_epochs=1, shuffle=False)
        records = queues.read(producer, queues.TextLineReader())
        queue.enqueue(records.map(lambda _, v: v))
        return queues.get_next(queue.dequeue_up_to(5))

    _, out = _graph(ours)
    assert [len(b) for b in out] == [5, 5, 2]


def _per_thread_tf1(files, threads, shift):
    producer = tf1.train.string_input_producer(files, num_epochs=1, shuffle=False)
    _, line = tf1.TextLineReader().read(producer)
    joined = []
    for thread_id in range(threads):
        number = tf.strings.to_number(tf.strings.substr(line, 1, 2), tf.int32)
        joined.append([number * 10 + (thread_id if shift else 0), line])
    return tf1.train.batch_join(joined, batch_size=3)


def _per_thread_ours(files, threads, shift):
    producer = queues.string_input_producer(files, num_epochs=1, shuffle=False)
    records = queues.read(producer, queues.TextLineReader())

    def fn(thread_id, key, line):
        number = tf.strings.to_number(tf.strings.substr(line, 1, 2), tf.int32)
        return [number * 10 + (thread_id if shift else 0), line]

    joined = queues.per_thread(records, fn, threads)
    return queues.get_next(queues.batch_join(joined, batch_size=3))


@pytest.mark.parametrize("threads", [1, 4])
def test_per_thread_batch_join_matches(files, threads):
    real_shapes, real = _graph(lambda: _per_thread_tf1(files, threads, False))
    shapes, ours = _graph(lambda: _per_thread_ours(files, threads, False))
    assert shapes == real_shapes == [[3], [3]]

    def examples(batches):
        return collections.Counter(
            (int(n), bytes(s)) for ns, ss in batches for n, s in zip(ns, ss)
        )

    assert examples(ours) == examples(real)
    assert len(examples(ours)) == 12


def test_each_example_goes_through_one_thread_copy(files):
    _, ours = _graph(lambda: _per_thread_ours(files, 4, True))
    numbers = sorted(int(n) for ns, _ in ours for n in ns)
    assert len(numbers) == 12
    assert sorted(n // 10 for n in numbers) == list(range(12))
    assert {n % 10 for n in numbers} == {0, 1, 2, 3}  # all four copies ran


def test_bad_input_is_refused(files):
    with tf.Graph().as_default():
        queue = queues.FIFOQueue(4, [tf.int32])
        with pytest.raises(ValueError, match="Nothing was enqueued on this queue"):
            queue.dequeue()
        with pytest.raises(ValueError, match=r"holds \['int32'\] but the enqueued"):
            queue.enqueue(tf.data.Dataset.from_tensors(1.0))
        _, line = tf1.TextLineReader().read(tf1.train.string_input_producer(files))
        with pytest.raises(TypeError, match="computed from `ReaderReadV2`"):
            queues.FIFOQueue(4, [tf.string]).enqueue([line])
        other = queues.FIFOQueue(4, [tf.int32]).enqueue([tf.constant(1)])
        with pytest.raises(ValueError, match=r"`enqueue_ops\[0\]` is .*not an enqueue"):
            queues.QueueRunner(queue, [other])
        with pytest.raises(ValueError, match="`capacity` \\(4\\) must be bigger"):
            queues.RandomShuffleQueue(4, 4, [tf.int32])
        with pytest.raises(TypeError, match="`fn` must be callable"):
            queues.per_thread(tf.data.Dataset.range(3), 3, 2)


def _started_by_hand(kind, values, limit):
    """TF 1.x's threading guide: the runner's threads started with
    `qr.create_threads(sess, coord=coord, start=True)`, no add_queue_runner."""
    mod = tf1.train if kind == "tf1" else queues
    queue = (tf1 if kind == "tf1" else queues).FIFOQueue(
        capacity=10, dtypes=[tf.int64], shapes=[[2]]
    )
    qr = mod.QueueRunner(queue, [queue.enqueue_many([tf.constant(values)])])
    out = queue.dequeue()
    out = out if kind == "tf1" else queues.get_next(out)
    with tf1.Session() as sess:
        coord = tf1.train.Coordinator()
        threads = qr.create_threads(sess, coord=coord, start=True)
        results = [sess.run(out).tolist() for _ in range(limit)]
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=5)
    return results, threads


def test_create_threads_starts_nothing_and_the_queue_still_fills():
    values = np.arange(6).reshape(3, 2)
    with tf.Graph().as_default():
        real, real_threads = _started_by_hand("tf1", values, 7)
    with tf.Graph().as_default():
        ours, threads = _started_by_hand("ours", values, 7)
    assert real_threads and threads == []  # TF 1.x: an enqueue and a closer
    assert ours == real == [[0, 1], [2, 3], [4, 5], [0, 1], [2, 3], [4, 5], [0, 1]]


def test_numpy_values_take_the_queues_dtypes_as_tf1s_enqueue_did():
    # TF 1.x converted each enqueued value with the queue's dtype: numpy's
    # float64 and int64 arrays went into a float32/int32 queue.
    data = np.arange(8, dtype=np.float64).reshape(4, 2) / 2
    target = np.arange(4)
    with tf.Graph().as_default():
        queue = queues.FIFOQueue(
            capacity=8, dtypes=[tf.float32, tf.int32], shapes=[[2], []]
        )
        queues.QueueRunner(queue, [queue.enqueue_many([data, target])])
        x, y = queues.get_next(queue.dequeue())
        assert (x.dtype, y.dtype) == (tf.float32, tf.int32)
        with tf1.Session() as sess:
            assert [sess.run([x, y])[1] for _ in range(5)] == [0, 1, 2, 3, 0]
    with tf.Graph().as_default():
        named = queues.FIFOQueue(
            capacity=8,
            dtypes=[tf.int32, tf.float32],
            shapes=[[], [2]],
            names=["y", "x"],
        )
        op = named.enqueue_many({"x": data, "y": target})
        assert [s.dtype for s in tf.nest.flatten(op.dataset.element_spec)] in (
            [tf.float32, tf.int32],
            [tf.int32, tf.float32],
        )
