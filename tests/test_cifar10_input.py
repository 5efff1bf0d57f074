"""Tests for the CIFAR inputs: legacy queue vs tf.data, sharding, augmentation."""

import numpy as np
import pytest
import tensorflow as tf

from cifar10 import augment, data, generate, legacy_input
from cifar10 import input as input_lib
from estimator_multigpu import _sharding
from estimator_multigpu.inputs._context import InputContext


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("tiny"))
    generate.generate(out, train_examples=30, test_examples=21, seed=4)
    return out


def _drain(fetches):
    """Runs `fetches` in a MonitoredSession until the input ends."""
    out = []
    with tf.compat.v1.train.MonitoredSession() as sess:
        while not sess.should_stop():
            out.append(sess.run(fetches))
    return out


def _legacy(tiny, split, batch):
    with tf.Graph().as_default():
        images, labels = legacy_input.inputs(
            tiny,
            batch,
            split,
            augment_images=False,
            shuffle=False,
            num_threads=1,
            num_epochs=1,
        )
        return _drain((images, labels))


def _context(batch, seed):
    return InputContext(
        num_shards=1,
        shard_index=0,
        device="/cpu:0",
        per_device_batch_size=batch,
        global_batch_size=batch,
        num_devices=1,
        seed=seed,
    )


def _tfdata(tiny, split, batch):
    files = data.filenames(tiny, "cifar10", split)
    fn = input_lib.make_dataset_fn(
        files, augment_images=False, shuffle=False, num_epochs=1
    )
    with tf.Graph().as_default():
        dataset = fn(_context(batch, seed=1))
        images, labels = tf.compat.v1.data.make_one_shot_iterator(dataset).get_next()
        return _drain((images, labels))


@pytest.mark.tf_compat
@pytest.mark.parametrize("split", ["train", "test"])
def test_legacy_and_tfdata_yield_identical_batches(tiny, split):
    legacy, tfdata = _legacy(tiny, split, 8), _tfdata(tiny, split, 8)
    assert [len(b[1]) for b in legacy] == [len(b[1]) for b in tfdata]
    for (li, ll), (ti, tl) in zip(legacy, tfdata):
        np.testing.assert_array_equal(ll, tl)
        np.testing.assert_allclose(li, ti, rtol=0, atol=1e-5)


def test_tfdata_matches_numpy_decoding(tiny):
    images, labels = data.read_numpy(data.filenames(tiny, "cifar10", "test"), "cifar10")
    batches = _tfdata(tiny, "test", 21)
    np.testing.assert_array_equal(batches[0][1], labels)
    expected = (images - np.array(augment.MEAN)) / np.array(augment.STD)
    np.testing.assert_allclose(batches[0][0], expected, atol=1e-4)


def test_input_fn_sees_every_example_once_per_epoch(tiny, device_list):
    images, labels = data.read_numpy(data.filenames(tiny, "cifar10", "test"), "cifar10")
    input_fn = input_lib.input_fn(tiny, 4 * len(device_list), "test", device_list)
    with tf.Graph().as_default():
        features, targets = input_fn()
        steps = _drain((list(features.values), list(targets.values)))
    seen = np.concatenate([lab for _, shards in steps for lab in shards])
    pixels = np.concatenate([img for shards, _ in steps for img in shards])
    assert pixels.dtype == np.uint8  # Normalised on the device by the model_fn.
    order = np.argsort([p.tobytes() for p in pixels])
    want = np.argsort([p.tobytes() for p in images])
    np.testing.assert_array_equal(pixels[order], images[want])
    np.testing.assert_array_equal(seen[order], labels[want])


def test_input_fn_can_normalise_on_the_host(tiny):
    input_fn = input_lib.input_fn(tiny, 8, "test", ["/cpu:0"], normalize=True)
    with tf.Graph().as_default():
        features, _ = input_fn()
        assert features.values[0].dtype == tf.float32


def _epochs(tiny, seed, count=2):
    files = data.filenames(tiny, "cifar10", "train")
    fn = input_lib.make_dataset_fn(files, augment_images=False, num_epochs=count)
    with tf.Graph().as_default():
        dataset = fn(_context(30, seed=seed))
        return [
            labels
            for _, labels in _drain(
                tf.compat.v1.data.make_one_shot_iterator(dataset).get_next()
            )
        ]


def test_shuffle_is_a_new_permutation_each_epoch_and_seeded(tiny):
    _, labels = data.read_numpy(data.filenames(tiny, "cifar10", "train"), "cifar10")
    first, second = _epochs(tiny, seed=7)
    assert sorted(first) == sorted(second) == sorted(labels)
    assert list(first) != list(second) and list(first) != list(labels)
    np.testing.assert_array_equal(_epochs(tiny, seed=7)[0], first)
    assert list(_epochs(tiny, seed=8)[0]) != list(first)


def _crops(image):
    """All 81 crops of the 4-padded image and their mirror images."""
    padded = np.pad(image, [(4, 4), (4, 4), (0, 0)])
    crops = [padded[y : y + 32, x : x + 32] for y in range(9) for x in range(9)]
    return crops + [c[:, ::-1] for c in crops]


def _is_crop(result, image):
    return any(np.array_equal(result, c) for c in _crops(image))


def test_augment_batch_crops_and_flips_per_example():
    images = np.random.default_rng(0).integers(0, 255, (16, 32, 32, 3), dtype=np.uint8)
    batch = np.repeat(images[:1], 16, axis=0)
    out = augment.augment_batch(tf.constant(batch), tf.constant([3, 4])).numpy()
    assert all(_is_crop(o, images[0]) for o in out)
    assert len({o.tobytes() for o in out}) > 8  # Per-example draws.
    again = augment.augment_batch(tf.constant(batch), tf.constant([3, 4])).numpy()
    np.testing.assert_array_equal(out, again)


def test_augment_batch_flips_about_half():
    batch = tf.constant(
        np.arange(32, dtype=np.uint8).reshape(1, 1, 32, 1)
        * np.ones((2000, 32, 1, 3), np.uint8)
    )
    out = augment.augment_batch(batch, tf.constant([1, 2])).numpy()
    flipped = (np.diff(out[:, 4:28].astype(int), axis=2)[:, 0, 10, 0] < 0).mean()
    assert 0.4 < flipped < 0.6


def test_legacy_augmentation_is_a_crop():
    image = np.random.default_rng(1).integers(0, 255, (32, 32, 3), dtype=np.uint8)
    out = augment.augment_example(tf.constant(image)).numpy()
    assert _is_crop(out, image)


def test_bad_label_fails_before_the_graph(tiny):
    with pytest.raises(ValueError, match=r"`label` 'fine' does not exist in cifar10"):
        input_lib.input_fn(tiny, 8, label="fine")


@pytest.mark.parametrize("remainder", ["error", "drop"])
def test_bad_batch_for_devices(tiny, remainder):
    with pytest.raises(
        ValueError, match=r"`global_batch_size` \(9\) must be divisible"
    ):
        input_lib.input_fn(tiny, 9, devices=["/cpu:0", "/cpu:1"], remainder=remainder)


def test_a_batch_that_does_not_divide_is_split_unevenly_by_default(tiny):
    input_fn = input_lib.input_fn(tiny, 9, devices=["/cpu:0", "/cpu:1"])
    with tf.Graph().as_default():
        images, _ = input_fn()
        sizes = [int(t.shape[0]) if t.shape[0] is not None else None for t in images]
    assert sizes in ([5, 4], [None, None]), sizes


@pytest.mark.parametrize("batch", [0, -3], ids=["zero", "negative"])
def test_legacy_bad_batch(tiny, batch):
    with (
        tf.Graph().as_default(),
        pytest.raises(ValueError, match=rf"`batch_size` \({batch}\)"),
    ):
        legacy_input.inputs(tiny, batch)


@pytest.mark.parametrize(
    "global_batch_size, num_shards", [(8, 2), (7, 2), (9, 4), (3, 4)]
)
def test_shards_follow_the_library_rule(global_batch_size, num_shards):
    """The CIFAR shards are the ones `emg.inputs` takes: blocks, not every n-th."""
    total = 23
    sizes = _sharding.split_sizes(global_batch_size, num_shards, "uneven")
    for index in range(num_shards):
        ctx = InputContext(
            num_shards=num_shards,
            shard_index=index,
            device="/cpu:0",
            per_device_batch_size=sizes[index],
            global_batch_size=global_batch_size,
            num_devices=num_shards,
            seed=None,
        )
        plan = _sharding.Shard(
            num_shards=num_shards, shard_index=index, per_device_batch_size=sizes[index]
        )
        offset = sum(sizes[:index])
        expected = _sharding.shard_by_blocks(
            tf.data.Dataset.range(total), plan, global_batch_size, offset
        )
        got = input_lib._shard_indices(total, ctx).numpy()
        np.testing.assert_array_equal(got, list(expected.as_numpy_iterator()))
