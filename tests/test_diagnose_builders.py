"""The pipelines our own builders make pass the doctor; legacy-style ones do not."""

import os

import numpy as np
import pytest
import tensorflow as tf

import estimator_multigpu as emg
from cifar10 import generate
from cifar10 import input as cifar_input
from estimator_multigpu import diagnose
from estimator_multigpu.inputs import queues
from tests.conftest import ALL_DEVICES

pytestmark = pytest.mark.tf_compat

DEVICES = ALL_DEVICES[:2]
FEATURES = {"x": tf.io.FixedLenFeature([], tf.int64)}
PARSE = emg.inputs.example_parser(FEATURES, label_key="x")
RECORD_BYTES = 16


def _example(k: int) -> bytes:
    feature = {"x": tf.train.Feature(int64_list=tf.train.Int64List(value=[k]))}
    example = tf.train.Example(features=tf.train.Features(feature=feature))
    return example.SerializeToString()


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    """Three TFRecord files of 10 examples, and one file of 16-byte records."""
    folder = tmp_path_factory.mktemp("records")
    names = [str(folder / f"part-{f}.tfrecord") for f in range(3)]
    for f, name in enumerate(names):
        with tf.io.TFRecordWriter(name) as writer:
            for k in range(10):
                writer.write(_example(10 * f + k))
    fixed = folder / "fixed.bin"
    fixed.write_bytes(bytes(range(256)) * 4)
    return names, str(fixed)


@pytest.fixture(scope="module")
def cifar_dir(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("cifar"))
    generate.generate(folder, train_examples=30, test_examples=21, seed=4)
    return folder


def _problems(findings):
    """Findings above info, printed if any (the test shows why)."""
    bad = [f for f in findings if f.severity != diagnose.INFO]
    assert not bad, diagnose.format_findings(bad)
    return bad


def _pairs(ctx):
    """The user's part: examples only, so the findings are the builder's."""
    ids = np.arange(20)
    return tf.data.Dataset.from_tensor_slices((ids, 2 * ids))


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        dict(shuffle_buffer_size=8, seed=1, num_epochs=None),
        dict(shuffle_buffer_size=8, seed=1, remainder="uneven", global_batch_size=5),
        dict(num_epochs=2, drop_remainder=True),
    ],
    ids=["defaults", "shuffled-forever", "uneven", "epochs-drop"],
)
@pytest.mark.parametrize(
    "builder",
    [emg.inputs.sharded_input_fn, emg.inputs.multi_device_input_fn],
    ids=["sharded", "multi_device"],
)
def test_input_fn_builders_pass(builder, kwargs):
    kwargs = {"global_batch_size": 4, **kwargs}
    _problems(diagnose.check_input_fn(builder(_pairs, DEVICES, **kwargs)))


def test_sharded_input_fn_without_prefetch_to_device_still_prefetches():
    input_fn = emg.inputs.sharded_input_fn(
        _pairs, DEVICES, global_batch_size=4, prefetch_to_device=False
    )
    _problems(diagnose.check_input_fn(input_fn))


def test_sharded_input_fn_is_checked_per_device_pipeline():
    input_fn = emg.inputs.sharded_input_fn(
        lambda ctx: tf.data.Dataset.range(20).shuffle(20).map(lambda x: (x, x)),
        DEVICES,
        global_batch_size=4,
    )  # A dataset_fn that shuffles before the builder shards: a real bug.
    findings = diagnose.check_input_fn(input_fn)
    assert "shard-after-unseeded-shuffle" in {f.rule for f in findings}


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(training=True, seed=1),
        dict(training=False),
        dict(training=True, seed=1, cache="memory"),
        dict(training=False, cache=emg.inputs.RecordCache("memory", "batches")),
        dict(training=True, seed=1, device="/cpu:1"),
        dict(training=True, seed=1, num_shards=2, shard_index=1),
        dict(
            training=True,
            seed=1,
            num_shards=4,
            shard_index=3,
            reading=emg.inputs.RecordReading(shard_by="record"),
        ),
    ],
    ids=[
        "train",
        "eval",
        "cache",
        "eval-cache-batches",
        "to-device",
        "by-file",
        "by-record",
    ],
)
def test_record_pipeline_passes(records, kwargs):
    files, _ = records
    dataset = emg.inputs.record_pipeline(files, PARSE, 4, **kwargs)
    training, shards = kwargs["training"], kwargs.get("num_shards", 1)
    _problems(diagnose.check(dataset, training=training, num_input_pipelines=shards))


def test_fixed_length_record_pipeline_passes(records):
    _, fixed = records
    dataset = emg.inputs.record_pipeline(
        fixed,
        lambda r: tf.io.decode_raw(r, tf.uint8),
        4,
        seed=1,
        reading=emg.inputs.RecordReading(
            format=emg.inputs.FixedLengthRecords(RECORD_BYTES)
        ),
    )
    _problems(diagnose.check(dataset))


def test_record_dataset_fn_in_sharded_input_fn_passes(records):
    files, _ = records
    input_fn = emg.inputs.sharded_input_fn(
        emg.inputs.record_dataset_fn(files, PARSE),
        DEVICES,
        global_batch_size=4,
        seed=1,
        user_batches=True,
    )
    _problems(diagnose.check_input_fn(input_fn))


@pytest.mark.parametrize("split", ["train", "test"])
def test_cifar10_tf_data_input_passes(cifar_dir, split):
    input_fn = cifar_input.input_fn(cifar_dir, 4, split=split, devices=DEVICES, seed=1)
    mode = "train" if split == "train" else "eval"
    _problems(diagnose.check_input_fn(input_fn, mode=mode))


@pytest.mark.parametrize("shuffle", [True, False], ids=["shuffled", "ordered"])
def test_device_array_dataset_passes(shuffle):
    array = np.arange(200, dtype=np.float32)
    dataset = emg.inputs.device_array_dataset(
        array, range(0, 180, 3), 16, 4, seed=1, shuffle=shuffle, num_epochs=None
    )
    findings = diagnose.check(dataset, large_constant_bytes=256)
    _problems(findings)  # The array is a variable, never a graph constant.


def test_device_array_dataset_fn_in_sharded_input_fn_passes():
    dataset_fn = emg.inputs.device_array_dataset_fn(
        np.arange(200, dtype=np.float32), range(0, 180, 3), 16, seed=1
    )
    input_fn = emg.inputs.sharded_input_fn(
        dataset_fn, DEVICES, global_batch_size=8, user_batches=True
    )
    _problems(diagnose.check_input_fn(input_fn, large_constant_bytes=256))


@pytest.mark.parametrize(
    "kwargs",
    [{}, dict(shuffle_buffer_size=8, seed=1, num_epochs=None, drop_remainder=True)],
    ids=["defaults", "shuffled"],
)
def test_distribute_dataset_fns_pass(strategy, kwargs):
    options = emg.distribute.input_options(strategy, replication_mode="per_replica")
    dataset_fn = emg.distribute.per_replica_dataset_fn(
        _pairs, strategy, global_batch_size=4, options=options, **kwargs
    )
    for index in range(2):
        context = tf.distribute.InputContext(2, index, 2)
        _problems(diagnose.check(dataset_fn(context), num_input_pipelines=2))


def _legacy_tfrecord(files, **kwargs):
    """The queue chain migrated as is: parse_single_example per record."""

    def example_fn(key, value):
        return tf.io.parse_single_example(value, FEATURES)["x"]

    return queues.input_pipeline(
        files,
        queues.TFRecordReader(),
        example_fn,
        batch_size=4,
        capacity=40,
        min_after_dequeue=20,
        seed=1,
        **kwargs,
    )


def _legacy_fixed(path, **kwargs):
    """The CIFAR-style chain: decode_raw on every fixed-length record."""

    def example_fn(key, value):
        return tf.reshape(tf.io.decode_raw(value, tf.uint8), [RECORD_BYTES])

    return queues.input_pipeline(
        [path],
        queues.FixedLengthRecordReader(record_bytes=RECORD_BYTES),
        example_fn,
        batch_size=4,
        capacity=40,
        min_after_dequeue=20,
        seed=1,
        **kwargs,
    )


@pytest.mark.parametrize(
    "parallel", [None, tf.data.AUTOTUNE], ids=["sequential", "parallel"]
)
def test_legacy_parse_per_example_is_reported(records, parallel):
    files, _ = records
    dataset = _legacy_tfrecord(files, num_parallel_calls=parallel)
    rules = {f.rule for f in diagnose.check(dataset)}
    assert "per-example-parse" in rules
    assert ("sequential-map" in rules) == (parallel is None)


def test_legacy_decode_raw_per_record_is_reported(records):
    _, fixed = records
    rules = {f.rule for f in diagnose.check(_legacy_fixed(fixed))}
    assert {"per-record-decode-raw", "sequential-map"} <= rules


@pytest.mark.parametrize("num_readers", [1, 2], ids=["flat_map", "interleave"])
def test_legacy_single_reader_is_reported(records, num_readers):
    files, _ = records
    dataset = _legacy_tfrecord(files, num_readers=num_readers)
    rules = {f.rule for f in diagnose.check(dataset)}
    assert ("sequential-interleave" in rules) == (num_readers == 1)


def test_queue_input_fn_cannot_be_checked(records):
    files, _ = records

    def input_fn():
        queue = tf.compat.v1.train.string_input_producer(files)
        _, value = tf.compat.v1.TFRecordReader().read(queue)
        return tf.io.parse_single_example(value, FEATURES), None

    with pytest.raises(ValueError, match=r"no tf.data iterator produces.*migrate"):
        diagnose.check_input_fn(input_fn)


def test_files_exist_for_the_fixtures(records):
    files, fixed = records
    assert all(os.path.exists(f) for f in [*files, fixed])
