"""The "after": a tf.data input on `emg.inputs.sharded_input_fn`, augmented per batch.

Each device's shard of the records is read once into memory (as uint8
images, never as a graph constant); every step gathers a batch of shuffled
indices from it and crops and flips the whole batch in a few vectorised ops
(normalisation is left to the model on its device unless asked for). The
augmentation is stateless, seeded per batch, so the same seed gives the same
batches however many threads run the map.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import tensorflow as tf

from cifar10 import augment, data
from estimator_multigpu import inputs

FOREVER = 2**62


def _shard_indices(total: int, ctx) -> tf.Tensor:
    """The record indices of shard `ctx.shard_index`, as `emg.inputs` shards them.

    The shard's slice of each block of `global_batch_size` records
    (`ctx.in_shard`), so a step's shards, concatenated in device order, are
    consecutive records.
    """
    index = tf.range(total)
    return tf.boolean_mask(index, ctx.in_shard(index))


def _store(
    files: Sequence[str], dataset: str, label: str | None, ctx
) -> tf.data.Dataset:
    """One cached element: this shard's images uint8 `[m, 32, 32, 3]`, labels `[m]`."""
    spec = data.layout(dataset)
    offset, _ = data.label_spec(dataset, label)
    total = data.num_examples(list(files), dataset)

    def load(_):
        raw = tf.concat(
            [tf.io.decode_raw(tf.io.read_file(path), tf.uint8) for path in files], 0
        )
        records = tf.reshape(raw, [-1, spec.record_bytes])
        records = tf.gather(records, _shard_indices(total, ctx))
        return augment.split_records(records, offset, spec.label_bytes)

    return tf.data.Dataset.range(1).map(load).cache()


def _index_batches(count: tf.Tensor, ctx, shuffle: bool, num_epochs, seed: int):
    """Batches of `ctx.per_device_batch_size` indices into the shard, per epoch."""

    def epoch(e):
        order = tf.range(count)
        if shuffle:
            order = tf.random.experimental.stateless_shuffle(order, tf.stack([seed, e]))
        return tf.data.Dataset.from_tensor_slices(order)

    epochs = tf.data.Dataset.range(num_epochs or FOREVER)
    return epochs.flat_map(epoch).batch(ctx.per_device_batch_size)


def make_dataset_fn(
    files: Sequence[str],
    dataset: str = "cifar10",
    label: str | None = None,
    augment_images: bool = True,
    shuffle: bool = True,
    num_epochs: int | None = None,
    seed: int | None = None,
    normalize: bool = True,
):
    """Returns `dataset_fn(ctx)` for `sharded_input_fn(..., user_batches=True)`.

    Args:
      files: validated files from `data.filenames`.
      dataset: `'cifar10'` or `'cifar100'`.
      label: `'fine'` or `'coarse'` for CIFAR-100.
      augment_images: random crop after 4-pixel padding and random flip.
      shuffle: a new random order of the shard every epoch.
      num_epochs: passes over the data; None: forever.
      seed: the input seed (ctx.seed, derived per shard, wins when set).
      normalize: yield float32 images normalised per channel; False yields
        the augmented uint8 pixels, a quarter of the bytes to copy, for the
        model to normalise on its device (`augment.normalize`).

    Returns:
      A function of an `emg.inputs.InputContext` returning batches of
      `(images [b, 32, 32, 3], labels int32 [b])`, `b` at most
      `ctx.per_device_batch_size`; images float32 or (normalize=False) uint8.
    """

    data.label_spec(dataset, label)  # Raises now for a bad label.

    def dataset_fn(ctx):
        shard_seed = ctx.seed if ctx.seed is not None else seed
        if shard_seed is None:
            shard_seed = random.randrange(2**31)
        store = _store(files, dataset, label, ctx)
        count = tf.shape(_shard_indices(data.num_examples(list(files), dataset), ctx))[
            0
        ]
        batches = _index_batches(count, ctx, shuffle, num_epochs, shard_seed)
        steps = tf.data.Dataset.zip((batches.enumerate(), store.repeat()))

        def make(step_and_indices, stored):
            (step, indices), (images, labels) = step_and_indices, stored
            images = tf.gather(images, indices)
            if augment_images:
                images = augment.augment_batch(images, tf.stack([shard_seed, step]))
            if normalize:
                images = augment.normalize(images)
            return images, tf.gather(labels, indices)

        return steps.map(make, num_parallel_calls=tf.data.AUTOTUNE).prefetch(2)

    return dataset_fn


def input_fn(
    data_dir: str,
    global_batch_size: int,
    split: str = "train",
    devices: Sequence[str] | None = None,
    dataset: str = "cifar10",
    label: str | None = None,
    num_epochs: int | None = None,
    seed: int | None = None,
    remainder: str = "uneven",
    normalize: bool = False,
):
    """The Estimator input_fn: shuffled, augmented, repeated for `'train'`.

    The test split is read once, in file order, without augmentation. By
    default the images stay uint8 and the model_fn normalises them on its
    device: per-channel arithmetic on float32 is the costliest step of the
    host pipeline, and uint8 batches are a quarter of the bytes to copy.

    Args:
      data_dir: see `data.filenames`.
      global_batch_size: examples per step over all devices.
      split: `'train'` or `'test'`.
      devices: the devices to feed (default: all).
      dataset: `'cifar10'` or `'cifar100'`.
      label: `'fine'` or `'coarse'` for CIFAR-100.
      num_epochs: passes over the training data (None: forever); the test
        split is always read once.
      seed: one seed for shuffling and augmentation.
      remainder: `'uneven'` (the default), `'drop'` or `'error'`, as the
        library's input builders take it.
      normalize: yield normalised float32 images instead of uint8 pixels.

    Returns:
      `input_fn(params=None, config=None, mode=None)` returning `(images
      [b, 32, 32, 3] uint8 or float32, labels int32 [b])` as `emg.PerDevice`
      values.

    Raises:
      ValueError: for bad files or arguments, before any graph is built.
    """
    files = data.filenames(data_dir, dataset, split)
    training = split == "train"
    dataset_fn = make_dataset_fn(
        files,
        dataset,
        label,
        augment_images=training,
        shuffle=training,
        num_epochs=num_epochs if training else 1,
        seed=seed,
        normalize=normalize,
    )
    return inputs.sharded_input_fn(
        dataset_fn,
        devices,
        global_batch_size=global_batch_size,
        remainder=remainder,
        seed=seed,
        user_batches=True,
    )
