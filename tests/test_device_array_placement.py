"""device_array_dataset_fn in sharded_input_fn and in tf.distribute: placement, epochs."""

import ctypes
import re

import numpy as np
import pytest
import tensorflow as tf
from conftest import ALL_DEVICES

import estimator_multigpu as emg

pytestmark = pytest.mark.tf_compat

LENGTH, FRAGMENT = 500, 6
ARRAY = np.arange(LENGTH, dtype=np.int64) * 10
INDICES = np.arange(0, LENGTH - FRAGMENT + 1, 4)


def _pairs(fragments, starts):
    return fragments, starts


def _graph_epoch(device_list, shuffle, log_placement=False):
    """One epoch through sharded_input_fn; returns (fragments, starts) per device."""
    dataset_fn = emg.inputs.device_array_dataset_fn(
        ARRAY, INDICES, FRAGMENT, shuffle=shuffle, element_fn=_pairs
    )
    input_fn = emg.inputs.sharded_input_fn(
        dataset_fn, device_list, global_batch_size=8, seed=4, user_batches=True
    )
    config = tf.compat.v1.ConfigProto(
        log_device_placement=log_placement, device_count={"CPU": len(ALL_DEVICES)}
    )
    shards = {d: ([], []) for d in device_list}
    with tf.Graph().as_default(), tf.compat.v1.Session(config=config) as sess:
        features, labels = input_fn()
        sess.run(tf.compat.v1.tables_initializer())
        with pytest.raises(tf.errors.OutOfRangeError):
            for _ in range(1000):
                step = sess.run((features.values, labels.values))
                for device, fragments, starts in zip(device_list, *step):
                    shards[device][0].append(fragments)
                    shards[device][1].append(starts)
    ctypes.CDLL(None).fflush(None)  # The placer logs with printf.
    return {d: (np.concatenate(f), np.concatenate(s)) for d, (f, s) in shards.items()}


@pytest.mark.parametrize("shuffle", [False, True], ids=["ordered", "shuffled"])
def test_sharded_input_fn_epoch_is_the_index_list_once(device_list, shuffle):
    shards = _graph_epoch(device_list, shuffle)
    starts = np.concatenate([s for _, s in shards.values()])
    assert sorted(starts.tolist()) == INDICES.tolist()
    for fragments, shard_starts in shards.values():
        np.testing.assert_array_equal(
            fragments, ARRAY[shard_starts[:, None] + np.arange(FRAGMENT)]
        )


def _placements(log: str, op_type: str) -> dict[str, str]:
    """`{node name: device}` of the placer's log lines for one op type."""
    pattern = rf"^(\S+): \({op_type}\): \S*/device:(\w+:\d+)$"
    return dict(re.findall(pattern, log, flags=re.MULTILINE))


def test_each_shard_gathers_on_its_own_device(capfd):
    device_list = emg.devices.resolve(num_gpus=4)
    _graph_epoch(device_list, shuffle=True, log_placement=True)
    placed = _placements(capfd.readouterr().out, "ResourceGather")
    for device in device_list:
        tag = device.replace("/", "").replace(":", "_")
        assert placed[f"gather_fragments_{tag}"] == device[1:].upper()


def test_graph_holds_no_copy_and_variables_are_local_only():
    with tf.Graph().as_default() as graph:
        dataset = emg.inputs.device_array_dataset(
            ARRAY, INDICES, FRAGMENT, 4, device="/cpu:2"
        )
        tf.compat.v1.data.make_initializable_iterator(dataset)
        assert tf.compat.v1.global_variables() == []
        assert tf.compat.v1.local_variables() == []
        consts = [op for op in graph.get_operations() if op.type == "Const"]
        assert max(op.outputs[0].shape.num_elements() for op in consts) < 10


def _distribute(device_list, global_batch_size=8, seed=6):
    strategy = tf.distribute.MirroredStrategy(device_list)
    dataset_fn = emg.inputs.device_array_dataset_fn(
        ARRAY,
        INDICES,
        FRAGMENT,
        global_batch_size=global_batch_size,
        seed=seed,
        element_fn=_pairs,
    )
    options = tf.distribute.InputOptions(
        experimental_place_dataset_on_device=True,
        experimental_fetch_to_device=False,
        experimental_replication_mode=tf.distribute.InputReplicationMode.PER_REPLICA,
    )
    with strategy.scope():
        return strategy, strategy.distribute_datasets_from_function(dataset_fn, options)


def test_distribute_replicas_cover_the_index_list_once_on_their_devices():
    device_list = emg.devices.resolve(num_gpus=2)
    strategy, dataset = _distribute(device_list)
    starts_per_replica = {d: [] for d in device_list}
    for fragments, starts in dataset:
        parts = zip(
            strategy.experimental_local_results(fragments),
            strategy.experimental_local_results(starts),
        )
        for device, (replica_fragments, replica_starts) in zip(device_list, parts):
            assert emg.devices.same_device(replica_fragments.device, device)
            expected = ARRAY[replica_starts.numpy()[:, None] + np.arange(FRAGMENT)]
            np.testing.assert_array_equal(replica_fragments.numpy(), expected)
            starts_per_replica[device].extend(replica_starts.numpy().tolist())
    union = sum(starts_per_replica.values(), [])
    assert sorted(union) == INDICES.tolist()
    assert all(starts_per_replica.values())


def test_distribute_custom_loop_runs_on_each_replica():
    strategy, dataset = _distribute(emg.devices.resolve(num_gpus=2))

    @tf.function
    def step(fragments, starts):
        return tf.reduce_sum(fragments[:, 0] - 10 * starts)

    totals = [
        strategy.reduce("SUM", strategy.run(step, args=batch), axis=None)
        for batch in dataset
    ]
    assert len(totals) == int(np.ceil(len(INDICES) / 8)) and not any(totals)


def test_distribute_per_replica_batch_is_global_over_replicas():
    strategy, dataset = _distribute(
        emg.devices.resolve(num_gpus=2), global_batch_size=6
    )
    fragments, _ = next(iter(dataset))
    shapes = [f.shape.as_list() for f in strategy.experimental_local_results(fragments)]
    assert shapes == [[3, FRAGMENT], [3, FRAGMENT]]


def test_through_emg_distribute_per_replica_dataset_fn():
    device_list = emg.devices.resolve(num_gpus=2)
    strategy = tf.distribute.MirroredStrategy(device_list)
    options = emg.distribute.input_options(
        strategy, replication_mode="per_replica", place_dataset_on_device=True
    )
    dataset_fn = emg.distribute.per_replica_dataset_fn(
        emg.inputs.device_array_dataset_fn(ARRAY, INDICES, FRAGMENT, element_fn=_pairs),
        strategy,
        global_batch_size=8,
        options=options,
        seed=3,
        user_batches=True,
    )
    dataset = strategy.distribute_datasets_from_function(dataset_fn, options)
    union = []
    for fragments, starts in dataset:
        for device, local in zip(
            device_list, strategy.experimental_local_results(fragments)
        ):
            assert emg.devices.same_device(local.device, device)
        union += [
            s
            for local in strategy.experimental_local_results(starts)
            for s in local.numpy()
        ]
    assert sorted(union) == INDICES.tolist()
