"""The one home of the batching and sharding rules: `estimator_multigpu._sharding`."""

import inspect

import pytest
import tensorflow as tf

import estimator_multigpu as emg
from estimator_multigpu import _sharding

pytestmark = pytest.mark.tf_compat


@pytest.mark.parametrize(
    "batch, num, remainder, expected",
    [
        (10, 4, "uneven", [3, 3, 2, 2]),
        (10, 4, "drop", [2, 2, 2, 2]),
        (8, 4, "error", [2, 2, 2, 2]),
        (3, 4, "uneven", [1, 1, 1, 0]),
    ],
    ids=["uneven", "drop", "error", "fewer_than_devices"],
)
def test_split_sizes_static_and_dynamic(batch, num, remainder, expected):
    assert _sharding.split_sizes(batch, num, remainder) == expected
    dynamic = _sharding.split_sizes(tf.constant(batch), num, remainder)
    assert [int(size) for size in dynamic] == expected


@pytest.mark.parametrize(
    "function",
    [
        emg.inputs.sharded_input_fn,
        emg.inputs.multi_device_input_fn,
        emg.replicate_model_fn,
        emg.towers.minimize,
    ],
    ids=["sharded_input_fn", "multi_device_input_fn", "replicate_model_fn", "minimize"],
)
def test_one_remainder_default_everywhere(function):
    # A final batch that does not divide is split unevenly, never a crash.
    assert inspect.signature(function).parameters["remainder"].default == "uneven"


def test_replicate_model_fn_accepts_every_remainder():
    for remainder in _sharding.REMAINDERS:
        assert _sharding.check_remainder(remainder) == remainder


def test_distribute_shard_checks_the_global_batch_where_it_is_chosen():
    context = tf.distribute.InputContext(2, 1, 4)
    shard = _sharding.distribute_shard(context, 8, 3, "record_dataset_fn")
    assert shard == _sharding.Shard(
        num_shards=2, shard_index=1, per_device_batch_size=2, seed=3
    )
    with pytest.raises(
        ValueError,
        match=r"`global_batch_size` \(9\) must be divisible by "
        r"`num_replicas_in_sync` \(4\).*Pass 8 or 12",
    ):
        _sharding.distribute_shard(context, 9, 3, "record_dataset_fn")


def test_shard_then_shuffle_keeps_shards_disjoint_whatever_the_seeds():
    seen = []
    for index in range(3):
        plan = _sharding.Shard(
            num_shards=3, shard_index=index, per_device_batch_size=2, seed=index
        )
        dataset = _sharding.shard_then_shuffle(
            tf.data.Dataset.range(20), plan, shuffle_buffer_size=20, num_epochs=1
        )
        seen.append(sorted(int(x) for x in dataset))
    assert sorted(sum(seen, [])) == list(range(20))


def test_context_is_built_by_keyword_only():
    with pytest.raises(TypeError):
        emg.inputs.InputContext(1, 0, "/cpu:0", 2, 2, 1)
