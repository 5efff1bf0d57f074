"""emg.inputs.multi_device_input_fn, rule by rule, in seconds.

How each global batch of the one host pipeline is split into the devices'
pieces (evenly, a short final batch as evenly as it goes, empty pieces
included), the shuffle seed, epochs and the dropped short batch, where the
pieces are read (a MultiDeviceIterator buffering them on each device) and
every error message. tools/mutation.sh runs these against the module's
mutants; tests/test_inputs.py and tests/test_input_conformance.py hold the
same contract over more sizes.
"""

import re

import numpy as np
import pytest
import tensorflow as tf
from placement_helpers import traced_devices

import estimator_multigpu as emg
from estimator_multigpu import devices as devices_lib


def _pairs(n):
    """`dataset_fn`: examples `(x, 10 * x)` for x in 0..n-1."""
    return lambda ctx: tf.data.Dataset.range(n).map(lambda x: (x, 10 * x))


def _devices(count):
    return devices_lib.resolve(num_gpus=count)


def _steps(input_fn):
    """Every step of one run to OutOfRangeError: `[(features, labels, counts)]`.

    Each entry holds one list per device, in device order (labels None for
    features only).
    """
    steps = []
    with tf.Graph().as_default():
        features, labels = input_fn()
        fetches = (features.values, labels.values if labels else [], features.counts)
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.tables_initializer())
            with pytest.raises(tf.errors.OutOfRangeError):
                while len(steps) < 100:
                    values, label_values, counts = sess.run(fetches)
                    steps.append(
                        (
                            [v.tolist() for v in values],
                            [v.tolist() for v in label_values] if labels else None,
                            [int(c) for c in counts],
                        )
                    )
    return steps


def _features(steps):
    return [step[0] for step in steps]


def test_each_global_batch_is_split_in_device_order():
    steps = _steps(
        emg.inputs.multi_device_input_fn(_pairs(10), _devices(2), global_batch_size=4)
    )
    assert _features(steps) == [[[0, 1], [2, 3]], [[4, 5], [6, 7]], [[8], [9]]]
    assert [step[1] for step in steps] == [
        [[0, 10], [20, 30]],
        [[40, 50], [60, 70]],
        [[80], [90]],
    ]
    assert [step[2] for step in steps] == [[2, 2], [2, 2], [1, 1]]


def test_a_short_final_batch_is_split_as_evenly_as_it_goes():
    steps = _steps(
        emg.inputs.multi_device_input_fn(_pairs(11), _devices(4), global_batch_size=8)
    )
    assert _features(steps) == [
        [[0, 1], [2, 3], [4, 5], [6, 7]],
        [[8], [9], [10], []],
    ]
    assert [step[2] for step in steps] == [[2, 2, 2, 2], [1, 1, 1, 0]]


def test_an_uneven_global_batch_gives_the_first_devices_one_more():
    steps = _steps(
        emg.inputs.multi_device_input_fn(_pairs(7), _devices(4), global_batch_size=6)
    )
    assert _features(steps) == [[[0, 1], [2, 3], [4], [5]], [[6], [], [], []]]
    assert [step[2] for step in steps] == [[2, 2, 1, 1], [1, 0, 0, 0]]


def test_one_device_takes_whole_global_batches():
    steps = _steps(
        emg.inputs.multi_device_input_fn(_pairs(5), _devices(1), global_batch_size=2)
    )
    assert _features(steps) == [[[0, 1]], [[2, 3]], [[4]]]


def test_features_only_keep_their_structure():
    dataset_fn = lambda ctx: tf.data.Dataset.range(5)  # noqa: E731
    input_fn = emg.inputs.multi_device_input_fn(
        dataset_fn, _devices(2), global_batch_size=4
    )
    with tf.Graph().as_default():
        features, labels = input_fn()
        assert labels is None
        assert all(isinstance(v, tf.Tensor) for v in features.values)
    steps = _steps(input_fn)
    assert _features(steps) == [[[0, 1], [2, 3]], [[4], []]]


def test_dict_features_are_split_key_by_key():
    dataset_fn = lambda ctx: tf.data.Dataset.range(3).map(  # noqa: E731
        lambda x: {"x": x, "y": tf.fill([2], 10 * x)}
    )
    with tf.Graph().as_default():
        features, labels = emg.inputs.multi_device_input_fn(
            dataset_fn, _devices(2), global_batch_size=4
        )()
        assert labels is None
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.tables_initializer())
            shards = sess.run(features.values)
    assert [shard["x"].tolist() for shard in shards] == [[0, 1], [2]]
    assert [shard["y"].tolist() for shard in shards] == [[[0, 0], [10, 10]], [[20, 20]]]


def test_remainder_drop_drops_the_short_global_batch():
    steps = _steps(
        emg.inputs.multi_device_input_fn(
            _pairs(10), _devices(2), global_batch_size=4, remainder="drop"
        )
    )
    assert _features(steps) == [[[0, 1], [2, 3]], [[4, 5], [6, 7]]]


def test_num_epochs_repeats_before_batching():
    steps = _steps(
        emg.inputs.multi_device_input_fn(
            _pairs(3), _devices(2), global_batch_size=4, num_epochs=2
        )
    )
    assert _features(steps) == [[[0, 1], [2, 0]], [[1], [2]]]


def test_the_seed_decides_the_host_shuffle():
    contexts = []

    def dataset_fn(ctx):
        contexts.append(ctx)
        return _pairs(16)(ctx)

    input_fn = emg.inputs.multi_device_input_fn(
        dataset_fn, _devices(2), global_batch_size=4, shuffle_buffer_size=8, seed=7
    )
    order = [x for step in _features(_steps(input_fn)) for piece in step for x in piece]
    expected = tf.data.Dataset.range(16).map(lambda x: (x, 10 * x)).shuffle(8, seed=7)
    assert order == [int(x) for x, _ in expected]
    assert order != list(range(16))
    assert contexts[0].seed == 7


def test_the_context_is_one_host_shard():
    contexts = []

    def dataset_fn(ctx):
        contexts.append(ctx)
        return _pairs(12)(ctx)

    input_fn = emg.inputs.multi_device_input_fn(
        dataset_fn, _devices(4), global_batch_size=6
    )
    with tf.Graph().as_default():
        input_fn(params={"a": 1}, mode="train")
    (ctx,) = contexts
    assert (ctx.num_shards, ctx.shard_index, ctx.device) == (1, 0, "/cpu:0")
    assert (ctx.per_device_batch_size, ctx.global_batch_size, ctx.num_devices) == (
        2,
        6,
        4,
    )
    assert (ctx.seed, ctx.mode, ctx.params) == (None, "train", {"a": 1})


def _buffers(input_fn):
    """`(host buffer per device, [device buffer of each device])` in the graph."""
    with tf.Graph().as_default() as graph:
        input_fn()
    ops = graph.get_operations()
    (init,) = [op for op in ops if op.type == "MultiDeviceIteratorInit"]
    on_devices = sorted(
        (op.device, int(tf.get_static_value(op.inputs[1])))
        for op in ops
        if op.type == "PrefetchDataset"
    )
    return int(tf.get_static_value(init.inputs[2])), on_devices


def test_one_piece_is_buffered_on_each_device_by_default():
    input_fn = emg.inputs.multi_device_input_fn(
        _pairs(8), _devices(2), global_batch_size=4
    )
    assert _buffers(input_fn) == (1, [("/device:CPU:0", 1), ("/device:CPU:1", 1)])


def test_the_buffers_take_their_sizes():
    input_fn = emg.inputs.multi_device_input_fn(
        _pairs(8),
        _devices(2),
        global_batch_size=4,
        prefetch_buffer_size=3,
        max_buffer_size=5,
    )
    assert _buffers(input_fn) == (5, [("/device:CPU:0", 3), ("/device:CPU:1", 3)])


def test_no_buffer_on_the_devices_still_reads_every_piece():
    input_fn = emg.inputs.multi_device_input_fn(
        _pairs(6), _devices(2), global_batch_size=4, prefetch_buffer_size=0
    )
    assert _features(_steps(input_fn)) == [[[0, 1], [2, 3]], [[4], [5]]]


def test_each_piece_is_read_on_its_device():
    devices = _devices(2)
    input_fn = emg.inputs.multi_device_input_fn(_pairs(8), devices, global_batch_size=4)
    with tf.Graph().as_default():
        features, labels = input_fn()
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.tables_initializer())
            ran = traced_devices(sess, features.values, "IteratorGetNextAsOptional")
        placed = [v.device for v in features.values + labels.values]
    assert ran == {"/cpu:0", "/cpu:1"}
    assert all(map(devices_lib.same_device, placed, devices * 2))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (
            {"prefetch_buffer_size": -1},
            "`prefetch_buffer_size` must be an int >= 0; received -1.",
        ),
        (
            {"prefetch_buffer_size": 1.0},
            "`prefetch_buffer_size` must be an int >= 0; received 1.0.",
        ),
        ({"max_buffer_size": 0}, "`max_buffer_size` must be an int >= 1; received 0."),
        (
            {"max_buffer_size": True},
            "`max_buffer_size` must be an int >= 1; received True.",
        ),
    ],
    ids=["negative_prefetch", "float_prefetch", "zero_host", "bool_host"],
)
def test_bad_buffer_sizes_are_refused(kwargs, message):
    with pytest.raises(ValueError, match="^" + re.escape(message) + "$"):
        emg.inputs.multi_device_input_fn(
            _pairs(4), _devices(2), global_batch_size=4, **kwargs
        )


def test_a_batched_dataset_fn_is_refused():
    input_fn = emg.inputs.multi_device_input_fn(
        lambda ctx: tf.data.Dataset.range(8).batch(2), _devices(2), global_batch_size=4
    )
    with tf.Graph().as_default():
        with pytest.raises(ValueError) as caught:
            input_fn()
    assert str(caught.value).startswith(
        "`dataset_fn` returned a batched dataset (it ends in "
    )
    assert str(caught.value).endswith(
        "but multi_device_input_fn batches the examples itself. Return unbatched "
        "examples (drop the .batch()), or, for a pipeline that must batch (e.g. to "
        "parse whole batches), use emg.inputs.sharded_input_fn(..., user_batches=True)."
    )


def test_an_eager_call_is_refused():
    input_fn = emg.inputs.multi_device_input_fn(
        _pairs(4), _devices(2), global_batch_size=4
    )
    with pytest.raises(
        RuntimeError,
        match=r"^The input_fn from multi_device_input_fn builds graph-mode iterators",
    ):
        input_fn()


def test_values_keep_their_dtypes_and_inner_shapes():
    dataset_fn = lambda ctx: tf.data.Dataset.from_tensor_slices(  # noqa: E731
        (np.ones([5, 3], np.float32), np.arange(5, dtype=np.int32))
    )
    with tf.Graph().as_default():
        features, labels = emg.inputs.multi_device_input_fn(
            dataset_fn, _devices(2), global_batch_size=4
        )()
    assert [(v.dtype, v.shape.as_list()) for v in features.values] == [
        (tf.float32, [None, 3])
    ] * 2
    assert [(v.dtype, v.shape.as_list()) for v in labels.values] == [
        (tf.int32, [None])
    ] * 2
