"""Argument checks, warnings, get_next, determinism and legacy shims of `queues`."""

import numpy as np
import pytest
import tensorflow as tf

from estimator_multigpu.inputs import queues

tf1 = tf.compat.v1
pytestmark = pytest.mark.tf_compat


def _source(n=6, epochs=1):
    return queues.slice_input_producer(
        [np.arange(n), np.arange(n) * 10], epochs, shuffle=False
    )


def _values(dataset):
    return [tuple(np.asarray(c).tolist() for c in tf.nest.flatten(e)) for e in dataset]


BAD_CALLS = [
    (
        "capacity-type",
        lambda: queues.range_input_producer(3, capacity="8"),
        TypeError,
        r"`capacity` must be a Python int; received '8'",
    ),
    (
        "num-epochs-zero",
        lambda: queues.range_input_producer(3, num_epochs=0),
        ValueError,
        r"`num_epochs` must be >= 1; received 0",
    ),
    (
        "limit-zero",
        lambda: queues.range_input_producer(0),
        ValueError,
        r"`limit` must be >= 1; received 0",
    ),
    (
        "input-empty",
        lambda: queues.input_producer(np.zeros([0, 2])),
        ValueError,
        r"`input_tensor` is empty \(shape \(0, 2\)\)",
    ),
    (
        "input-scalar",
        lambda: queues.input_producer(3.0),
        ValueError,
        r"`input_tensor` must have at least one dimension",
    ),
    (
        "element-shape",
        lambda: queues.input_producer(np.zeros([2, 3]), element_shape=[4]),
        ValueError,
        r"`element_shape` \(4,\) does not match",
    ),
    (
        "strings-dtype",
        lambda: queues.string_input_producer([1, 2]),
        TypeError,
        r"`string_tensor` must hold strings; received dtype int32",
    ),
    (
        "strings-empty-list",
        lambda: queues.string_input_producer([]),
        ValueError,
        r"`string_tensor` is empty \(an empty list\).*glob.*matched no file",
    ),
    (
        "strings-empty-tensor",
        lambda: queues.string_input_producer(tf.constant([], tf.string)),
        ValueError,
        r"`string_tensor` is empty \(a tensor of shape \(0,\)\)",
    ),
    (
        "strings-rank",
        lambda: queues.string_input_producer([["a"]]),
        ValueError,
        r"`string_tensor` must be one-dimensional; received shape \(1, 1\)",
    ),
    (
        "slice-empty",
        lambda: queues.slice_input_producer([]),
        ValueError,
        r"`tensor_list` must be a non-empty list of tensors",
    ),
    (
        "slice-lengths",
        lambda: queues.slice_input_producer([np.zeros(3), np.zeros(4)]),
        ValueError,
        r"`tensor_list` tensors must have the same first dimension; received lengths \[3, 4\]",
    ),
    (
        "fixed-record-bytes",
        lambda: queues.FixedLengthRecordReader(0),
        ValueError,
        r"`record_bytes` must be >= 1; received 0",
    ),
    (
        "fixed-encoding",
        lambda: queues.FixedLengthRecordReader(4, encoding="LZ4"),
        ValueError,
        r"`encoding` must be None, 'ZLIB' or 'GZIP'; received 'LZ4'",
    ),
    (
        "skip-header",
        lambda: queues.TextLineReader(skip_header_lines=-1),
        ValueError,
        r"`skip_header_lines` must be >= 0; received -1",
    ),
    (
        "read-reader",
        lambda: queues.read(["a"], "tfrecord"),
        TypeError,
        r"`reader` must be one of .*received 'tfrecord'",
    ),
    (
        "read-filenames",
        lambda: queues.read(tf.data.Dataset.range(3), queues.WholeFileReader()),
        TypeError,
        r"`filenames` must be a dataset of scalar tf.string",
    ),
    (
        "read-num-readers",
        lambda: queues.read(["a"], queues.WholeFileReader(), num_readers=0),
        ValueError,
        r"`num_readers` must be >= 1; received 0",
    ),
    (
        "spec-read",
        lambda: queues.TFRecordReader().read(None),
        TypeError,
        r"TFRecordReader here is a spec, not a queue reader",
    ),
    (
        "batch-tensors",
        lambda: queues.batch([tf.constant(1)], 2),
        TypeError,
        r"`tensors` must be a tf.data.Dataset of per-example structures; received list",
    ),
    (
        "batch-size",
        lambda: queues.batch(_source(), 0),
        ValueError,
        r"`batch_size` must be >= 1; received 0",
    ),
    (
        "num-threads",
        lambda: queues.batch(_source(), 2, num_threads=0),
        ValueError,
        r"`num_threads` must be >= 1; received 0",
    ),
    (
        "shapes-count",
        lambda: queues.batch(_source(), 2, shapes=[[]]),
        ValueError,
        r"`shapes` has 1 entries but each example has 2 tensors",
    ),
    (
        "shapes-compatible",
        lambda: queues.batch(_source(), 2, shapes=[[3], []]),
        ValueError,
        r"`shapes\[0\]` is \(3,\) but that tensor has shape \(\)",
    ),
    (
        "undefined-shape",
        lambda: queues.batch(_source().map(lambda x, y: tf.range(x)), 2),
        ValueError,
        r"All shapes must be fully defined .* set `dynamic_pad=True`",
    ),
    (
        "shuffle-capacity",
        lambda: queues.shuffle_batch(_source(), 2, 5, 10),
        ValueError,
        r"`capacity` \(5\) must be bigger than `min_after_dequeue` \(10\)",
    ),
    (
        "join-dataset",
        lambda: queues.batch_join(_source(), 2),
        TypeError,
        r"`tensors_list` must be a list of tf.data.Dataset .*received _?\w*Dataset",
    ),
    (
        "join-empty",
        lambda: queues.batch_join([], 2),
        ValueError,
        r"`tensors_list` is empty",
    ),
    (
        "join-structure",
        lambda: queues.batch_join([_source(), tf.data.Dataset.range(3)], 2),
        ValueError,
        r"`tensors_list\[1\]` yields .* all must have the same structure",
    ),
    (
        "keep-type",
        lambda: queues.maybe_batch(_source(), "yes", 2),
        TypeError,
        r"`keep_input` must be a bool, a bool tensor, or a function .*received 'yes'",
    ),
    (
        "keep-rank",
        lambda: queues.maybe_batch(_source(), lambda x, y: tf.stack([x > 0, y > 0]), 2),
        ValueError,
        r"`keep_input` must give a scalar bool per element; received shape \(2,\)",
    ),
    (
        "keep-rank-many",
        lambda: queues.maybe_batch(
            _source().batch(2), lambda x, y: True, 2, enqueue_many=True
        ),
        ValueError,
        r"must give a vector bool per element \(enqueue_many=True\)",
    ),
    (
        "pipeline-batcher",
        lambda: queues.input_pipeline(
            ["a"], queues.WholeFileReader(), batcher="bucket"
        ),
        ValueError,
        r"`batcher` must be one of .*received 'bucket'",
    ),
    (
        "get-next-type",
        lambda: queues.get_next([1, 2]),
        TypeError,
        r"`dataset` must be a tf.data.Dataset; received list",
    ),
    (
        "get-next-eager",
        lambda: queues.get_next(_source()),
        TypeError,
        r"`get_next` builds graph tensors and needs graph mode",
    ),
    (
        "queue-runner",
        lambda: queues.QueueRunner(None, []),
        NotImplementedError,
        r"QueueRunner has no tf.data equivalent.*migration_guide.md#queue-runners",
    ),
    (
        "add-queue-runner",
        lambda: queues.add_queue_runner(None),
        NotImplementedError,
        r"migration_guide.md#queue-runners",
    ),
]


@pytest.mark.parametrize(
    "call,error,match", [b[1:] for b in BAD_CALLS], ids=[b[0] for b in BAD_CALLS]
)
def test_bad_input_raises(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_unknown_row_shape_needs_element_shape():
    with tf.Graph().as_default():
        rows = tf1.placeholder(tf.float32, [None, None])
        with pytest.raises(
            ValueError, match=r"partly unknown shape \(None,\).*`element_shape=`"
        ):
            queues.input_producer(rows)
        assert queues.input_producer(rows, element_shape=[3]).element_spec.shape == [3]


WARNING_CALLS = [
    (
        "shared-name",
        lambda: queues.range_input_producer(3, shared_name="q"),
        r"`shared_name` \('q'\) is ignored.*migration_guide.md#shared-name",
    ),
    (
        "cancel-op",
        lambda: queues.string_input_producer(["a"], cancel_op=tf.constant(True)),
        r"`cancel_op` is ignored.*migration_guide.md#queue-runners",
    ),
    (
        "batch-shared-name",
        lambda: queues.batch(_source(), 2, shared_name="b"),
        r"`shared_name` \('b'\) is ignored",
    ),
    (
        "capacity-below-batch",
        lambda: queues.batch(_source(), 8, capacity=4),
        r"`capacity` \(4\) is smaller than `batch_size` \(8\).*#capacity",
    ),
    (
        "coordinator",
        lambda: queues.Coordinator().request_stop(),
        r"A Coordinator has nothing to coordinate.*#queue-runners",
    ),
    (
        "start-queue-runners",
        lambda: queues.start_queue_runners(),
        r"start_queue_runners\(\) has nothing to start.*#queue-runners",
    ),
]


@pytest.mark.parametrize(
    "call,match", [w[1:] for w in WARNING_CALLS], ids=[w[0] for w in WARNING_CALLS]
)
def test_unsupported_arguments_warn(call, match):
    with pytest.warns(queues.QueueSemanticsWarning, match=match):
        call()


def test_second_read_of_same_filenames_warns():
    names = queues.string_input_producer(["a", "b"])
    queues.read(names, queues.TFRecordReader())
    with pytest.warns(queues.QueueSemanticsWarning, match=r"num_readers=n.*#readers"):
        queues.read(names, queues.TFRecordReader())


def test_start_queue_runners_starts_remaining_queue_runners():
    with tf.Graph().as_default():
        value = tf1.train.range_input_producer(3, shuffle=False).dequeue()
        with tf1.Session() as sess:
            coord = tf1.train.Coordinator()
            threads = queues.start_queue_runners(sess, coord)
            assert threads and sess.run(value) == 0
            coord.request_stop()
            sess.close()
            coord.join(threads, ignore_live_threads=True)


def _count_examples(session_fn, dataset_fn):
    with tf.Graph().as_default():
        tf1.train.get_or_create_global_step()
        images, _ = queues.get_next(dataset_fn())
        seen = 0
        with session_fn() as sess:
            try:
                while True:
                    seen += len(sess.run(images))
            except tf.errors.OutOfRangeError:
                return seen


SESSIONS = [
    ("monitored", lambda: tf1.train.MonitoredTrainingSession()),
    ("plain", lambda: tf1.Session()),
]


@pytest.mark.parametrize(
    "session_fn", [s[1] for s in SESSIONS], ids=[s[0] for s in SESSIONS]
)
def test_get_next_needs_no_initializer_and_ends(session_fn):
    assert _count_examples(session_fn, lambda: queues.batch(_source(7, 2), 3)) == 12


def test_get_next_with_captured_variable_runs_under_monitored_session():
    def dataset_fn():
        offset = tf1.get_variable("offset", initializer=100)
        return queues.batch(
            _source(4).map(lambda x, y: (x + tf.cast(offset, x.dtype), y)), 2
        )

    with tf.Graph().as_default():
        images, _ = queues.get_next(dataset_fn())
        with tf1.train.MonitoredTrainingSession() as sess:
            assert sess.run(images).tolist() == [100, 101]


def test_get_next_with_table_runs_in_plain_session_after_tables_initializer():
    with tf.Graph().as_default():
        keys = tf.lookup.KeyValueTensorInitializer(
            tf.constant([0, 1, 2], tf.int64), [10, 20, 30]
        )
        table = tf.lookup.StaticHashTable(keys, -1)
        labels = queues.get_next(
            queues.batch(tf.data.Dataset.range(3).map(table.lookup), 3)
        )
        with tf1.Session() as sess:
            sess.run(tf1.tables_initializer())
            assert sess.run(labels).tolist() == [10, 20, 30]
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(labels)


def test_get_next_keeps_static_batch_dimension():
    with tf.Graph().as_default():
        images, labels = queues.get_next(queues.shuffle_batch(_source(), 4, 10, 2))
        assert images.shape.as_list() == [4] and labels.shape.as_list() == [4]


SEEDED = [
    ("shuffle_batch", lambda s: queues.shuffle_batch(_source(20), 4, 30, 10, seed=s)),
    (
        "string_input_producer",
        lambda s: queues.string_input_producer(list("abcdefgh"), 2, seed=s),
    ),
    (
        "slice_input_producer",
        lambda s: queues.slice_input_producer([np.arange(10)], 1, seed=s),
    ),
]


@pytest.mark.parametrize("build", [s[1] for s in SEEDED], ids=[s[0] for s in SEEDED])
def test_seed_makes_order_repeatable(build):
    assert _values(build(7)) == _values(build(7))
    assert _values(build(7)) != _values(build(8))


def test_join_deterministic_is_round_robin():
    joined = queues.batch_join(
        [_source(3), _source(3).map(lambda x, y: (x + 100, y))],
        2,
        allow_smaller_final_batch=True,
        deterministic=True,
    )
    flat = [x for batch in joined for x in batch[0].numpy().tolist()]
    assert flat == [0, 100, 1, 101, 2, 102]


def test_parallel_readers_deterministic_round_robin(tmp_path):
    names = []
    for i in range(2):
        names.append(str(tmp_path / f"{i}.txt"))
        (tmp_path / f"{i}.txt").write_text(f"{i}a\n{i}b\n")
    records = queues.read(
        names, queues.TextLineReader(), num_readers=2, deterministic=True
    )
    assert [v.numpy() for _, v in records] == [b"0a", b"1a", b"0b", b"1b"]


@pytest.mark.parametrize(
    "enqueue_many", [False, True], ids=["per-example", "enqueue-many"]
)
def test_allow_smaller_final_batch_false_drops_remainder(enqueue_many):
    source = _source(7).batch(3) if enqueue_many else _source(7)
    dropped = queues.batch(source, 3, enqueue_many=enqueue_many)
    kept = queues.batch(
        source, 3, enqueue_many=enqueue_many, allow_smaller_final_batch=True
    )
    assert dropped.element_spec[0].shape.as_list() == [3]
    assert kept.element_spec[0].shape.as_list() == [None]
    assert [len(b[0]) for b in dropped] == [3, 3]
    assert [len(b[0]) for b in kept] == [3, 3, 1]


def test_input_pipeline_matches_manual_chain(tmp_path):
    names = []
    for i in range(3):
        names.append(str(tmp_path / f"{i}.txt"))
        (tmp_path / f"{i}.txt").write_text("".join(f"{i * 10 + j}\n" for j in range(4)))

    def example_fn(key, value):
        return tf.strings.to_number(value, tf.int32), key

    kwargs = dict(batch_size=5, capacity=20, min_after_dequeue=5)
    chained = queues.input_pipeline(
        names, queues.TextLineReader(), example_fn, num_epochs=2, seed=3, **kwargs
    )
    files = queues.string_input_producer(names, 2, seed=3)
    manual = queues.shuffle_batch(
        queues.read(files, queues.TextLineReader()).map(example_fn), seed=3, **kwargs
    )
    assert _values(chained) == _values(manual)
    assert len(_values(chained)) == 4  # 24 lines, remainder of 4 dropped


def test_get_next_tensors_feed_an_estimator_input_fn(tmp_path):
    """A migrated input_fn returns `get_next` tensors, as it returned a batcher's."""
    import estimator_multigpu as emg

    features = np.random.RandomState(0).randn(12, 3).astype(np.float32)

    def input_fn():
        example = queues.slice_input_producer(
            [features, np.arange(12) % 2], num_epochs=2
        )
        x, y = queues.get_next(queues.shuffle_batch(example, 4, 12, 4, seed=1))
        return {"x": x}, y

    def model_fn(features, labels, mode):
        w = tf1.get_variable("w", [3, 2], initializer=tf1.zeros_initializer())
        loss = tf1.losses.sparse_softmax_cross_entropy(
            labels, tf.matmul(features["x"], w)
        )
        step = tf1.train.get_or_create_global_step()
        train_op = tf1.train.GradientDescentOptimizer(0.1).minimize(loss, step)
        return emg.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    estimator = emg.estimator.Estimator(model_fn, model_dir=str(tmp_path))
    estimator.train(input_fn)  # runs until the input ends: 24 examples / 4
    assert estimator.get_variable_value("global_step") == 6
