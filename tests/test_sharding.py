"""The one home of the batching and sharding rules: `estimator_multigpu._sharding`."""

import dataclasses
import inspect
import re

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


def _raises(error, message):
    """pytest.raises for exactly `message`."""
    return pytest.raises(error, match=f"^{re.escape(message)}$")


def test_each_remainder_is_known():
    for remainder in ("uneven", "drop", "error"):
        assert _sharding.check_remainder(remainder) == remainder


_CHOICES = (
    "'uneven' gives some devices one example more, 'drop' drops the examples "
    "that do not divide, 'error' rejects such batches."
)


@pytest.mark.parametrize(
    "remainder, allowed, message",
    [
        (
            "pad",
            _sharding.REMAINDERS,
            "`remainder` must be one of ['uneven', 'drop', 'error']; received "
            f"'pad'. {_CHOICES}",
        ),
        (
            "drop",
            ("error",),
            "`remainder` must be one of ['error']; received 'drop'. 'drop' does not "
            f"apply here (see estimator_multigpu._sharding). {_CHOICES}",
        ),
    ],
    ids=["unknown", "known_but_not_allowed"],
)
def test_bad_remainder_message(remainder, allowed, message):
    with _raises(ValueError, message):
        _sharding.check_remainder(remainder, allowed)


@pytest.mark.parametrize(
    "batch, num, remainder, expected",
    [
        (1, 1, "error", [1]),
        (2, 2, "error", [1, 1]),
        (10, 4, "uneven", [3, 3, 2, 2]),
        (8, 4, "drop", [2, 2, 2, 2]),
    ],
    ids=["one_example", "one_per_device", "uneven", "drop_divides"],
)
def test_per_device_batch_sizes(batch, num, remainder, expected):
    assert _sharding.per_device_batch_sizes(batch, num, remainder) == expected


_DIVIDES = (
    "`global_batch_size` (10) must be divisible by the number of devices (4){}. "
    "Pass 8 or 12, or run on a number of devices that divides it."
)


@pytest.mark.parametrize(
    "batch, num, remainder, error, message",
    [
        (
            "8",
            2,
            "uneven",
            TypeError,
            "`global_batch_size` must be an int; received '8' of type str.",
        ),
        (
            True,
            1,
            "uneven",
            TypeError,
            "`global_batch_size` must be an int; received True of type bool.",
        ),
        (0, 2, "uneven", ValueError, "`global_batch_size` must be >= 1; received 0."),
        (4, 0, "uneven", ValueError, "`num_devices` must be >= 1; received 0."),
        (
            4,
            2.0,
            "uneven",
            TypeError,
            "`num_devices` must be an int; received 2.0 of type float.",
        ),
        (
            3,
            4,
            "uneven",
            ValueError,
            "`global_batch_size` (3) is smaller than the number of devices (4); every "
            "device needs at least one example per step. Pass 4, or run on fewer devices.",
        ),
        (10, 4, "error", ValueError, _DIVIDES.format(", or pass remainder='uneven'")),
        (
            10,
            4,
            "drop",
            ValueError,
            _DIVIDES.format(
                " with remainder='drop' (every device takes the same batch), or pass "
                "remainder='uneven'"
            ),
        ),
    ],
    ids=[
        "batch_str",
        "batch_bool",
        "batch_zero",
        "no_devices",
        "devices_float",
        "smaller_than_devices",
        "error_does_not_divide",
        "drop_does_not_divide",
    ],
)
def test_per_device_batch_sizes_errors(batch, num, remainder, error, message):
    with _raises(error, message):
        _sharding.per_device_batch_sizes(batch, num, remainder)


def test_per_replica_batch_size():
    assert _sharding.per_replica_batch_size(8, 1) == 8
    assert _sharding.per_replica_batch_size(8, 4) == 2
    with _raises(
        ValueError,
        "`global_batch_size` (9) must be divisible by `num_replicas_in_sync` (4): "
        "every replica takes the same number of examples per step. Pass 8 or 12, or "
        "run on a number of devices that divides it.",
    ):
        _sharding.per_replica_batch_size(9, 4)
    with _raises(
        TypeError, "`num_replicas_in_sync` must be an int; received 2.0 of type float."
    ):
        _sharding.per_replica_batch_size(4, 2.0)


def test_distribute_shard_needs_the_global_batch():
    with _raises(
        ValueError,
        "`global_batch_size` is None, but a tf.distribute.InputContext needs it to "
        "compute the per-replica batch; pass record_dataset_fn(..., "
        "global_batch_size=N).",
    ):
        _sharding.distribute_shard(
            tf.distribute.InputContext(2, 1, 4), None, 3, "record_dataset_fn"
        )


def test_error_and_drop_split_a_batch_evenly():
    # 'error' has been checked by the caller; both give batch // num each.
    for remainder in ("error", "drop"):
        assert _sharding.split_sizes(10, 4, remainder) == [2, 2, 2, 2]


def test_shard_is_frozen_and_built_by_keyword():
    plan = _sharding.Shard(num_shards=2, shard_index=1, per_device_batch_size=4)
    assert plan.seed is None
    assert {plan: 1}[
        _sharding.Shard(num_shards=2, shard_index=1, per_device_batch_size=4)
    ]
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.seed = 3
    with pytest.raises(TypeError):
        _sharding.Shard(2, 1, 4)


def test_derived_seeds_are_distinct_deterministic_and_in_range():
    seeds = [_sharding.derive_seed(7, index) for index in range(200)]
    assert seeds == [_sharding.derive_seed(7, index) for index in range(200)]
    assert len(set(seeds)) == 200
    assert all(isinstance(s, int) and 0 <= s < 2**31 - 1 for s in seeds)
    assert _sharding.derive_seed(8, 0) != seeds[0]
    assert _sharding.derive_seed(None, 3) is None


def test_derived_seeds_do_not_change_between_releases():
    # A seeded run shuffles each shard the same way after an upgrade.
    assert [_sharding.derive_seed(7, i) for i in range(3)] == [
        2083679832,
        369571992,
        1009178997,
    ]
    assert _sharding.derive_seed(0, 0) == 821328063


def _elements(dataset):
    return [int(x) for x in dataset]


@pytest.mark.parametrize(
    "num_shards, sizes, expected",
    [
        (2, [4, 3], [[0, 1, 2, 3, 7, 8, 9, 10], [4, 5, 6, 11, 12, 13]]),
        (2, [2, 2], [[0, 1, 4, 5, 8, 9, 12, 13], [2, 3, 6, 7, 10, 11]]),
    ],
    ids=["uneven", "even"],
)
def test_shard_by_blocks_takes_each_shards_slice_of_every_block(
    num_shards, sizes, expected
):
    block = sum(sizes)
    for index in range(num_shards):
        offset, size = _sharding.block_slice(block, num_shards, index)
        assert (offset, size) == (sum(sizes[:index]), sizes[index])
        plan = _sharding.Shard(
            num_shards=num_shards, shard_index=index, per_device_batch_size=size
        )
        shard = _sharding.shard_by_blocks(
            tf.data.Dataset.range(14), plan, block, offset
        )
        assert _elements(shard) == expected[index]


def test_in_block_slice_bounds():
    inside = _sharding.in_block_slice(tf.range(8), 4, 1, 2)
    assert inside.numpy().tolist() == [False, True, True, False] * 2


def test_shard_takes_every_nth_element():
    for num_shards, index, expected in [(1, 0, [0, 1, 2, 3, 4]), (2, 1, [1, 3])]:
        plan = _sharding.Shard(
            num_shards=num_shards, shard_index=index, per_device_batch_size=1
        )
        assert _elements(_sharding.shard(tf.data.Dataset.range(5), plan)) == expected
        assert list(_sharding.shard_list(range(5), plan)) == expected


@pytest.mark.parametrize(
    "repeat_first", [False, True], ids=["shuffle_first", "repeat_first"]
)
@pytest.mark.parametrize("num_epochs", [1, 2, 3])
def test_shuffle_and_repeat_counts(num_epochs, repeat_first):
    dataset = _sharding.shuffle_and_repeat(
        tf.data.Dataset.range(6),
        shuffle_buffer_size=6,
        seed=1,
        num_epochs=num_epochs,
        repeat_first=repeat_first,
    )
    elements = _elements(dataset)
    assert sorted(elements) == sorted(list(range(6)) * num_epochs)
    assert elements != list(range(6)) * num_epochs  # Shuffled.


def test_shuffle_then_repeat_by_default_keeps_epochs_apart():
    # Repeating after the shuffle: each epoch's 10 examples are each example once.
    dataset = _sharding.shuffle_and_repeat(
        tf.data.Dataset.range(10), shuffle_buffer_size=10, seed=2, num_epochs=4
    )
    elements = _elements(dataset)
    assert [sorted(elements[i : i + 10]) for i in range(0, 40, 10)] == [
        list(range(10))
    ] * 4


def test_shard_then_shuffle_leaves_a_sharded_dataset_as_it_is():
    plan = _sharding.Shard(num_shards=2, shard_index=1, per_device_batch_size=1)
    dataset = _sharding.shard_then_shuffle(
        tf.data.Dataset.range(4),
        plan,
        shuffle_buffer_size=None,
        num_epochs=1,
        sharder=None,
    )
    assert _elements(dataset) == [0, 1, 2, 3]
