"""Tests for emg.inputs.multi_device_input_fn and sharded_input_fn."""

import numpy as np
import pytest
import tensorflow as tf

import estimator_multigpu as emg
from estimator_multigpu import devices as devices_lib

pytestmark = pytest.mark.tf_compat

BUILDERS = {
    "multi_device": emg.inputs.multi_device_input_fn,
    "sharded": emg.inputs.sharded_input_fn,
}


@pytest.fixture(params=sorted(BUILDERS), ids=sorted(BUILDERS))
def builder(request):
    return BUILDERS[request.param]


def _range_pairs(n):
    return lambda ctx: tf.data.Dataset.range(n).map(lambda x: (x, 10 * x))


def _run_epoch(input_fn):
    """Runs one input_fn to its OutOfRangeError; returns per-step shards."""
    steps = []
    with tf.Graph().as_default():
        features, labels = input_fn()
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.tables_initializer())
            with pytest.raises(tf.errors.OutOfRangeError):
                while True:
                    steps.append(
                        sess.run((features.values, labels.values, features.counts))
                    )
                    assert len(steps) < 10_000
    return steps


def _concat(steps, part):
    return np.concatenate([x for step in steps for x in step[part]])


@pytest.mark.parametrize(
    "n", [37, 33, 5, 1], ids=["n37", "n33_extra_batch", "n5", "n1"]
)
@pytest.mark.parametrize("shuffle", [None, 16], ids=["ordered", "shuffled"])
def test_one_epoch_is_exactly_the_dataset(builder, device_list, n, shuffle):
    input_fn = builder(
        _range_pairs(n),
        device_list,
        global_batch_size=8 if len(device_list) < 4 else 8,
        shuffle_buffer_size=shuffle,
        seed=3,
    )
    steps = _run_epoch(input_fn)
    features, labels = _concat(steps, 0), _concat(steps, 1)
    assert sorted(features.tolist()) == list(range(n))
    np.testing.assert_array_equal(labels, 10 * features)
    counts = [c for step in steps for c in step[2]]
    assert sum(counts) == n
    assert all(len(step[0]) == len(device_list) for step in steps)


def test_shard_with_one_more_batch_gets_empty_shards_elsewhere():
    devices = devices_lib.resolve(num_gpus=4)
    steps = _run_epoch(
        emg.inputs.sharded_input_fn(_range_pairs(33), devices, global_batch_size=8)
    )
    assert [list(step[2]) for step in steps][-1] == [1, 0, 0, 0]
    assert sorted(_concat(steps, 0).tolist()) == list(range(33))


def test_unsorted_order_without_shuffle_is_deterministic(builder):
    devices = devices_lib.resolve(num_gpus=2)
    first = _concat(
        _run_epoch(builder(_range_pairs(20), devices, global_batch_size=4)), 0
    )
    again = _concat(
        _run_epoch(builder(_range_pairs(20), devices, global_batch_size=4)), 0
    )
    np.testing.assert_array_equal(first, again)


@pytest.mark.parametrize(
    "seeds, same", [((7, 7), True), ((7, 8), False)], ids=["same_seed", "other_seed"]
)
def test_seed_decides_order(builder, seeds, same):
    devices = devices_lib.resolve(num_gpus=2)
    orders = [
        _concat(
            _run_epoch(
                builder(
                    _range_pairs(64),
                    devices,
                    global_batch_size=8,
                    shuffle_buffer_size=64,
                    seed=seed,
                )
            ),
            0,
        ).tolist()
        for seed in seeds
    ]
    assert (orders[0] == orders[1]) is same
    assert sorted(orders[0]) == list(range(64))


def test_shards_are_placed_on_their_devices(builder, device_list):
    with tf.Graph().as_default():
        features, labels = builder(
            _range_pairs(8), device_list, global_batch_size=4 * len(device_list)
        )()
        assert isinstance(features, emg.PerDevice) and not isinstance(
            features, (list, tuple)
        )
        for value, label, count, device in zip(
            features.values, labels.values, features.counts, device_list
        ):
            assert devices_lib.same_device(value.device, device)
            assert devices_lib.same_device(label.device, device)
            assert devices_lib.same_device(count.device, device)


def test_works_under_monitored_session_without_user_init(builder, device_list):
    with tf.Graph().as_default():
        features, _ = builder(
            _range_pairs(10), device_list, global_batch_size=len(device_list)
        )()
        tf.compat.v1.train.get_or_create_global_step()
        seen = []
        for _ in range(2):  # A second session on the same graph starts afresh.
            with tf.compat.v1.train.MonitoredTrainingSession() as sess:
                while not sess.should_stop():
                    seen.extend(np.concatenate(sess.run(features.values)).tolist())
        assert sorted(seen) == sorted(list(range(10)) * 2)


def test_user_scaffold_local_init_is_merged(builder):
    devices = devices_lib.resolve(num_gpus=2)
    with tf.Graph().as_default():
        features, _ = builder(_range_pairs(6), devices, global_batch_size=2)()
        marker = tf.compat.v1.get_variable(
            "marker",
            initializer=0,
            collections=[tf.compat.v1.GraphKeys.LOCAL_VARIABLES],
        )
        user = tf.compat.v1.train.Scaffold(local_init_op=tf.group(marker.initializer))
        scaffold = emg.per_device.merge_into_scaffold(user)
        creator = tf.compat.v1.train.ChiefSessionCreator(scaffold=scaffold)
        with tf.compat.v1.train.MonitoredSession(session_creator=creator) as sess:
            values = [np.concatenate(sess.run(features.values)) for _ in range(3)]
        assert sorted(np.concatenate(values).tolist()) == list(range(6))


def test_features_only_and_dict_features(builder):
    devices = devices_lib.resolve(num_gpus=2)
    dataset_fn = lambda ctx: tf.data.Dataset.range(6).map(
        lambda x: {"x": x, "y": tf.fill([3], x)}
    )  # noqa: E731
    with tf.Graph().as_default():
        features, labels = builder(dataset_fn, devices, global_batch_size=4)()
        assert labels is None
        assert set(features[0]) == {"x", "y"}
        assert features[1]["y"].shape.as_list() == [None, 3]
        with tf.compat.v1.train.MonitoredSession() as sess:
            first = sess.run(features.values)
    assert [shard["y"].shape for shard in first] == [(2, 3), (2, 3)]


def test_uneven_global_batch_when_asked(builder):
    devices = devices_lib.resolve(num_gpus=4)
    steps = _run_epoch(
        builder(_range_pairs(12), devices, global_batch_size=6, remainder="uneven")
    )
    assert [list(c) for c in (steps[0][2], steps[1][2])] == [[2, 2, 1, 1]] * 2
    assert sorted(_concat(steps, 0).tolist()) == list(range(12))


def test_num_epochs_and_drop_remainder(builder):
    devices = devices_lib.resolve(num_gpus=2)
    steps = _run_epoch(
        builder(
            _range_pairs(5),
            devices,
            global_batch_size=4,
            num_epochs=2,
            drop_remainder=True,
        )
    )
    seen = _concat(steps, 0).tolist()
    assert {int(c) for step in steps for c in step[2]} - {0} == {2}  # Full or empty.
    assert len(seen) >= 8 and max(seen.count(x) for x in set(seen)) == 2


def test_remainder_drop_drops_the_short_final_global_batch(builder):
    devices = devices_lib.resolve(num_gpus=2)
    steps = _run_epoch(
        builder(_range_pairs(5), devices, global_batch_size=4, remainder="drop")
    )
    assert [list(step[2]) for step in steps] == [[2, 2]]  # Examples 4.. dropped.
    assert _concat(steps, 0).tolist() == [0, 1, 2, 3]


def test_remainder_drop_needs_a_global_batch_that_divides(builder):
    with pytest.raises(
        ValueError,
        match=r"^`global_batch_size` \(6\) must be divisible by the number of "
        r"devices \(4\) with remainder='drop' \(every device takes the same "
        r"batch\), or pass remainder='uneven'\. Pass 4 or 8",
    ):
        builder(
            _range_pairs(8),
            devices_lib.resolve(num_gpus=4),
            global_batch_size=6,
            remainder="drop",
        )


def test_drop_remainder_still_drops_with_a_deprecation_warning(builder):
    devices = devices_lib.resolve(num_gpus=2)
    with pytest.warns(
        DeprecationWarning,
        match=r"`drop_remainder` is deprecated; received drop_remainder=True\. "
        r"Pass remainder='drop'",
    ):
        input_fn = builder(
            _range_pairs(7), devices, global_batch_size=3, drop_remainder=True
        )
    steps = _run_epoch(input_fn)  # 'uneven' 2 + 1, the short final batch dropped.
    assert [list(step[2]) for step in steps] == [[2, 1], [2, 1]]


def test_drop_remainder_false_contradicting_remainder_drop_is_refused(builder):
    with pytest.raises(
        ValueError,
        match=r"`drop_remainder=False` contradicts remainder='drop'; leave "
        r"`drop_remainder` out",
    ):
        builder(
            _range_pairs(8),
            devices_lib.resolve(num_gpus=2),
            global_batch_size=4,
            remainder="drop",
            drop_remainder=False,
        )


def test_sharded_context_and_user_batches():
    devices = devices_lib.resolve(num_gpus=2)
    contexts = []

    def dataset_fn(ctx):
        contexts.append(ctx)
        data = tf.data.Dataset.range(10).shard(ctx.num_shards, ctx.shard_index)
        return data.batch(ctx.per_device_batch_size).map(lambda x: (x, x))

    steps = _run_epoch(
        emg.inputs.sharded_input_fn(
            dataset_fn, devices, global_batch_size=6, seed=5, user_batches=True
        )
    )
    assert [
        (c.num_shards, c.shard_index, c.device, c.per_device_batch_size)
        for c in contexts
    ] == [(2, 0, "/cpu:0", 3), (2, 1, "/cpu:1", 3)]
    assert contexts[0].seed != contexts[1].seed and contexts[0].seed is not None
    assert sorted(_concat(steps, 0).tolist()) == list(range(10))


def test_multi_device_context_has_one_shard():
    contexts = []

    def dataset_fn(ctx):
        contexts.append(ctx)
        return tf.data.Dataset.range(4)

    with tf.Graph().as_default():
        emg.inputs.multi_device_input_fn(
            dataset_fn, devices_lib.resolve(num_gpus=2), global_batch_size=4
        )(params={"a": 1}, mode="train")
    assert (
        contexts[0].num_shards,
        contexts[0].per_device_batch_size,
        contexts[0].params,
        contexts[0].mode,
    ) == (1, 2, {"a": 1}, "train")


@pytest.mark.parametrize("n_shards", [2, 4], ids=["two", "four"])
def test_derived_seeds_are_distinct_and_stable(n_shards):
    seeds = [emg.inputs._context.derive_seed(11, i) for i in range(n_shards)]
    assert len(set(seeds)) == n_shards
    assert seeds == [emg.inputs._context.derive_seed(11, i) for i in range(n_shards)]
    assert emg.inputs._context.derive_seed(None, 0) is None


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (
            {"global_batch_size": 130, "remainder": "error"},
            ValueError,
            r"`global_batch_size` \(130\) must be divisible by the number of devices \(4\), or pass remainder='uneven'",
        ),
        (
            {"global_batch_size": 3},
            ValueError,
            r"`global_batch_size` \(3\) is smaller than the number of devices \(4\)",
        ),
        (
            {"global_batch_size": 0},
            ValueError,
            r"`global_batch_size` must be >= 1; received 0",
        ),
        (
            {"global_batch_size": 8.0},
            TypeError,
            r"`global_batch_size` must be an int; received 8.0",
        ),
        (
            {"global_batch_size": 8, "remainder": "pad"},
            ValueError,
            r"`remainder` must be one of .*received 'pad'",
        ),
        (
            {"global_batch_size": 8, "shuffle_buffer_size": 0},
            ValueError,
            r"`shuffle_buffer_size` must be an int >= 1 or None; received 0",
        ),
        (
            {"global_batch_size": 8, "num_epochs": 0},
            ValueError,
            r"`num_epochs` must be an int >= 1 or None; received 0",
        ),
        (
            {"global_batch_size": 8, "devices": ["/cpu:7"]},
            ValueError,
            r"'/cpu:7', which does not exist",
        ),
    ],
    ids=[
        "indivisible",
        "too_small",
        "zero",
        "float",
        "remainder",
        "shuffle",
        "epochs",
        "device",
    ],
)
def test_bad_arguments_fail_before_graph(builder, kwargs, error, match):
    kwargs.setdefault("devices", devices_lib.resolve(num_gpus=4))
    with pytest.raises(error, match=match):
        builder(_range_pairs(8), **kwargs)


def test_dataset_fn_errors(builder):
    devices = devices_lib.resolve(num_gpus=2)
    with pytest.raises(TypeError, match=r"`dataset_fn` must be a callable.*received 3"):
        builder(3, devices, global_batch_size=2)
    with tf.Graph().as_default():
        with pytest.raises(
            TypeError, match=r"must return a tf.data.Dataset; it returned list"
        ):
            builder(lambda ctx: [1, 2], devices, global_batch_size=2)()
        sparse = lambda ctx: tf.data.Dataset.from_tensors(tf.sparse.eye(2))  # noqa: E731
        with pytest.raises(
            TypeError,
            match=r"yields a SparseTensorSpec; multi-device input needs dense",
        ):
            builder(sparse, devices, global_batch_size=2)()


def test_eager_call_is_refused(builder):
    input_fn = builder(
        _range_pairs(4), devices_lib.resolve(num_gpus=2), global_batch_size=2
    )
    with pytest.raises(RuntimeError, match=r"must be called inside a tf.Graph"):
        input_fn()


def test_user_batches_refuses_builder_shuffle():
    with pytest.raises(
        ValueError, match=r"With user_batches=True.*shuffle_buffer_size=8"
    ):
        emg.inputs.sharded_input_fn(
            _range_pairs(4),
            ["/cpu:0"],
            global_batch_size=2,
            user_batches=True,
            shuffle_buffer_size=8,
        )
