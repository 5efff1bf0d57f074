"""Tests for emg.inputs.device_array_dataset (eager): values, shards, errors."""

import numpy as np
import pytest
import tensorflow as tf

import estimator_multigpu as emg

pytestmark = pytest.mark.tf_compat

LENGTH, FRAGMENT = 1000, 10
ARRAY = np.arange(LENGTH * 3, dtype=np.float32).reshape(LENGTH, 3)


def _collect(dataset):
    """All batches of a finite dataset, as (fragments, starts) numpy arrays."""
    batches = list(dataset.as_numpy_iterator())
    return [b[0] for b in batches], np.concatenate([b[1] for b in batches])


def _dataset(indices, **kwargs):
    kwargs.setdefault("element_fn", lambda fragments, starts: (fragments, starts))
    return emg.inputs.device_array_dataset(ARRAY, indices, FRAGMENT, 8, **kwargs)


@pytest.mark.parametrize(
    "indices",
    [range(0, LENGTH - FRAGMENT + 1, 7), np.array([990, 0, 5, 5, 17, 333, 2, 1])],
    ids=["range", "array_with_duplicates"],
)
@pytest.mark.parametrize("shuffle", [False, True], ids=["ordered", "shuffled"])
def test_fragments_are_slices_of_the_array(indices, shuffle):
    batches = list(_dataset(indices, shuffle=shuffle, seed=1).as_numpy_iterator())
    for fragments, starts in batches:
        expected = np.stack([ARRAY[s : s + FRAGMENT] for s in starts])
        np.testing.assert_array_equal(fragments, expected)
    starts = np.concatenate([starts for _, starts in batches])
    assert sorted(starts.tolist()) == sorted(list(indices))


@pytest.mark.parametrize("num_shards", [1, 2, 3, 4], ids=lambda n: f"{n}shards")
@pytest.mark.parametrize("shuffle", [False, True], ids=["ordered", "shuffled"])
def test_shards_cover_the_index_list_once_per_epoch(num_shards, shuffle):
    indices = np.random.default_rng(0).permutation(LENGTH - FRAGMENT + 1)[:101]
    per_shard = [
        _collect(
            _dataset(
                indices, num_shards=num_shards, shard_index=i, seed=5, shuffle=shuffle
            )
        )[1]
        for i in range(num_shards)
    ]
    union = np.concatenate(per_shard)
    assert sorted(union.tolist()) == sorted(indices.tolist())


def test_shard_is_strided_slice_of_index_list_before_shuffling():
    indices = np.arange(50, dtype=np.int64) * 3
    _, starts = _collect(_dataset(indices, num_shards=3, shard_index=2, seed=9))
    assert sorted(starts.tolist()) == sorted(indices[2::3].tolist())


def _order(seed, shard_index=0, num_epochs=1):
    dataset = _dataset(
        range(0, 960),
        num_shards=2,
        shard_index=shard_index,
        seed=seed,
        num_epochs=num_epochs,
    )
    return _collect(dataset)[1]


def test_same_seed_same_order_and_every_epoch_reshuffled():
    two_epochs = _order(seed=11, num_epochs=2)
    first, second = two_epochs[:480], two_epochs[480:]
    np.testing.assert_array_equal(first, _order(seed=11))
    assert sorted(first.tolist()) == sorted(second.tolist()) == list(range(0, 960, 2))
    assert not np.array_equal(first, second)
    assert not np.array_equal(first, np.sort(first))


def test_shards_and_seeds_get_different_permutations():
    first = _order(seed=11)
    assert not np.array_equal(first, _order(seed=12))
    other_shard = _order(seed=11, shard_index=1)
    assert not np.array_equal(first, other_shard - 1)


@pytest.mark.parametrize("drop", [False, True], ids=["keep", "drop_remainder"])
def test_final_batch_and_drop_remainder(drop):
    fragments, starts = _collect(
        _dataset(range(0, 20), shuffle=False, drop_remainder=drop)
    )
    assert [len(b) for b in fragments] == ([8, 8] if drop else [8, 8, 4])


def test_repeats_forever_without_num_epochs():
    dataset = _dataset(range(0, 5), num_epochs=None, seed=2)
    starts = np.concatenate([b[1] for b in dataset.take(5).as_numpy_iterator()])
    assert np.bincount(starts, minlength=5).tolist() == [8] * 5


def test_more_shards_than_examples_gives_an_empty_shard():
    assert list(_dataset(range(0, 2), num_shards=3, shard_index=2)) == []


def test_default_element_is_the_fragment_batch_with_inner_dims():
    dataset = emg.inputs.device_array_dataset(ARRAY, range(0, 40), FRAGMENT, 8)
    assert dataset.element_spec.shape.as_list() == [None, FRAGMENT, 3]
    assert dataset.element_spec.dtype == tf.float32


def test_copies_are_shared_per_device_and_on_that_device():
    resident = emg.inputs.DeviceArray(ARRAY)
    assert resident.on("/cpu:1") is resident.on("/cpu:1")
    assert resident.on("/cpu:1") is not resident.on("/cpu:2")
    assert resident.on("/cpu:1").device.endswith("CPU:1")
    assert not resident.on("/cpu:1").trainable


def _graph_size(length):
    """Bytes of a GraphDef (with its function library) holding the pipeline."""
    array = np.zeros([length], np.float32)
    with tf.Graph().as_default() as graph:
        dataset = emg.inputs.device_array_dataset(
            array, range(0, 100), 4, 8, device="/cpu:1"
        )
        tf.compat.v1.data.make_initializable_iterator(dataset).get_next()
        return graph.as_graph_def().ByteSize()


def test_serialized_graph_does_not_grow_with_the_array():
    small, large = _graph_size(1_000), _graph_size(4_000_000)
    assert abs(large - small) < 64  # Only digits in shapes differ, not 16 MB.
    assert large < 32_000


ERRORS = {
    "string_array": (
        np.array(["a", "b"]),
        range(1),
        1,
        1,
        TypeError,
        "must hold numbers",
    ),
    "scalar_array": (
        np.float32(3),
        range(1),
        1,
        1,
        TypeError,
        "shape \\[length, ...\\]",
    ),
    "empty_array": (np.zeros([0]), range(1), 1, 1, ValueError, "length >= 1"),
    "fragment_too_long": (ARRAY, range(1), 1001, 1, ValueError, r"\(1001\) is longer"),
    "fragment_zero": (ARRAY, range(1), 0, 1, ValueError, "`fragment_length` must"),
    "float_indices": (ARRAY, [0.5], 1, 1, TypeError, "must hold integers"),
    "2d_indices": (ARRAY, [[0, 1]], 1, 1, ValueError, r"1-D \[num_examples\]"),
    "empty_indices": (ARRAY, [], 1, 1, ValueError, "`indices` is empty"),
    "past_end": (ARRAY, [0, 5, 991, 995], 10, 1, ValueError, r"`indices\[2\]` = 991"),
    "negative": (ARRAY, [3, -1, -2], 10, 1, ValueError, r"`indices\[1\]` = -1"),
    "range_past_end": (
        ARRAY,
        range(980, 1000),
        10,
        1,
        ValueError,
        r"`indices\[11\]` = 991",
    ),
    "range_negative": (ARRAY, range(-2, 5), 10, 1, ValueError, r"`indices\[0\]` = -2"),
    "batch_zero": (
        ARRAY,
        range(5),
        10,
        0,
        ValueError,
        "`per_device_batch_size` must be an int >= 1",
    ),
}


@pytest.mark.parametrize("case", ERRORS.values(), ids=ERRORS.keys())
def test_bad_arguments_are_rejected_up_front(case):
    array, indices, fragment_length, batch_size, error, match = case
    with pytest.raises(error, match=match):
        emg.inputs.device_array_dataset(array, indices, fragment_length, batch_size)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (
            dict(num_shards=2, shard_index=2),
            r"`shard_index` \(2\) must be < `num_shards` \(2\)",
        ),
        (dict(num_shards=0), "`num_shards` must be an int >= 1"),
        (dict(num_epochs=0), "`num_epochs` must be an int >= 1 or None"),
    ],
    ids=["shard_index", "num_shards", "num_epochs"],
)
def test_bad_shard_arguments_are_rejected(kwargs, match):
    with pytest.raises(ValueError, match=match):
        _dataset(range(5), **kwargs)


def test_dataset_fn_rejects_bad_indices_when_built():
    with pytest.raises(ValueError, match=r"`indices\[1\]` = 995"):
        emg.inputs.device_array_dataset_fn(
            ARRAY, [0, 995], FRAGMENT, global_batch_size=4
        )


def test_dataset_fn_needs_global_batch_for_distribute_context():
    dataset_fn = emg.inputs.device_array_dataset_fn(ARRAY, range(5), FRAGMENT)
    context = tf.distribute.InputContext(1, 0, 1)
    with pytest.raises(ValueError, match="`global_batch_size` is None"):
        dataset_fn(context)


@pytest.mark.parametrize(
    "indices, table_gathers",
    [(range(0, 900, 3), 0), (np.arange(0, 900, 3), 1)],
    ids=["range", "array"],
)
def test_one_gather_of_the_array_per_batch(indices, table_gathers):
    with tf.Graph().as_default() as graph:
        dataset = emg.inputs.device_array_dataset(
            ARRAY, indices, FRAGMENT, 8, device="/cpu:1"
        )
        tf.compat.v1.data.make_initializable_iterator(dataset).get_next()
    nodes = [n for f in graph.as_graph_def().library.function for n in f.node_def]
    gathers = [n.name for n in nodes if n.op == "ResourceGather"]
    array_gathers = [g for g in gathers if g.startswith("gather_fragments_cpu_1")]
    assert len(array_gathers) == 1
    assert len(gathers) == 1 + table_gathers
    assert not [n for n in nodes if n.op == "ReadVariableOp"]  # No whole-array read.
