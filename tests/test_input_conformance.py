"""One set of input properties, checked against every multi-device source.

Each source is an adapter in `SOURCES`: given devices, a seed, a global
batch size and a number of epochs, it returns the examples every device got,
step by step (`steps[s][d]` = example ids of device d at step s). The
properties hold for all of them, at 1, 2, 3 and 4 devices, for one and two
epochs, with a final global batch that does not divide by the device count:

- every example is seen exactly once per epoch;
- the seed alone decides the order (same seed: same steps; another: others;
  at 2 and 3 devices, as it takes two more builds per case);
- the shards are disjoint (within an epoch, no example reaches two devices);
- no device gets more than its per-device batch; the short final batch is
  kept and split, not dropped.

`distribute_dataset_fn` (which calls `per_replica_dataset_fn`) runs with
one input pipeline per worker and with one per replica, where each pipeline
takes its own shard. The queue equivalents (`emg.inputs.queues`) produce one
global batch with a single reader thread (the fixed-order case of their
docs) and are split across devices the way `replicate_model_fn` splits such
an input.
"""

import atexit
import collections
import functools
import shutil
import tempfile

import numpy as np
import pytest
import tensorflow as tf
from conftest import ALL_DEVICES

import estimator_multigpu as emg
from estimator_multigpu.inputs import queues
from estimator_multigpu.towers import _split as split_lib

pytestmark = pytest.mark.tf_compat

NUM_EXAMPLES = 23  # Prime: the last global batch never divides.
SHUFFLE = 8
DEVICE_COUNTS = [1, 2, 3, 4]
EPOCHS = [1, 2]


def _global_batch(num_devices: int) -> int:
    return 2 * num_devices


def _range_pairs(ctx):
    del ctx
    ids = tf.data.Dataset.range(NUM_EXAMPLES)
    return ids.map(lambda i: (i, i))


def _drain(fetch) -> list:
    """Runs `fetch` (per-device id tensors) until the input ends."""
    steps = []
    with tf.compat.v1.Session() as sess:
        sess.run(tf.compat.v1.tables_initializer())
        while True:
            try:
                values = sess.run(fetch)
            except tf.errors.OutOfRangeError:
                return steps
            steps.append([np.asarray(v).reshape(-1).tolist() for v in values])


def _estimator_input(builder, devices, seed, dataset_fn=None, **kwargs):
    """Steps of an Estimator-contract input_fn of `emg.inputs`."""
    with tf.Graph().as_default():
        input_fn = builder(
            dataset_fn or _range_pairs,
            devices,
            global_batch_size=_global_batch(len(devices)),
            remainder="uneven",
            seed=seed,
            **kwargs,
        )
        features, _ = input_fn()
        return _drain(list(features.values))


def _sharded(devices, seed, num_epochs):
    return _estimator_input(
        emg.inputs.sharded_input_fn,
        devices,
        seed,
        shuffle_buffer_size=SHUFFLE,
        num_epochs=num_epochs,
    )


def _multi_device(devices, seed, num_epochs):
    return _estimator_input(
        emg.inputs.multi_device_input_fn,
        devices,
        seed,
        shuffle_buffer_size=SHUFFLE,
        num_epochs=num_epochs,
    )


def _device_array(devices, seed, num_epochs):
    dataset_fn = emg.inputs.device_array_dataset_fn(
        np.arange(NUM_EXAMPLES), range(NUM_EXAMPLES), 1, num_epochs=num_epochs
    )
    return _estimator_input(
        emg.inputs.sharded_input_fn,
        devices,
        seed,
        dataset_fn=dataset_fn,
        user_batches=True,
    )


@functools.lru_cache(maxsize=1)
def _record_files() -> tuple[str, ...]:
    """Five TFRecord files of uneven sizes holding ids 0..22 (a temporary
    folder, removed when the tests end)."""
    root = tempfile.mkdtemp(prefix="conformance_records_")
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    bounds = [0, 3, 8, 12, 19, NUM_EXAMPLES]
    names = []
    for f, (start, stop) in enumerate(zip(bounds, bounds[1:])):
        name = f"{root}/part-{f}.tfrecord"
        with tf.io.TFRecordWriter(name) as writer:
            for i in range(start, stop):
                feature = tf.train.Feature(int64_list=tf.train.Int64List(value=[i]))
                example = tf.train.Example(
                    features=tf.train.Features(feature={"id": feature})
                )
                writer.write(example.SerializeToString())
        names.append(name)
    return tuple(names)


def _records(devices, seed, num_epochs):
    parse_fn = emg.inputs.example_parser(
        {"id": tf.io.FixedLenFeature([], tf.int64)}, label_key="id"
    )
    dataset_fn = emg.inputs.record_dataset_fn(
        list(_record_files()),
        parse_fn,
        training=True,
        num_epochs=num_epochs,
        shuffle_buffer_size=SHUFFLE,
        deterministic=True,
        drop_remainder=False,
    )

    def ids(ctx):
        return dataset_fn(ctx).map(lambda features, label: (label, label))

    return _estimator_input(
        emg.inputs.sharded_input_fn,
        devices,
        seed,
        dataset_fn=ids,
        user_batches=True,
    )


def _distribute(devices, seed, num_epochs, replication_mode=None):
    """One pipeline per worker (TF's default), or one per replica: then each
    pipeline takes its shard (`num_shards` = the replica count)."""
    strategy = tf.distribute.MirroredStrategy(
        devices, cross_device_ops=tf.distribute.ReductionToOneDevice()
    )
    options = None
    if replication_mode:
        options = emg.distribute.input_options(
            strategy, replication_mode=replication_mode
        )
    dataset = emg.distribute.distribute_dataset_fn(
        lambda ctx: tf.data.Dataset.range(NUM_EXAMPLES),
        strategy,
        global_batch_size=_global_batch(len(devices)),
        options=options,
        shuffle_buffer_size=SHUFFLE,
        seed=seed,
        num_epochs=num_epochs,
    )
    return [
        [t.numpy().tolist() for t in strategy.experimental_local_results(batch)]
        for batch in dataset
    ]


def _queue(devices, seed, num_epochs):
    """A TF1-style queue chain, split across devices like replicate_model_fn."""
    with tf.Graph().as_default():
        examples = queues.slice_input_producer(
            [tf.range(NUM_EXAMPLES)], num_epochs=num_epochs, shuffle=True, seed=seed
        )
        batches = queues.shuffle_batch(
            examples,
            batch_size=_global_batch(len(devices)),
            capacity=SHUFFLE + 3 * _global_batch(len(devices)),
            min_after_dequeue=SHUFFLE,
            num_threads=1,
            seed=seed,
            allow_smaller_final_batch=True,
        )
        ids = tf.nest.flatten(queues.get_next(batches))[0]
        shards, _, _ = split_lib.split(ids, None, len(devices), "uneven")
        return _drain(shards)


SOURCES = {
    "sharded_input_fn": _sharded,
    "multi_device_input_fn": _multi_device,
    "distribute_dataset_fn": _distribute,
    "distribute_per_replica": functools.partial(
        _distribute, replication_mode="per_replica"
    ),
    "record_dataset_fn": _records,
    "device_array_dataset_fn": _device_array,
    "queues": _queue,
}


@functools.cache
def _run(source: str, num_devices: int, seed: int, num_epochs: int) -> tuple:
    steps = SOURCES[source](ALL_DEVICES[:num_devices], seed, num_epochs)
    return tuple(tuple(tuple(ids) for ids in step) for step in steps)


def _ids(run) -> list[int]:
    return [i for step in run for ids in step for i in ids]


source_param = pytest.mark.parametrize("source", list(SOURCES), ids=list(SOURCES))
devices_param = pytest.mark.parametrize(
    "num_devices", DEVICE_COUNTS, ids=[f"{n}dev" for n in DEVICE_COUNTS]
)


@source_param
@devices_param
@pytest.mark.parametrize("num_epochs", EPOCHS, ids=["finite", "repeated"])
def test_every_example_exactly_once_per_epoch(source, num_devices, num_epochs):
    counts = collections.Counter(_ids(_run(source, num_devices, 1, num_epochs)))
    assert counts == {i: num_epochs for i in range(NUM_EXAMPLES)}


@source_param
@pytest.mark.parametrize("num_devices", [2, 3], ids=["2dev", "3dev"])
def test_seed_alone_decides_the_order(source, num_devices):
    """Two fresh builds per case, so only an even and an odd device count."""
    first = _run(source, num_devices, 1, 1)
    again = SOURCES[source](ALL_DEVICES[:num_devices], 1, 1)
    other = SOURCES[source](ALL_DEVICES[:num_devices], 2, 1)
    assert [list(map(list, step)) for step in first] == again
    assert _ids(first) != _ids(other)


@source_param
@devices_param
def test_shards_are_disjoint(source, num_devices):
    run = _run(source, num_devices, 1, 1)
    seen = [set() for _ in range(num_devices)]
    for step in run:
        assert len(step) == num_devices
        for device, ids in enumerate(step):
            seen[device].update(ids)
    for a in range(num_devices):
        for b in range(a + 1, num_devices):
            assert not seen[a] & seen[b], (a, b)


@source_param
@devices_param
def test_uneven_last_batch_is_kept_and_split(source, num_devices):
    run = _run(source, num_devices, 1, 1)
    largest = max(len(ids) for step in run for ids in step)
    assert largest <= 2  # The per-device batch: global batch / device count.
    totals = [sum(len(ids) for ids in step) for step in run]
    assert min(totals) < _global_batch(num_devices)
    assert sum(totals) == NUM_EXAMPLES
