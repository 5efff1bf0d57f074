"""emg.distribute.dali: CPU-only DALI pipelines on 2 logical CPU replicas."""

import collections

import numpy as np
import pytest
import tensorflow as tf

pytest.importorskip("nvidia.dali.plugin.tf")

from nvidia.dali import fn, pipeline_def, types  # noqa: E402

from estimator_multigpu.distribute import dali as emg_dali  # noqa: E402

pytestmark = pytest.mark.dali


NUM_IMAGES = 24  # 2 classes of 12, dark and bright; image i is uniform grey.


def _grey(i):
    """Image i's grey level: 8 * i in class 0, 255 - 8 * (i - 12) in class 1."""
    return 8 * i if i < 12 else 255 - 8 * (i - 12)


def _ids(images, labels):
    """Recovers image ids from decoded grey levels and labels."""
    grey = images.reshape(len(images), -1).mean(axis=1)
    return np.where(labels == 0, np.round(grey / 8), 12 + np.round((255 - grey) / 8))


SHAPES = [[8, 8, 1], [1]]


@pytest.fixture(scope="module")
def image_dir(tmp_path_factory):
    """A `file_root` of generated JPEGs: `<class>/<id>.jpg`, sizes 8 to 10."""
    root = tmp_path_factory.mktemp("jpegs")
    for i in range(NUM_IMAGES):
        (root / str(i // 12)).mkdir(exist_ok=True)
        side = 8 + i % 3
        image = np.full((side, side, 1), _grey(i), np.uint8)
        tf.io.write_file(
            str(root / str(i // 12) / f"{i:03d}.jpg"), tf.io.encode_jpeg(image)
        )
    return str(root)


@pipeline_def(output_dtype=[types.UINT8, types.INT32], output_ndim=[3, 1])
def jpeg_pipeline(file_root, shard_id, num_shards, reader_seed):
    jpegs, labels = fn.readers.file(
        file_root=file_root,
        shard_id=shard_id,
        num_shards=num_shards,
        shuffle_after_epoch=reader_seed is not None,
        seed=-1 if reader_seed is None else reader_seed,
        name="Reader",
    )
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.GRAY)
    return fn.resize(images, resize_x=8, resize_y=8), labels


def _pipeline_fn(image_dir, shuffle=False, **overrides):
    def pipeline_fn(ctx):
        kwargs = dict(
            batch_size=ctx.per_device_batch_size,
            num_threads=ctx.num_threads,
            device_id=ctx.device_id,
            seed=ctx.seed,
        )
        kwargs.update(overrides)
        return jpeg_pipeline(
            file_root=image_dir,
            shard_id=ctx.shard_id,
            num_shards=ctx.num_shards,
            reader_seed=ctx.global_seed if shuffle else None,
            **kwargs,
        )

    return pipeline_fn


def _read_epoch(dataset, strategy, steps):
    """Image ids and labels by replica over `steps` steps, and their devices."""
    seen, devices = collections.defaultdict(list), set()
    iterator = iter(dataset)
    for _ in range(steps):
        images, labels = next(iterator)
        for replica, (x, y) in enumerate(
            zip(
                strategy.experimental_local_results(images),
                strategy.experimental_local_results(labels),
            )
        ):
            ids = _ids(x.numpy(), y.numpy().ravel()).astype(int)
            np.testing.assert_array_equal(y.numpy().ravel(), ids // 12)
            seen[replica].extend(ids.tolist())
            devices.add((replica, x.device.rsplit(":", 1)[-1]))
    return seen, devices


@pytest.mark.parametrize("shuffle", [False, True], ids=["ordered", "shuffled"])
def test_replicas_read_disjoint_shards_covering_the_files(strategy, image_dir, shuffle):
    dataset = emg_dali.distribute_dali(
        _pipeline_fn(image_dir, shuffle),
        strategy,
        global_batch_size=4,
        seed=3,
        sample_shapes=SHAPES,
    )
    steps = emg_dali.steps_per_epoch(NUM_IMAGES, 4, 2)
    seen, devices = _read_epoch(dataset, strategy, 2 * steps)
    for epoch in (slice(0, 12), slice(12, 24)):
        first, second = seen[0][epoch], seen[1][epoch]
        assert sorted(first + second) == list(range(NUM_IMAGES))
        if not shuffle:  # DALI shards contiguous blocks of the file list.
            assert sorted(first) in (list(range(12)), list(range(12, 24)))
    if shuffle:  # shuffle_after_epoch: a new permutation each epoch.
        assert seen[0][:12] != seen[0][12:]
    assert devices == {(0, "0"), (1, "1")}


@pytest.mark.parametrize(
    "sample_shapes,image_shape",
    [(None, [2, None, None, None]), (SHAPES, [2, 8, 8, 1])],
    ids=["declared_rank", "static"],
)
def test_signature_comes_from_the_declared_outputs(
    strategy, image_dir, sample_shapes, image_shape
):
    dataset_fn = emg_dali.dali_dataset_fn(
        _pipeline_fn(image_dir),
        strategy,
        global_batch_size=4,
        sample_shapes=sample_shapes,
    )
    images, labels = dataset_fn(tf.distribute.InputContext(2, 1, 2)).element_spec
    assert (images.dtype, images.shape.as_list()) == (tf.uint8, image_shape)
    assert (labels.dtype, labels.shape.rank) == (tf.int32, 2)


def test_keras_fit_trains_on_dali_batches(strategy, image_dir):
    import keras

    keras.utils.set_random_seed(0)
    dataset = emg_dali.distribute_dali(
        _pipeline_fn(image_dir, shuffle=True),
        strategy,
        global_batch_size=8,
        seed=1,
        sample_shapes=SHAPES,
    )
    with strategy.scope():
        model = keras.Sequential(
            [
                keras.Input([8, 8, 1]),
                keras.layers.Rescaling(1 / 127.5, offset=-1),
                keras.layers.Flatten(),
                keras.layers.Dense(2),
            ]
        )
        model.compile(
            keras.optimizers.Adam(0.05),
            keras.losses.SparseCategoricalCrossentropy(from_logits=True),
            metrics=["accuracy"],
        )
    steps = emg_dali.steps_per_epoch(NUM_IMAGES, 8, 2)
    history = model.fit(dataset, epochs=3, steps_per_epoch=steps, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert history.history["accuracy"][-1] >= 0.9


def test_emg_distribute_dali_loads_on_first_use():
    import estimator_multigpu as emg

    assert emg.distribute.dali.distribute_dali is emg_dali.distribute_dali


def test_context_batch_size_is_a_deprecated_alias():
    ctx = emg_dali.DaliReplicaContext(
        shard_id=0,
        num_shards=2,
        device_id=None,
        per_device_batch_size=4,
        seed=None,
        global_seed=None,
        num_threads=1,
        device="/cpu:0",
        global_batch_size=8,
    )
    with pytest.warns(DeprecationWarning, match=r"use ctx.per_device_batch_size"):
        assert ctx.batch_size == 4
