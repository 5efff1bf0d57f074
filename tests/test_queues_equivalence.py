"""The queue equivalents produce what the real TF1 queue API produces.

Each case builds the same chain twice in graph mode — once with
`tf.compat.v1.train` queues and queue runners, once with `queues` — and
compares the multiset of examples over all epochs and the batch shapes.
"""

import collections
import gzip

import numpy as np
import pytest
import tensorflow as tf

from estimator_multigpu.inputs import queues

tf1 = tf.compat.v1
pytestmark = pytest.mark.tf_compat


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Small text, TFRecord (plain and GZIP) and fixed-length files."""
    root = tmp_path_factory.mktemp("queue_files")
    out = {"text": [], "tfrecord": [], "tfrecord_gz": [], "fixed": [], "fixed_gz": []}
    texts = ["hdr\na0\na1\n\na3\r\na4\n", "hdr\nb0\nb1\nb2"]
    for i, text in enumerate(texts):
        path = root / f"t{i}.txt"
        path.write_text(text)
        out["text"].append(str(path))
    for i in range(2):
        records = [f"r{i}-{j}".encode() * (j + 1) for j in range(4 + i)]
        for kind, options in (("tfrecord", None), ("tfrecord_gz", "GZIP")):
            path = str(root / f"r{i}.{kind}")
            with tf.io.TFRecordWriter(path, options) as writer:
                for record in records:
                    writer.write(record)
            out[kind].append(path)
        body = bytes(range(i * 50, i * 50 + 2 + 4 * (5 + i) + 1 + 2))
        path = root / f"f{i}.bin"
        path.write_bytes(body)
        out["fixed"].append(str(path))
        gz = root / f"f{i}.bin.gz"
        gz.write_bytes(gzip.compress(body))
        out["fixed_gz"].append(str(gz))
    empty = root / "empty.bin"
    empty.write_bytes(b"")
    out["fixed_with_empty"] = [str(empty), out["fixed"][0]]
    out["text_with_empty"] = [str(empty), out["text"][1]]
    return out


def _drain(fetches, queue_runners):
    """Runs `fetches` until OutOfRangeError; returns the list of results."""
    results = []
    # Queue ops block inter-op threads; on a 2-core machine the default pool
    # can be too small for several queues and deadlock.
    config = tf1.ConfigProto(inter_op_parallelism_threads=16)
    with tf1.Session(config=config) as sess:
        sess.run(
            [tf1.global_variables_initializer(), tf1.local_variables_initializer()]
        )
        coord = tf1.train.Coordinator()
        threads = tf1.train.start_queue_runners(sess, coord) if queue_runners else []
        try:
            while True:
                results.append(sess.run(fetches))
        except tf.errors.OutOfRangeError:
            pass
        finally:
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=5)
    return results


def _run(build, files, queue_runners):
    with tf.Graph().as_default():
        tf1.set_random_seed(0)
        fetches = build(files)
        static = [t.shape.as_list() for t in tf.nest.flatten(fetches)]
        return static, _drain(fetches, queue_runners)


def _examples(results, batched):
    """Multiset of examples; each example a tuple of its components' bytes."""
    counter = collections.Counter()
    for result in results:
        flat = [np.asarray(t) for t in tf.nest.flatten(result)]
        rows = zip(*flat) if batched else [flat]
        for row in rows:
            counter[tuple(np.asarray(c).tobytes() for c in row)] += 1
    return counter


def _batch_sizes(results):
    return sorted(len(tf.nest.flatten(r)[0]) for r in results)


# --- producers: (id, real chain, queues chain) --------------------------------

_MATRIX = np.arange(24, dtype=np.float32).reshape(6, 4)


def _strings(n=5):
    return [f"s{i}" for i in range(n)]


PRODUCERS = [
    (
        "string_input_producer",
        lambda f: tf1.train.string_input_producer(_strings(), num_epochs=3).dequeue(),
        lambda f: queues.get_next(
            queues.string_input_producer(_strings(), num_epochs=3)
        ),
    ),
    (
        "string_input_producer-noshuffle",
        lambda f: tf1.train.string_input_producer(
            _strings(), 2, shuffle=False
        ).dequeue(),
        lambda f: queues.get_next(
            queues.string_input_producer(_strings(), 2, shuffle=False)
        ),
    ),
    (
        "range_input_producer",
        lambda f: tf1.train.range_input_producer(7, num_epochs=2, seed=3).dequeue(),
        lambda f: queues.get_next(queues.range_input_producer(7, num_epochs=2, seed=3)),
    ),
    (
        "input_producer",
        lambda f: tf1.train.input_producer(_MATRIX, num_epochs=2).dequeue(),
        lambda f: queues.get_next(queues.input_producer(_MATRIX, num_epochs=2)),
    ),
    (
        "slice_input_producer",
        lambda f: tf1.train.slice_input_producer([_MATRIX, tf.range(6)], num_epochs=3),
        lambda f: list(
            queues.get_next(
                queues.slice_input_producer([_MATRIX, tf.range(6)], num_epochs=3)
            )
        ),
    ),
    (
        "limit_epochs",
        lambda f: tf1.train.limit_epochs(tf.constant([1, 2]), num_epochs=4),
        lambda f: queues.get_next(
            queues.limit_epochs(tf.constant([1, 2]), num_epochs=4)
        ),
    ),
]


@pytest.mark.parametrize(
    "real,ours", [p[1:] for p in PRODUCERS], ids=[p[0] for p in PRODUCERS]
)
def test_producer_matches_queue(files, real, ours):
    real_static, real_out = _run(real, files, queue_runners=True)
    our_static, our_out = _run(ours, files, queue_runners=False)
    assert our_static == real_static
    assert _examples(our_out, batched=False) == _examples(real_out, batched=False)


# --- readers ------------------------------------------------------------------

READERS = [
    ("tfrecord", "tfrecord", tf1.TFRecordReader, queues.TFRecordReader, {}),
    (
        "tfrecord-gzip",
        "tfrecord_gz",
        tf1.TFRecordReader,
        queues.TFRecordReader,
        {"options": tf.io.TFRecordOptions("GZIP")},
    ),
    ("textline", "text", tf1.TextLineReader, queues.TextLineReader, {}),
    (
        "textline-skip-header",
        "text",
        tf1.TextLineReader,
        queues.TextLineReader,
        {"skip_header_lines": 1},
    ),
    (
        "fixed-length",
        "fixed",
        tf1.FixedLengthRecordReader,
        queues.FixedLengthRecordReader,
        {"record_bytes": 4, "header_bytes": 2, "footer_bytes": 1},
    ),
    (
        "fixed-length-hop",
        "fixed",
        tf1.FixedLengthRecordReader,
        queues.FixedLengthRecordReader,
        {"record_bytes": 5, "header_bytes": 1, "hop_bytes": 3},
    ),
    (
        "fixed-length-gzip",
        "fixed_gz",
        tf1.FixedLengthRecordReader,
        queues.FixedLengthRecordReader,
        {"record_bytes": 4, "header_bytes": 2, "encoding": "GZIP"},
    ),
    (
        "fixed-length-hop-gap",
        "fixed",
        tf1.FixedLengthRecordReader,
        queues.FixedLengthRecordReader,
        {"record_bytes": 2, "header_bytes": 1, "footer_bytes": 2, "hop_bytes": 5},
    ),
    (
        "fixed-length-empty-file",
        "fixed_with_empty",
        tf1.FixedLengthRecordReader,
        queues.FixedLengthRecordReader,
        {"record_bytes": 3},
    ),
    (
        "textline-empty-file",
        "text_with_empty",
        tf1.TextLineReader,
        queues.TextLineReader,
        {},
    ),
    ("whole-file", "fixed", tf1.WholeFileReader, queues.WholeFileReader, {}),
    (
        "whole-file-empty",
        "fixed_with_empty",
        tf1.WholeFileReader,
        queues.WholeFileReader,
        {},
    ),
]


def _real_read(kind, reader_cls, kwargs):
    def build(files):
        queue = tf1.train.string_input_producer(files[kind], num_epochs=2)
        return list(reader_cls(**kwargs).read(queue))

    return build


def _our_read(kind, reader_cls, kwargs, num_readers=1):
    def build(files):
        names = queues.string_input_producer(files[kind], num_epochs=2)
        records = queues.read(names, reader_cls(**kwargs), num_readers=num_readers)
        return list(queues.get_next(records))

    return build


@pytest.mark.parametrize(
    "kind,real_cls,our_cls,kwargs",
    [r[1:] for r in READERS],
    ids=[r[0] for r in READERS],
)
def test_reader_matches_queue(files, kind, real_cls, our_cls, kwargs):
    real_static, real_out = _run(_real_read(kind, real_cls, kwargs), files, True)
    our_static, our_out = _run(_our_read(kind, our_cls, kwargs), files, False)
    assert our_static == real_static
    assert len(real_out) > 0
    assert _examples(our_out, batched=False) == _examples(real_out, batched=False)


@pytest.mark.parametrize("num_readers", [2, 3], ids=["2readers", "3readers"])
def test_parallel_readers_match_shared_queue(files, num_readers):
    """`num_readers` matches n queue readers sharing one filename queue."""

    def real(f):
        queue = tf1.train.string_input_producer(f["tfrecord"], num_epochs=2)
        reads = [list(tf1.TFRecordReader().read(queue)) for _ in range(num_readers)]
        return tf1.train.batch_join(reads, 1)

    ours = _our_read("tfrecord", queues.TFRecordReader, {}, num_readers)
    _, real_out = _run(real, files, True)
    _, our_out = _run(ours, files, False)
    assert _examples(our_out, batched=False) == _examples(real_out, batched=True)


# --- batchers -----------------------------------------------------------------

_X = np.arange(12, dtype=np.int32)


def _real_src(offset=0, epochs=2):
    return tf1.train.slice_input_producer([_X + offset, _X * 10], epochs, shuffle=False)


def _our_src(offset=0, epochs=2):
    return queues.slice_input_producer([_X + offset, _X * 10], epochs, shuffle=False)


def _rows(api):
    """Rows of 3 examples each, for enqueue_many: 8 rows over 2 epochs."""
    rows = _X.reshape(4, 3)
    return api.input_producer(rows, num_epochs=2, shuffle=False)


def _keep(x, y=None):
    return tf.not_equal(x % 3, 0)


def _masked(x):
    return tf.boolean_mask(tf.stack([x, x]), [True, True])  # shape [None]


def _real_maybe_batch():
    src = _real_src()
    return tf1.train.maybe_batch(src, _keep(src[0]), 4)


def _real_maybe_many():
    row = _rows(tf1.train).dequeue()
    return tf1.train.maybe_batch([row], _keep(row), 3, enqueue_many=True)


def _real_maybe_join():
    # The real join evaluates one keep_input for every source, so it cannot
    # depend on one source's example: a scalar condition is what it supports.
    srcs = [_real_src(), _real_src(100, 1)]
    return tf1.train.maybe_batch_join(srcs, tf.constant(True), 4)


def _real_maybe_shuffle():
    src = _real_src()
    return tf1.train.maybe_shuffle_batch(src, 4, 20, 8, _keep(src[0]), seed=2)


def _real_maybe_shuffle_join():
    srcs = [_real_src(), _real_src(100, 1)]
    return tf1.train.maybe_shuffle_batch_join(srcs, 4, 20, 8, tf.constant(True))


BATCHERS = [
    # id, real chain, queues chain, same order?
    (
        "batch-drop-remainder",
        lambda: tf1.train.batch(_real_src(), 5),
        lambda: queues.batch(_our_src(), 5),
        True,
    ),
    (
        "batch-smaller-final",
        lambda: tf1.train.batch(_real_src(), 5, allow_smaller_final_batch=True),
        lambda: queues.batch(_our_src(), 5, allow_smaller_final_batch=True),
        True,
    ),
    (
        "batch-threads",
        lambda: tf1.train.batch(_real_src(), 4, num_threads=3),
        lambda: queues.batch(_our_src(), 4, num_threads=3),
        False,
    ),
    (
        "batch-dict",
        lambda: tf1.train.batch(dict(zip("xy", _real_src())), 5, capacity=8),
        lambda: queues.batch(
            _our_src().map(lambda x, y: {"x": x, "y": y}), 5, capacity=8
        ),
        True,
    ),
    (
        "batch-enqueue-many",
        lambda: tf1.train.batch([_rows(tf1.train).dequeue()], 5, enqueue_many=True),
        lambda: queues.batch(_rows(queues).map(lambda r: (r,)), 5, enqueue_many=True),
        True,
    ),
    (
        "batch-shapes",
        lambda: tf1.train.batch([_masked(_real_src()[0])], 3, shapes=[[2]]),
        lambda: queues.batch(
            _our_src().map(lambda x, y: (_masked(x),)), 3, shapes=[[2]]
        ),
        True,
    ),
    (
        "batch-dynamic-pad",
        lambda: tf1.train.batch([tf.range(_real_src()[0] % 4)], 3, dynamic_pad=True),
        lambda: queues.batch(
            _our_src().map(lambda x, y: (tf.range(x % 4),)), 3, dynamic_pad=True
        ),
        True,
    ),
    (
        "batch-join",
        lambda: tf1.train.batch_join([_real_src(), _real_src(100, 1)], 4),
        lambda: queues.batch_join([_our_src(), _our_src(100, 1)], 4),
        False,
    ),
    (
        "shuffle-batch",
        lambda: tf1.train.shuffle_batch(_real_src(), 4, 20, 8, seed=1),
        lambda: queues.shuffle_batch(_our_src(), 4, 20, 8, seed=1),
        False,
    ),
    (
        "shuffle-batch-smaller-final",
        lambda: tf1.train.shuffle_batch(
            _real_src(), 5, 20, 8, allow_smaller_final_batch=True
        ),
        lambda: queues.shuffle_batch(
            _our_src(), 5, 20, 8, allow_smaller_final_batch=True
        ),
        False,
    ),
    (
        "shuffle-batch-enqueue-many",
        lambda: tf1.train.shuffle_batch(
            [_rows(tf1.train).dequeue()], 4, 10, 2, enqueue_many=True
        ),
        lambda: queues.shuffle_batch(
            _rows(queues).map(lambda r: (r,)), 4, 10, 2, enqueue_many=True
        ),
        False,
    ),
    (
        "shuffle-batch-join",
        lambda: tf1.train.shuffle_batch_join(
            [_real_src(), _real_src(100, 1)], 6, 30, 10
        ),
        lambda: queues.shuffle_batch_join([_our_src(), _our_src(100, 1)], 6, 30, 10),
        False,
    ),
    (
        "maybe-batch",
        lambda: _real_maybe_batch(),
        lambda: queues.maybe_batch(_our_src(), _keep, 4),
        True,
    ),
    (
        "maybe-batch-enqueue-many",
        lambda: _real_maybe_many(),
        lambda: queues.maybe_batch(
            _rows(queues).map(lambda r: (r,)), _keep, 3, enqueue_many=True
        ),
        True,
    ),
    (
        "maybe-batch-join",
        lambda: _real_maybe_join(),
        lambda: queues.maybe_batch_join(
            [_our_src(), _our_src(100, 1)], tf.constant(True), 4
        ),
        False,
    ),
    (
        "maybe-shuffle-batch",
        lambda: _real_maybe_shuffle(),
        lambda: queues.maybe_shuffle_batch(_our_src(), 4, 20, 8, _keep, seed=2),
        False,
    ),
    (
        "maybe-shuffle-batch-join",
        lambda: _real_maybe_shuffle_join(),
        lambda: queues.maybe_shuffle_batch_join(
            [_our_src(), _our_src(100, 1)], 4, 20, 8, lambda x, y: tf.constant(True)
        ),
        False,
    ),
]


@pytest.mark.parametrize(
    "real,ours,ordered", [b[1:] for b in BATCHERS], ids=[b[0] for b in BATCHERS]
)
def test_batcher_matches_queue(files, real, ours, ordered):
    real_static, real_out = _run(lambda f: real(), files, queue_runners=True)
    our_static, our_out = _run(lambda f: queues.get_next(ours()), files, False)
    assert our_static == real_static
    assert _batch_sizes(our_out) == _batch_sizes(real_out)
    assert _examples(our_out, batched=True) == _examples(real_out, batched=True)
    if ordered:
        for ours_batch, real_batch in zip(our_out, real_out):
            for mine, theirs in zip(
                tf.nest.flatten(ours_batch), tf.nest.flatten(real_batch)
            ):
                np.testing.assert_array_equal(mine, theirs)


@pytest.mark.parametrize("batch_size", [5, 7], ids=["bs5", "bs7"])
def test_shuffle_batch_drops_remainder_like_queue(files, batch_size):
    """With a remainder, which examples drop is random: compare the counts."""
    real_static, real_out = _run(
        lambda f: tf1.train.shuffle_batch(_real_src(), batch_size, 20, 8), files, True
    )
    our_static, our_out = _run(
        lambda f: queues.get_next(queues.shuffle_batch(_our_src(), batch_size, 20, 8)),
        files,
        False,
    )
    assert our_static == real_static == [[batch_size], [batch_size]]
    assert _batch_sizes(our_out) == _batch_sizes(real_out)
    everything = _examples([_drain_all_examples()], batched=True)
    assert not _examples(our_out, batched=True) - everything


def _drain_all_examples():
    return (np.tile(_X, 2), np.tile(_X * 10, 2))
