"""record_dataset_fn in sharded_input_fn and tf.distribute; record_pipeline errors."""

import numpy as np
import pytest
import tensorflow as tf
from test_records import FEATURES, NUM_EXAMPLES, PARSE, write_records

import estimator_multigpu as emg

pytestmark = pytest.mark.tf_compat


@pytest.fixture(scope="module")
def pattern(tmp_path_factory):
    return write_records(str(tmp_path_factory.mktemp("records")))


def _graph_epoch(input_fn):
    ids = []
    with tf.Graph().as_default(), tf.compat.v1.Session() as sess:
        features, labels = input_fn(mode="eval")
        sess.run(tf.compat.v1.tables_initializer())
        with pytest.raises(tf.errors.OutOfRangeError):
            for _ in range(1000):
                step = sess.run((features.values, labels.values, features.counts))
                ids.extend(int(i) for shard in step[1] for i in shard)
                for shard_features, shard_ids, count in zip(*step):
                    assert len(shard_ids) == count
                    np.testing.assert_array_equal(shard_features["x"][:, 0], shard_ids)
    return ids


def test_sharded_input_fn_eval_epoch_is_every_record_once(pattern, device_list):
    dataset_fn = emg.inputs.record_dataset_fn(pattern, PARSE)
    input_fn = emg.inputs.sharded_input_fn(
        dataset_fn, device_list, global_batch_size=8, seed=1, user_batches=True
    )
    assert sorted(_graph_epoch(input_fn)) == list(range(NUM_EXAMPLES))


def _distributed(pattern, **kwargs):
    device_list = emg.devices.resolve(num_gpus=2)
    strategy = tf.distribute.MirroredStrategy(device_list)
    dataset_fn = emg.inputs.record_dataset_fn(
        pattern, PARSE, global_batch_size=8, **kwargs
    )
    options = tf.distribute.InputOptions(
        experimental_place_dataset_on_device=True,
        experimental_fetch_to_device=False,
        experimental_replication_mode=tf.distribute.InputReplicationMode.PER_REPLICA,
    )
    return strategy, strategy.distribute_datasets_from_function(dataset_fn, options)


def test_distribute_replicas_cover_every_record_once(pattern):
    strategy, dataset = _distributed(
        pattern, seed=2, num_epochs=1, drop_remainder=False
    )
    per_replica = [[], []]
    for _, ids in dataset:
        for replica, local in enumerate(strategy.experimental_local_results(ids)):
            assert local.shape[0] <= 4
            per_replica[replica].extend(local.numpy().tolist())
    assert sorted(sum(per_replica, [])) == list(range(NUM_EXAMPLES))
    assert all(per_replica)


def test_distribute_training_repeats_with_per_replica_batches(pattern):
    strategy, dataset = _distributed(pattern, seed=2)
    iterator = iter(dataset)
    for _ in range(NUM_EXAMPLES // 8 + 3):
        _, ids = next(iterator)
    shapes = [
        local.shape.as_list() for local in strategy.experimental_local_results(ids)
    ]
    assert shapes == [[4], [4]]


def test_dataset_fn_errors(pattern):
    with pytest.raises(ValueError, match="does not take `device`"):
        emg.inputs.record_dataset_fn(pattern, PARSE, device="/cpu:0")
    dataset_fn = emg.inputs.record_dataset_fn(pattern, PARSE)
    with pytest.raises(ValueError, match="`global_batch_size` is None"):
        dataset_fn(tf.distribute.InputContext(1, 0, 1))


@pytest.mark.parametrize(
    "options, match",
    [
        (
            {"shuffle_bufer_size": 8},
            r"^record_dataset_fn got an unknown option 'shuffle_bufer_size'; did "
            r"you mean 'shuffle_buffer_size'\? It passes on .*'num_epochs'",
        ),
        (
            {"num_shards": 2},
            r"^record_dataset_fn sets 'num_shards' itself, from the input "
            r"context.*; leave it out",
        ),
    ],
    ids=["misspelt", "set_from_the_context"],
)
def test_dataset_fn_options_are_checked_when_it_is_built(pattern, options, match):
    with pytest.raises(TypeError, match=match):
        emg.inputs.record_dataset_fn(pattern, PARSE, **options)


@pytest.mark.parametrize(
    "features, label_key, error, match",
    [
        ({}, None, TypeError, "non-empty dict"),
        (
            FEATURES,
            "y",
            ValueError,
            r"`label_key` 'y' is not in `features` \['id', 'x'\]",
        ),
    ],
    ids=["empty", "missing_label"],
)
def test_example_parser_errors(features, label_key, error, match):
    with pytest.raises(error, match=match):
        emg.inputs.example_parser(features, label_key)


BAD = {
    "no_match": (
        dict(files="/nonexistent/x-*.tfrecord"),
        ValueError,
        "matched no file",
    ),
    "files_type": (dict(files=3), TypeError, "`files` must be a file name"),
    "parse_fn": (dict(parse_fn="parse"), TypeError, "`parse_fn` must be a callable"),
    "batch_size": (
        dict(per_device_batch_size=0),
        ValueError,
        "`per_device_batch_size` must be an int >= 1",
    ),
    "shard_index": (
        dict(num_shards=2, shard_index=2),
        ValueError,
        r"`shard_index` \(2\)",
    ),
    "num_epochs": (dict(num_epochs=0), ValueError, "`num_epochs` must be an int >= 1"),
    "buffer": (dict(shuffle_buffer_size=-1), ValueError, "`shuffle_buffer_size` must"),
    "cycle": (
        dict(reading=lambda: emg.inputs.RecordReading(cycle_length=0)),
        ValueError,
        "`cycle_length` must be an int >= 1",
    ),
    "compression": (
        dict(reading=lambda: emg.inputs.RecordReading(compression_type="zip")),
        ValueError,
        "RecordReading `compression_type` must",
    ),
    "cache": (dict(cache=True), TypeError, "`cache` must be None, 'memory', a path"),
    "reading": (dict(reading="file"), TypeError, "`reading` must be None or"),
    "shard_by": (
        dict(reading=lambda: emg.inputs.RecordReading(shard_by="row")),
        ValueError,
        "`shard_by` must be one of 'auto', 'file', 'record'",
    ),
    "cache_stage": (
        dict(cache=lambda: emg.inputs.RecordCache("memory", stage="parsed")),
        ValueError,
        "`stage` must be one of 'records', 'batches'",
    ),
    "cache_location": (
        dict(cache=lambda: emg.inputs.RecordCache("")),
        TypeError,
        "RecordCache `location` must be 'memory' or a file path prefix",
    ),
    "cache_batches_shuffled": (
        dict(cache=lambda: emg.inputs.RecordCache("memory", "batches")),
        ValueError,
        "cache stage 'batches' caches parsed batches, which would freeze",
    ),
    "few_files": (
        dict(reading=lambda: emg.inputs.RecordReading(shard_by="file"), num_shards=4),
        ValueError,
        r"3 file\(s\) for 4 shards; pass reading=emg.inputs.RecordReading",
    ),
    "format": (
        dict(reading=lambda: emg.inputs.RecordReading(format="csv")),
        ValueError,
        "RecordReading `format` must be 'tfrecord'",
    ),
    "moved_keyword": (
        dict(shard_by="file", cache_stage="batches"),
        TypeError,
        r"no longer takes 'cache_stage', 'shard_by': `cache_stage=` -> "
        r"cache=emg.inputs.RecordCache\(location, stage=...\); `shard_by=` -> "
        r"reading=emg.inputs.RecordReading\(shard_by=...\)",
    ),
}


@pytest.mark.parametrize("case", BAD.values(), ids=BAD.keys())
def test_bad_arguments_are_rejected_up_front(pattern, case):
    overrides, error, match = case
    kwargs = {
        "files": pattern,
        "parse_fn": PARSE,
        "per_device_batch_size": 4,
        **overrides,
    }
    with pytest.raises(error, match=match):  # option objects fail when built
        kwargs = {
            k: v() if callable(v) and k != "parse_fn" else v for k, v in kwargs.items()
        }
        emg.inputs.record_pipeline(**kwargs)


def test_fixed_length_records_validates_sizes():
    with pytest.raises(
        ValueError, match="`header_bytes` must be an int >= 0; received -1"
    ):
        emg.inputs.FixedLengthRecords(4, header_bytes=-1)


def test_through_emg_distribute_per_replica_dataset_fn(pattern):
    strategy = tf.distribute.MirroredStrategy(emg.devices.resolve(num_gpus=2))
    dataset_fn = emg.distribute.per_replica_dataset_fn(
        emg.inputs.record_dataset_fn(pattern, PARSE, training=False),
        strategy,
        global_batch_size=8,
        seed=3,
        options=emg.distribute.input_options(strategy, replication_mode="per_replica"),
        user_batches=True,
    )
    options = emg.distribute.input_options(strategy, replication_mode="per_replica")
    dataset = strategy.distribute_datasets_from_function(dataset_fn, options)
    ids = [
        i
        for _, batch in dataset
        for local in strategy.experimental_local_results(batch)
        for i in local.numpy()
    ]
    assert sorted(ids) == list(range(NUM_EXAMPLES))


def test_record_dataset_fn_refuses_a_moved_keyword_up_front(pattern):
    with pytest.raises(TypeError, match=r"`block_length=` -> reading=emg.inputs"):
        emg.inputs.record_dataset_fn(pattern, PARSE, block_length=2)


def test_option_objects_take_the_earlier_strings_and_give_enums():
    reading = emg.inputs.RecordReading(shard_by="record")
    cache = emg.inputs.RecordCache("memory", stage="batches")
    assert reading.shard_by is emg.inputs.ShardBy.RECORD
    assert cache.stage is emg.inputs.CacheStage.BATCHES
    assert reading.shard_by == "record"  # the enum is also its string value


def test_options_in_record_dataset_fn_reach_the_pipeline(pattern):
    dataset_fn = emg.inputs.record_dataset_fn(
        pattern,
        PARSE,
        training=False,
        reading=emg.inputs.RecordReading(shard_by="record", cycle_length=1),
    )
    context = emg.inputs.InputContext(
        num_shards=2,
        shard_index=1,
        device="/cpu:0",
        per_device_batch_size=4,
        global_batch_size=8,
        num_devices=2,
    )
    ids = [
        int(i) for _, batch in dataset_fn(context).as_numpy_iterator() for i in batch
    ]
    assert ids == sorted(ids) and ids  # by record, in file order: deterministic
