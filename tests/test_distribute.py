"""Tests for emg.distribute: per-replica dataset_fns and global-batch checks."""

import collections

import numpy as np
import pytest
import tensorflow as tf

import estimator_multigpu.distribute as ed

pytestmark = pytest.mark.tf_compat


MODES = {
    "per_worker": {},
    "per_replica": {"replication_mode": "per_replica"},
    "on_device": {"replication_mode": "per_replica", "place_dataset_on_device": True},
}


def _examples(n):
    """`dataset_fn` of n examples `(id, 10 * id)`, ignoring its context."""
    return lambda ctx: tf.data.Dataset.range(n).map(lambda i: (i, 10 * i))


def _epoch_ids(dataset, strategy):
    """Iterates one pass; returns the ids each replica saw, by replica."""
    seen = collections.defaultdict(list)
    for ids, tens in dataset:
        for replica, (a, b) in enumerate(
            zip(
                strategy.experimental_local_results(ids),
                strategy.experimental_local_results(tens),
            )
        ):
            np.testing.assert_array_equal(b.numpy(), 10 * a.numpy())
            seen[replica].extend(a.numpy().tolist())
    return dict(seen)


def _distribute(strategy, mode, n=22, **kwargs):
    options = ed.input_options(strategy, **MODES[mode])
    kwargs.setdefault("global_batch_size", 8)
    return ed.distribute_dataset_fn(_examples(n), strategy, options=options, **kwargs)


@pytest.mark.parametrize("mode", sorted(MODES), ids=sorted(MODES))
@pytest.mark.parametrize("shuffle", [None, 16], ids=["ordered", "shuffled"])
def test_each_example_reaches_one_replica_once(strategy, mode, shuffle):
    dataset = _distribute(strategy, mode, shuffle_buffer_size=shuffle, seed=7)
    seen = _epoch_ids(dataset, strategy)
    assert sorted(seen) == [0, 1]
    assert sorted(seen[0] + seen[1]) == list(range(22))


@pytest.mark.parametrize("mode", ["per_replica", "on_device"])
def test_per_replica_pipelines_read_disjoint_shards(strategy, mode):
    seen = _epoch_ids(_distribute(strategy, mode, shuffle_buffer_size=8), strategy)
    assert sorted(seen[0]) == list(range(0, 22, 2))
    assert sorted(seen[1]) == list(range(1, 22, 2))


def test_custom_training_loop_sees_each_example_once(strategy):
    dataset = _distribute(strategy, "per_replica", n=24, shuffle_buffer_size=24)
    iterator = iter(dataset)

    @tf.function
    def step(batch):
        return strategy.run(lambda ids, tens: ids + tens - 10 * ids, args=batch)

    ids = [strategy.experimental_local_results(step(next(iterator))) for _ in range(3)]
    flat = [i for per_step in ids for t in per_step for i in t.numpy().tolist()]
    assert sorted(flat) == list(range(24))


@pytest.mark.parametrize("mode", sorted(MODES), ids=sorted(MODES))
def test_batches_arrive_on_their_replica_device(strategy, mode):
    ids, _ = next(iter(_distribute(strategy, mode)))
    devices = [t.device for t in strategy.experimental_local_results(ids)]
    assert devices[0].endswith("CPU:0") and devices[1].endswith("CPU:1")


def _recorded_contexts(strategy, mode, seed=3):
    contexts = []

    def dataset_fn(ctx):
        contexts.append((ctx, tf.identity(0).device))
        return tf.data.Dataset.range(8)

    options = ed.input_options(strategy, **MODES[mode])
    ed.distribute_dataset_fn(
        dataset_fn, strategy, global_batch_size=8, options=options, seed=seed
    )
    return contexts


def test_per_worker_pipeline_runs_on_host_and_feeds_all_replicas(strategy):
    [(ctx, op_device)] = _recorded_contexts(strategy, "per_worker")
    assert (ctx.num_shards, ctx.shard_index, ctx.per_replica_batch_size) == (1, 0, 4)
    assert ctx.devices == tuple(strategy.extended.worker_devices)
    assert ctx.device.endswith("CPU:0") and op_device.endswith("CPU:0")


@pytest.mark.parametrize(
    "mode,devices",
    [("per_replica", ["CPU:0", "CPU:0"]), ("on_device", ["CPU:0", "CPU:1"])],
    ids=["host", "on_device"],
)
def test_pipeline_id_maps_to_its_replica_device(strategy, mode, devices):
    contexts = _recorded_contexts(strategy, mode)
    assert [ctx.shard_index for ctx, _ in contexts] == [0, 1]
    for (ctx, op_device), replica, device in zip(
        contexts, strategy.extended.worker_devices, devices
    ):
        assert ctx.devices == (replica,)
        assert ctx.num_shards == 2 and ctx.per_device_batch_size == 4
        assert ctx.device.endswith(device) and op_device.endswith(device)


def test_pipeline_seeds_differ_and_follow_the_one_seed(strategy):
    first = [ctx.seed for ctx, _ in _recorded_contexts(strategy, "per_replica", 3)]
    again = [ctx.seed for ctx, _ in _recorded_contexts(strategy, "per_replica", 3)]
    other = [ctx.seed for ctx, _ in _recorded_contexts(strategy, "per_replica", 4)]
    assert first == again and len(set(first)) == 2 and first != other


@pytest.mark.parametrize("seed,same", [(5, True), (6, False)], ids=["same", "other"])
def test_shuffle_order_follows_the_seed(strategy, seed, same):
    def order(s):
        kwargs = {"shuffle_buffer_size": 22, "seed": s}
        return _epoch_ids(_distribute(strategy, "per_replica", **kwargs), strategy)

    assert (order(5) == order(seed)) is same


def test_user_shards_are_not_sharded_again(strategy):
    def dataset_fn(ctx):
        files = tf.data.Dataset.range(4).shard(ctx.num_shards, ctx.shard_index)
        return files.flat_map(lambda f: tf.data.Dataset.range(5 * f, 5 * f + 5))

    dataset = ed.distribute_dataset_fn(
        lambda ctx: dataset_fn(ctx).map(lambda i: (i, 10 * i)),
        strategy,
        global_batch_size=4,
        options=ed.input_options(replication_mode="per_replica"),
        user_shards=True,
    )
    seen = _epoch_ids(dataset, strategy)
    assert sorted(seen[0] + seen[1]) == list(range(20))


def test_user_batches_pass_through(strategy):
    def dataset_fn(ctx):
        return _examples(16)(ctx).shard(2, ctx.shard_index).batch(4)

    dataset = ed.distribute_dataset_fn(
        dataset_fn,
        strategy,
        global_batch_size=8,
        options=ed.input_options(replication_mode="per_replica"),
        user_batches=True,
    )
    seen = _epoch_ids(dataset, strategy)
    assert seen[0] == [0, 2, 4, 6, 8, 10, 12, 14]


def test_drop_remainder_gives_static_batches(strategy):
    fn = ed.per_replica_dataset_fn(
        _examples(22), strategy, global_batch_size=8, drop_remainder=True
    )
    dataset = fn(tf.distribute.InputContext(1, 0, 2))
    assert dataset.element_spec[0].shape.as_list() == [4]


def test_per_worker_after_per_replica_still_reads_each_example_once(strategy):
    # A MirroredStrategy keeps one pipeline per replica once it was given
    # 'per_replica'; the contexts must follow TF's pipelines, not the options.
    fresh = strategy
    _distribute(fresh, "per_replica")
    contexts = _recorded_contexts(fresh, "per_worker")
    assert [ctx.devices for ctx, _ in contexts] == [
        (d,) for d in fresh.extended.worker_devices
    ]
    seen = _epoch_ids(_distribute(fresh, "per_worker", shuffle_buffer_size=4), fresh)
    assert sorted(seen[0] + seen[1]) == list(range(22))
