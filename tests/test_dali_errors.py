"""emg.distribute.dali: errors for pipelines that do not fit their replica."""

import pytest
import tensorflow as tf

pytest.importorskip("nvidia.dali.plugin.tf")

from nvidia.dali import fn, pipeline_def, types  # noqa: E402

from estimator_multigpu.distribute import dali as emg_dali  # noqa: E402

pytestmark = pytest.mark.dali


@pipeline_def(output_dtype=[types.FLOAT], output_ndim=[1])
def declared(shard_id, num_shards):
    return fn.random.uniform(shape=[3])


@pipeline_def
def undeclared(shard_id, num_shards):
    return fn.random.uniform(shape=[3])


def _pipeline_fn(definition=declared, **overrides):
    def pipeline_fn(ctx):
        kwargs = dict(
            batch_size=ctx.per_device_batch_size,
            num_threads=1,
            device_id=ctx.device_id,
        )
        kwargs.update(overrides)
        return definition(shard_id=ctx.shard_id, num_shards=ctx.num_shards, **kwargs)

    return pipeline_fn


def _call(pipeline_fn, strategy, **kwargs):
    dataset_fn = emg_dali.dali_dataset_fn(
        pipeline_fn, strategy, global_batch_size=4, **kwargs
    )
    return dataset_fn(tf.distribute.InputContext(2, 1, 2))


@pytest.mark.parametrize(
    "pipeline_fn,kwargs,error,match",
    [
        (
            _pipeline_fn(device_id=0),
            {},
            ValueError,
            r"DALI pipeline with device_id=0 for replica 1 on .*CPU:1, whose DALI "
            r"device_id is None\. Pass device_id=ctx.device_id",
        ),
        (
            _pipeline_fn(batch_size=4),
            {},
            ValueError,
            r"batch size 4, but each replica takes 2 \(global batch 4 / 2 "
            r"replicas\)\. Pass batch_size=ctx.per_device_batch_size",
        ),
        (
            _pipeline_fn(undeclared),
            {},
            ValueError,
            r"does not declare the type and rank of every output.*output_ndim=",
        ),
        (
            _pipeline_fn(),
            {"sample_shapes": [[3, 1]]},
            ValueError,
            r"`sample_shapes` \[\[3, 1\]\] has ranks \[2\], but the pipeline "
            r"declares output_ndim=\[1\]",
        ),
        (
            lambda ctx: "pipeline",
            {},
            TypeError,
            r"must return an nvidia.dali.Pipeline; received str for replica 1",
        ),
    ],
    ids=["device_id", "batch_size", "undeclared", "sample_rank", "not_a_pipeline"],
)
def test_pipeline_errors(strategy, pipeline_fn, kwargs, error, match):
    with pytest.raises(error, match=match):
        _call(pipeline_fn, strategy, **kwargs)


def test_valid_pipeline_gives_a_dataset(strategy):
    [(batch,)] = _call(_pipeline_fn(), strategy, sample_shapes=[[3]]).take(1)
    assert batch.shape.as_list() == [2, 3] and batch.dtype == tf.float32


def test_global_batch_must_divide(strategy):
    with pytest.raises(
        ValueError,
        match=r"`global_batch_size` \(5\) must be divisible by "
        r"`num_replicas_in_sync` \(2\).*Pass 4 or 6",
    ):
        emg_dali.dali_dataset_fn(_pipeline_fn(), strategy, global_batch_size=5)


def test_needs_a_mirrored_strategy():
    with pytest.raises(TypeError, match=r"needs a tf.distribute.MirroredStrategy"):
        emg_dali.dali_dataset_fn(
            _pipeline_fn(),
            tf.distribute.OneDeviceStrategy("/cpu:0"),
            global_batch_size=4,
        )


def test_needs_one_pipeline_per_replica(strategy):
    dataset_fn = emg_dali.dali_dataset_fn(_pipeline_fn(), strategy, global_batch_size=4)
    with pytest.raises(
        ValueError,
        match=r"runs 1 input pipeline\(s\) for 2 replicas.*"
        r"dali_input_options\(\)",
    ):
        strategy.distribute_datasets_from_function(dataset_fn)


def test_input_options_run_each_pipeline_on_its_replica():
    options = emg_dali.dali_input_options()
    assert options.experimental_replication_mode.name == "PER_REPLICA"
    assert options.experimental_place_dataset_on_device
    assert not options.experimental_fetch_to_device


@pytest.mark.parametrize(
    "logical,layout,expected",
    [
        (0, [(0, 2), (1, 2)], 0),
        (1, [(0, 2), (1, 2)], 0),
        (2, [(0, 2), (1, 2)], 1),
        (0, [(3, 1)], 3),
        (1, [(1, 1), (2, 1)], 2),
    ],
    ids=["first", "split_first", "second_physical", "visible_subset", "one_each"],
)
def test_cuda_ordinal_of_logical_gpus(logical, layout, expected):
    assert emg_dali.cuda_ordinal(logical, layout) == expected


def test_cuda_ordinal_of_a_missing_gpu():
    with pytest.raises(ValueError, match=r"There is no /gpu:4: this process has 4 "):
        emg_dali.cuda_ordinal(4, [(0, 2), (1, 2)])


@pytest.mark.parametrize(
    "device", ["/cpu:1", "/job:localhost/replica:0/task:0/device:CPU:0"]
)
def test_cpu_replicas_get_cpu_only_pipelines(device):
    assert emg_dali.dali_device_id(device) is None


@pytest.mark.parametrize(
    "epoch_size,global_batch_size,replicas,expected",
    [(24, 4, 2, 6), (25, 4, 2, 6), (23, 4, 2, 5), (10, 4, 4, 2)],
)
def test_steps_per_epoch(epoch_size, global_batch_size, replicas, expected):
    assert emg_dali.steps_per_epoch(epoch_size, global_batch_size, replicas) == expected
