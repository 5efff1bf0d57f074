"""Tests for emg.inputs.record_pipeline on generated TFRecord / fixed-length files."""

import gzip
import os

import numpy as np
import pytest
import tensorflow as tf

import estimator_multigpu as emg

pytestmark = pytest.mark.tf_compat

NUM_FILES, PER_FILE = 3, 40
NUM_EXAMPLES = NUM_FILES * PER_FILE
FEATURES = {
    "x": tf.io.FixedLenFeature([3], tf.float32),
    "id": tf.io.FixedLenFeature([], tf.int64),
}


def _example(k: int) -> bytes:
    feature = {
        "id": tf.train.Feature(int64_list=tf.train.Int64List(value=[k])),
        "x": tf.train.Feature(float_list=tf.train.FloatList(value=[k, 2 * k, 3 * k])),
    }
    return tf.train.Example(
        features=tf.train.Features(feature=feature)
    ).SerializeToString()


def write_records(directory, num_files=NUM_FILES, per_file=PER_FILE, gzip_files=False):
    """Writes example ids 0..num_files*per_file-1 into `num_files` files."""
    options = tf.io.TFRecordOptions(compression_type="GZIP" if gzip_files else "")
    for f in range(num_files):
        name = os.path.join(directory, f"part-{f:03d}.tfrecord")
        with tf.io.TFRecordWriter(name, options) as writer:
            for k in range(f * per_file, (f + 1) * per_file):
                writer.write(_example(k))
    return os.path.join(directory, "part-*.tfrecord")


@pytest.fixture(scope="module")
def pattern(tmp_path_factory):
    return write_records(str(tmp_path_factory.mktemp("records")))


PARSE = emg.inputs.example_parser(FEATURES, label_key="id")


def _ids(dataset):
    return [int(i) for _, ids in dataset.as_numpy_iterator() for i in ids]


def _epoch(files, **kwargs):
    kwargs = {"training": True, "num_epochs": 1, "drop_remainder": False, **kwargs}
    return emg.inputs.record_pipeline(files, PARSE, 16, **kwargs)


@pytest.mark.parametrize("num_shards", [1, 2, 3, 4, 5], ids=lambda n: f"{n}shards")
@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
def test_shards_cover_every_record_once_per_epoch(pattern, num_shards, training):
    ids = [
        _ids(
            _epoch(
                pattern, num_shards=num_shards, shard_index=i, seed=3, training=training
            )
        )
        for i in range(num_shards)
    ]
    assert sorted(sum(ids, [])) == list(range(NUM_EXAMPLES))


@pytest.mark.parametrize(
    "shard_by", ["file", "record", emg.inputs.ShardBy.FILE, emg.inputs.ShardBy.RECORD]
)
def test_explicit_shard_by_is_disjoint(pattern, shard_by):
    shards = [
        set(
            _ids(
                _epoch(
                    pattern,
                    num_shards=2,
                    shard_index=i,
                    reading=emg.inputs.RecordReading(shard_by=shard_by),
                )
            )
        )
        for i in range(2)
    ]
    assert not shards[0] & shards[1]
    assert len(shards[0] | shards[1]) == NUM_EXAMPLES
    by_file = {k // PER_FILE for k in shards[0]} & {k // PER_FILE for k in shards[1]}
    assert (shard_by == "file") == (not by_file)


def test_parse_is_batched_and_values_match(pattern):
    shapes = []

    def parse_fn(serialized):
        shapes.append(serialized.shape.as_list())
        return PARSE(serialized)

    dataset = emg.inputs.record_pipeline(pattern, parse_fn, 8, training=False)
    for features, ids in dataset.as_numpy_iterator():
        np.testing.assert_array_equal(features["x"], ids[:, None] * np.array([1, 2, 3]))
    assert shapes == [[None]]


def test_eval_is_ordered_and_complete_with_final_partial_batch(pattern):
    dataset = emg.inputs.record_pipeline(pattern, PARSE, 16, training=False)
    batches = [ids for _, ids in dataset.as_numpy_iterator()]
    assert [len(b) for b in batches] == [16] * 7 + [8]
    assert _ids(dataset) == _ids(dataset)


def test_training_defaults_repeat_shuffle_and_drop_remainder(pattern):
    dataset = emg.inputs.record_pipeline(pattern, PARSE, 16, seed=1)
    batches = [ids for _, ids in dataset.take(20).as_numpy_iterator()]
    assert all(len(b) == 16 for b in batches)
    first_epoch = np.concatenate(batches)[:NUM_EXAMPLES]
    assert not np.array_equal(first_epoch, np.sort(first_epoch))
    assert np.bincount(np.concatenate(batches)).max() >= 2


def test_seeded_deterministic_training_order_repeats(pattern):
    def order():
        return _ids(_epoch(pattern, seed=7, deterministic=True))

    assert order() == order()


@pytest.mark.parametrize("cache", ["memory", "file"])
def test_cache_keeps_epochs_complete(pattern, tmp_path, cache):
    cache_arg = "memory" if cache == "memory" else str(tmp_path / "cache")
    ids = _ids(_epoch(pattern, num_epochs=3, cache=cache_arg, seed=2, num_shards=2))
    ids += _ids(
        _epoch(
            pattern, num_epochs=3, cache=cache_arg, seed=2, num_shards=2, shard_index=1
        )
    )
    assert np.bincount(ids).tolist() == [3] * NUM_EXAMPLES
    if cache == "file":
        assert any(name.startswith("cache.shard1") for name in os.listdir(tmp_path))


def test_gzip_compressed_files(tmp_path):
    files = write_records(str(tmp_path), num_files=2, per_file=10, gzip_files=True)
    assert sorted(
        _ids(_epoch(files, reading=emg.inputs.RecordReading(compression_type="GZIP")))
    ) == list(range(20))


def test_fixed_length_records(tmp_path):
    records = np.arange(60, dtype=np.int32).reshape(30, 2)
    for f in range(3):
        with open(tmp_path / f"data_{f}.bin", "wb") as handle:
            handle.write(b"HEAD" + records[f * 10 : (f + 1) * 10].tobytes() + b"FT")
    parse = lambda serialized: tf.io.decode_raw(serialized, tf.int32)  # noqa: E731
    dataset = emg.inputs.record_pipeline(
        str(tmp_path / "data_*.bin"),
        parse,
        4,
        training=False,
        reading=emg.inputs.RecordReading(
            format=emg.inputs.FixedLengthRecords(8, header_bytes=4, footer_bytes=2)
        ),
    )
    np.testing.assert_array_equal(
        np.concatenate(list(dataset.as_numpy_iterator())), records
    )


def test_gzip_fixed_length_records(tmp_path):
    with gzip.open(tmp_path / "data.bin.gz", "wb") as handle:
        handle.write(np.arange(8, dtype=np.int32).tobytes())
    dataset = emg.inputs.record_pipeline(
        str(tmp_path / "data.bin.gz"),
        lambda s: tf.io.decode_raw(s, tf.int32),
        2,
        training=False,
        reading=emg.inputs.RecordReading(
            format=emg.inputs.FixedLengthRecords(8), compression_type="GZIP"
        ),
    )
    assert np.concatenate(list(dataset.as_numpy_iterator())).ravel().tolist() == list(
        range(8)
    )


def test_prefetch_to_device_is_the_last_step(pattern):
    dataset = emg.inputs.record_pipeline(
        pattern, PARSE, 8, training=False, device="/cpu:1"
    )
    features, ids = next(iter(dataset))
    assert emg.devices.same_device(ids.device, "/cpu:1")
    assert emg.devices.same_device(features["x"].device, "/cpu:1")


def test_cache_parsed_batches_for_evaluation(pattern):
    parsed_batches = []

    def parse_fn(serialized):
        count = tf.py_function(lambda: parsed_batches.append(1) or 0, [], tf.int32)
        with tf.control_dependencies([count]):
            return PARSE(tf.identity(serialized))

    dataset = emg.inputs.record_pipeline(
        pattern,
        parse_fn,
        16,
        training=False,
        num_epochs=2,
        cache=emg.inputs.RecordCache("memory", stage=emg.inputs.CacheStage.BATCHES),
    )
    batches = [ids.tolist() for _, ids in dataset.as_numpy_iterator()]
    assert batches[:8] == batches[8:] and len(batches) == 16
    assert sorted(sum(batches[:8], [])) == list(range(NUM_EXAMPLES))
    assert len(parsed_batches) == 8  # The second epoch reads the cache.
