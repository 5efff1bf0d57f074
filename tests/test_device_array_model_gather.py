"""gather_in_dataset=False: the dataset yields starts, the model gathers on its device."""

import ctypes
import re

import numpy as np
import pytest
import tensorflow as tf
from conftest import ALL_DEVICES

import estimator_multigpu as emg

pytestmark = pytest.mark.tf_compat

LENGTH, FRAGMENT = 300, 5
ARRAY = np.arange(LENGTH, dtype=np.float32) * 2
INDICES = np.arange(0, LENGTH - FRAGMENT + 1, 3)


def _epoch_in_graph(device_list):
    """One epoch of starts through sharded_input_fn, gathered per device."""
    resident = emg.inputs.DeviceArray(ARRAY)
    dataset_fn = emg.inputs.device_array_dataset_fn(
        resident, INDICES, FRAGMENT, gather_in_dataset=False
    )
    input_fn = emg.inputs.sharded_input_fn(
        dataset_fn, device_list, global_batch_size=8, seed=1, user_batches=True
    )
    config = tf.compat.v1.ConfigProto(
        log_device_placement=True, device_count={"CPU": len(ALL_DEVICES)}
    )
    starts, fragments = [], []
    with tf.Graph().as_default(), tf.compat.v1.Session(config=config) as sess:
        features, _ = input_fn()
        gathered = features.map(lambda s: resident.gather_fragments(s, FRAGMENT))
        sess.run(tf.compat.v1.tables_initializer())
        with pytest.raises(tf.errors.OutOfRangeError):
            for _ in range(1000):
                step = sess.run((features.values, gathered.values))
                starts += list(step[0])
                fragments += list(step[1])
    ctypes.CDLL(None).fflush(None)  # The placer logs with printf.
    return np.concatenate(starts), np.concatenate(fragments)


def test_graph_model_gathers_each_shard_on_its_device(device_list, capfd):
    starts, fragments = _epoch_in_graph(device_list)
    assert sorted(starts.tolist()) == INDICES.tolist()
    np.testing.assert_array_equal(
        fragments, ARRAY[starts[:, None] + np.arange(FRAGMENT)]
    )
    log = capfd.readouterr().out
    placed = dict(
        re.findall(
            r"^(gather_fragments_\w+): \(ResourceGather\): \S*/device:(\w+:\d+)$",
            log,
            re.M,
        )
    )
    assert placed == {
        f"gather_fragments_cpu_{d[-1]}": f"CPU:{d[-1]}" for d in device_list
    }


def test_distribute_step_gathers_on_each_replica():
    device_list = emg.devices.resolve(num_gpus=2)
    strategy = tf.distribute.MirroredStrategy(device_list)
    resident = emg.inputs.DeviceArray(ARRAY)
    dataset_fn = emg.inputs.device_array_dataset_fn(
        resident,
        INDICES,
        FRAGMENT,
        global_batch_size=8,
        seed=2,
        gather_in_dataset=False,
    )
    dataset = strategy.distribute_datasets_from_function(dataset_fn)

    def replica_step(starts):
        return starts, resident.gather_fragments(starts, FRAGMENT)

    @tf.function
    def step(batch):
        return strategy.run(replica_step, args=(batch,))

    union = []
    for batch in dataset:
        starts, fragments = step(batch)
        pairs = zip(
            strategy.experimental_local_results(starts),
            strategy.experimental_local_results(fragments),
        )
        for local_starts, local_fragments in pairs:
            expected = ARRAY[local_starts.numpy()[:, None] + np.arange(FRAGMENT)]
            np.testing.assert_array_equal(local_fragments.numpy(), expected)
            union += local_starts.numpy().tolist()
    assert sorted(union) == INDICES.tolist()
    graph = step.get_concrete_function(batch).graph
    gathers = [
        op.device for op in graph.get_operations() if op.type == "ResourceGather"
    ]
    assert len(gathers) == len(device_list)
    for gather_device, device in zip(sorted(gathers), device_list):
        assert emg.devices.same_device(gather_device, device)


def test_element_fn_needs_the_gather_in_the_dataset():
    with pytest.raises(
        ValueError, match="gather_in_dataset=False yields only the starts"
    ):
        emg.inputs.device_array_dataset(
            ARRAY,
            INDICES,
            FRAGMENT,
            4,
            gather_in_dataset=False,
            element_fn=lambda f, s: f,
        )


def test_gather_in_dataset_must_be_a_bool():
    with pytest.raises(
        TypeError, match="`gather_in_dataset` must be True or False; received 'no'"
    ):
        emg.inputs.device_array_dataset(
            ARRAY, INDICES, FRAGMENT, 4, gather_in_dataset="no"
        )
