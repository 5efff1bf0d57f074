"""emg.inputs.sharded_input_fn, rule by rule, in seconds.

Which examples each device's shard gets in each step (block slices, the
uneven split, the dropped short global batch), the per-shard seeds, where
each shard's pipeline ends (prefetched onto its device, or on the host),
what `user_shards` / `user_batches` leave to `dataset_fn`, and every error
message. tools/mutation.sh runs these against the module's mutants;
tests/test_inputs.py and tests/test_input_conformance.py hold the same
contract over more sizes.
"""

import re

import numpy as np
import pytest
import tensorflow as tf
from placement_helpers import traced_devices

import estimator_multigpu as emg
from estimator_multigpu import _sharding
from estimator_multigpu import devices as devices_lib

_PREDICT = emg.estimator.ModeKeys.PREDICT


def _pairs(n):
    """`dataset_fn`: examples `(x, 10 * x)` for x in 0..n-1."""
    return lambda ctx: tf.data.Dataset.range(n).map(lambda x: (x, 10 * x))


def _devices(count):
    return devices_lib.resolve(num_gpus=count)


def _steps(input_fn, mode=None):
    """Every step of one run to OutOfRangeError: `[(features, labels, counts)]`.

    Each entry holds one list per device, in device order.
    """
    steps = []
    with tf.Graph().as_default():
        features, labels = input_fn(mode=mode)
        fetches = (features.values, labels.values, features.counts)
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.tables_initializer())
            with pytest.raises(tf.errors.OutOfRangeError):
                while len(steps) < 100:
                    values, label_values, counts = sess.run(fetches)
                    steps.append(
                        (
                            [v.tolist() for v in values],
                            [v.tolist() for v in label_values],
                            [int(c) for c in counts],
                        )
                    )
    return steps


def _features(steps):
    return [step[0] for step in steps]


def test_each_step_is_the_next_global_batch_in_device_order():
    steps = _steps(
        emg.inputs.sharded_input_fn(_pairs(10), _devices(2), global_batch_size=4)
    )
    assert _features(steps) == [[[0, 1], [2, 3]], [[4, 5], [6, 7]], [[8, 9], []]]
    assert [step[1] for step in steps] == [
        [[0, 10], [20, 30]],
        [[40, 50], [60, 70]],
        [[80, 90], []],
    ]
    assert [step[2] for step in steps] == [[2, 2], [2, 2], [2, 0]]


def test_an_uneven_global_batch_gives_the_first_devices_one_more():
    steps = _steps(
        emg.inputs.sharded_input_fn(_pairs(12), _devices(4), global_batch_size=6)
    )
    assert _features(steps) == [
        [[0, 1], [2, 3], [4], [5]],
        [[6, 7], [8, 9], [10], [11]],
    ]


def test_remainder_error_refuses_an_uneven_global_batch():
    with pytest.raises(
        ValueError,
        match=r"^`global_batch_size` \(6\) must be divisible by the number of "
        r"devices \(4\), or pass remainder='uneven'",
    ):
        emg.inputs.sharded_input_fn(
            _pairs(12), _devices(4), global_batch_size=6, remainder="error"
        )


def test_remainder_drop_ends_at_the_short_global_batch_with_static_sizes():
    input_fn = emg.inputs.sharded_input_fn(
        _pairs(10), _devices(2), global_batch_size=4, remainder="drop"
    )
    with tf.Graph().as_default():
        features, labels = input_fn()
        assert [v.shape.as_list() for v in features.values] == [[2], [2]]
        assert [v.shape.as_list() for v in labels.values] == [[2], [2]]
    assert _features(_steps(input_fn)) == [[[0, 1], [2, 3]], [[4, 5], [6, 7]]]


def test_without_drop_the_batch_sizes_are_not_static():
    with tf.Graph().as_default():
        features, _ = emg.inputs.sharded_input_fn(
            _pairs(10), _devices(2), global_batch_size=4
        )()
        assert [v.shape.as_list() for v in features.values] == [[None], [None]]


def test_num_epochs_repeats_each_shard():
    steps = _steps(
        emg.inputs.sharded_input_fn(
            _pairs(6), _devices(2), global_batch_size=4, num_epochs=2
        )
    )
    # Shard 0 is [0, 1, 4, 5] per epoch and shard 1 [2, 3]; each repeats its own.
    assert _features(steps) == [
        [[0, 1], [2, 3]],
        [[4, 5], [2, 3]],
        [[0, 1], []],
        [[4, 5], []],
    ]


def _shard_order(examples, buffer_size, seed):
    """`examples` shuffled as the builder shuffles a shard with `seed`."""
    dataset = tf.data.Dataset.from_tensor_slices(np.array(examples, np.int64))
    dataset = dataset.map(lambda x: (x, 10 * x)).shuffle(buffer_size, seed=seed)
    return [int(x) for x, _ in dataset]


def test_each_shard_shuffles_its_own_examples_with_its_own_seed():
    contexts = []

    def dataset_fn(ctx):
        contexts.append(ctx)
        return _pairs(16)(ctx)

    steps = _steps(
        emg.inputs.sharded_input_fn(
            dataset_fn, _devices(2), global_batch_size=4, shuffle_buffer_size=8, seed=7
        )
    )
    seeds = [ctx.seed for ctx in contexts]
    assert seeds == [_sharding.derive_seed(7, 0), _sharding.derive_seed(7, 1)]
    assert seeds[0] != seeds[1]
    shards = [sum((step[0][d] for step in steps), []) for d in (0, 1)]
    mine = [[x for x in range(16) if (x % 4 < 2) == (d == 0)] for d in (0, 1)]
    assert shards == [_shard_order(mine[d], 8, seeds[d]) for d in (0, 1)]
    assert shards[0] != mine[0] or shards[1] != mine[1]  # It did shuffle.


def test_the_contexts_describe_each_shard():
    contexts = []

    def dataset_fn(ctx):
        contexts.append(ctx)
        return _pairs(12)(ctx)

    input_fn = emg.inputs.sharded_input_fn(dataset_fn, _devices(4), global_batch_size=6)
    with tf.Graph().as_default():
        input_fn(params={"a": 1}, mode="train")
    assert [
        (c.num_shards, c.shard_index, c.device, c.per_device_batch_size)
        for c in contexts
    ] == [
        (4, 0, "/cpu:0", 2),
        (4, 1, "/cpu:1", 2),
        (4, 2, "/cpu:2", 1),
        (4, 3, "/cpu:3", 1),
    ]
    assert {(c.global_batch_size, c.num_devices, c.mode, c.seed) for c in contexts} == {
        (6, 4, "train", None)
    }
    assert all(c.params == {"a": 1} for c in contexts)


def _traced_reads(input_fn):
    """The devices that ran the shards' iterator reads in one traced step."""
    with tf.Graph().as_default():
        features, _ = input_fn()
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.tables_initializer())
            return traced_devices(sess, features.values, "IteratorGetNextAsOptional"), [
                v.device for v in features.values
            ]


def test_each_shard_is_prefetched_onto_its_device():
    devices = _devices(2)
    ran, placed = _traced_reads(
        emg.inputs.sharded_input_fn(_pairs(8), devices, global_batch_size=4)
    )
    assert ran == {"/cpu:0", "/cpu:1"}
    assert all(map(devices_lib.same_device, placed, devices))


def test_without_prefetch_to_device_the_pipelines_end_on_the_host():
    devices = _devices(2)
    input_fn = emg.inputs.sharded_input_fn(
        _pairs(8), devices, global_batch_size=4, prefetch_to_device=False
    )
    ran, placed = _traced_reads(input_fn)
    assert ran == {"/cpu:0"}
    assert all(map(devices_lib.same_device, placed, devices))  # Copied at the step.
    assert _features(_steps(input_fn)) == [[[0, 1], [2, 3]], [[4, 5], [6, 7]]]


def test_user_shards_leaves_the_sharding_to_dataset_fn():
    def dataset_fn(ctx):
        data = tf.data.Dataset.range(8).shard(ctx.num_shards, ctx.shard_index)
        return data.map(lambda x: (x, 10 * x))

    steps = _steps(
        emg.inputs.sharded_input_fn(
            dataset_fn, _devices(2), global_batch_size=4, user_shards=True
        ),
        mode="train",
    )
    assert _features(steps) == [[[0, 2], [1, 3]], [[4, 6], [5, 7]]]


def test_user_batches_leaves_the_batching_to_dataset_fn():
    def dataset_fn(ctx):
        data = tf.data.Dataset.range(10).shard(ctx.num_shards, ctx.shard_index)
        return data.batch(ctx.per_device_batch_size).map(lambda x: (x, 10 * x))

    steps = _steps(
        emg.inputs.sharded_input_fn(
            dataset_fn, _devices(2), global_batch_size=6, user_batches=True, seed=1
        )
    )
    assert _features(steps) == [[[0, 2, 4], [1, 3, 5]], [[6, 8], [7, 9]]]


_USER_BATCHES = (
    "With user_batches=True, `dataset_fn` shuffles, repeats and batches itself; "
    "received shuffle_buffer_size={}, num_epochs={}, remainder={}, "
    "drop_remainder={}. Leave shuffle_buffer_size, num_epochs and drop_remainder "
    "at their defaults (None, 1, unset), pass remainder='uneven' or 'error', and "
    "use ctx.seed and ctx.per_device_batch_size in dataset_fn."
)


@pytest.mark.parametrize(
    "kwargs, received",
    [
        ({"shuffle_buffer_size": 8}, ("8", "1", "'uneven'", "None")),
        ({"num_epochs": 2}, ("None", "2", "'uneven'", "None")),
        ({"num_epochs": None}, ("None", "None", "'uneven'", "None")),
        ({"remainder": "drop"}, ("None", "1", "'drop'", "None")),
    ],
    ids=["shuffle", "epochs", "forever", "drop"],
)
def test_user_batches_refuses_what_dataset_fn_must_do(kwargs, received):
    with pytest.raises(
        ValueError, match="^" + re.escape(_USER_BATCHES.format(*received)) + "$"
    ):
        emg.inputs.sharded_input_fn(
            _pairs(4), _devices(2), global_batch_size=4, user_batches=True, **kwargs
        )


def test_user_batches_refuses_the_deprecated_drop_remainder():
    received = ("None", "1", "'uneven'", "True")
    with (
        pytest.warns(DeprecationWarning),
        pytest.raises(
            ValueError, match="^" + re.escape(_USER_BATCHES.format(*received)) + "$"
        ),
    ):
        emg.inputs.sharded_input_fn(
            _pairs(4),
            _devices(2),
            global_batch_size=4,
            user_batches=True,
            drop_remainder=True,
        )


def test_shuffle_and_epochs_are_the_builders_without_user_batches():
    input_fn = emg.inputs.sharded_input_fn(
        _pairs(4), _devices(2), global_batch_size=4, shuffle_buffer_size=8, num_epochs=2
    )
    features = sorted(sum((sum(s[0], []) for s in _steps(input_fn)), []))
    assert features == [0, 0, 1, 1, 2, 2, 3, 3]


_PREDICT_ORDER = (
    "sharded_input_fn(..., {}=True) cannot keep predictions in input order: "
    "dataset_fn decides which examples each device gets. For predict, use "
    "sharded_input_fn without user_shards/user_batches or "
    "emg.inputs.multi_device_input_fn, which both return predictions in input order."
)


@pytest.mark.parametrize(
    "kwargs, flag",
    [
        ({"user_shards": True}, "user_shards"),
        ({"user_batches": True}, "user_batches"),
        ({"user_shards": True, "user_batches": True}, "user_batches"),
    ],
    ids=["shards", "batches", "both"],
)
def test_predict_refuses_shards_that_dataset_fn_chooses(kwargs, flag):
    input_fn = emg.inputs.sharded_input_fn(
        _pairs(4), _devices(2), global_batch_size=4, **kwargs
    )
    with tf.Graph().as_default():
        with pytest.raises(
            ValueError, match="^" + re.escape(_PREDICT_ORDER.format(flag)) + "$"
        ):
            input_fn(mode=_PREDICT)


def test_predict_takes_the_builders_shards_in_input_order():
    input_fn = emg.inputs.sharded_input_fn(_pairs(6), _devices(2), global_batch_size=4)
    assert _features(_steps(input_fn, mode=_PREDICT)) == [
        [[0, 1], [2, 3]],
        [[4, 5], []],
    ]


def test_a_batched_dataset_fn_is_refused():
    input_fn = emg.inputs.sharded_input_fn(
        lambda ctx: tf.data.Dataset.range(8).batch(2), _devices(2), global_batch_size=4
    )
    with tf.Graph().as_default():
        with pytest.raises(ValueError) as caught:
            input_fn()
    assert str(caught.value).startswith(
        "`dataset_fn` returned a batched dataset (it ends in "
    )
    assert str(caught.value).endswith(
        "but sharded_input_fn batches the examples itself. Return unbatched "
        "examples (drop the .batch()), or pass user_batches=True if dataset_fn must "
        "batch (e.g. to parse whole batches): it then returns batches of "
        "ctx.per_device_batch_size examples of shard ctx.shard_index."
    )


def test_shards_of_different_structures_are_refused():
    def dataset_fn(ctx):
        if ctx.shard_index:
            return tf.data.Dataset.range(8).map(lambda x: {"x": x})
        return tf.data.Dataset.range(8)

    input_fn = emg.inputs.sharded_input_fn(dataset_fn, _devices(2), global_batch_size=4)
    with tf.Graph().as_default():
        with pytest.raises(TypeError) as caught:
            input_fn()
    message = str(caught.value)
    assert message.startswith(
        "`dataset_fn` returned datasets of different structures for different "
        "shards: TensorSpec(shape=(None,), dtype=tf.int64, name=None) vs {'x': "
    )
    assert message.endswith("Every shard must yield the same structure and dtypes.")


def test_an_eager_call_is_refused():
    input_fn = emg.inputs.sharded_input_fn(_pairs(4), _devices(2), global_batch_size=4)
    with pytest.raises(
        RuntimeError,
        match=r"^The input_fn from sharded_input_fn builds graph-mode iterators",
    ):
        input_fn()
