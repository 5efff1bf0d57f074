"""CIFAR augmentation and normalisation, per example (legacy) and vectorised (tf.data)."""

from __future__ import annotations

import tensorflow as tf

from cifar10 import data

PAD = 4
# Per-channel pixel mean and standard deviation of the CIFAR-10 training set.
MEAN = (125.3, 123.0, 113.9)
STD = (63.0, 62.1, 66.7)


def normalize(images: tf.Tensor) -> tf.Tensor:
    """Per-channel normalisation of uint8 or float `[..., 32, 32, 3]` to float32."""
    images = tf.cast(images, tf.float32)
    return (images - tf.constant(MEAN)) * tf.constant([1.0 / s for s in STD])


def split_records(raw: tf.Tensor, label_offset: int, label_bytes: int):
    """Splits uint8 records `[..., label_bytes + 3072]` into images and labels.

    Returns:
      images: uint8 `[..., 32, 32, 3]`; labels: int32 `[...]`.
    """
    label = tf.cast(raw[..., label_offset], tf.int32)
    pixels = raw[..., label_bytes:]
    shape = tf.concat(
        [tf.shape(pixels)[:-1], [data.CHANNELS, data.HEIGHT, data.WIDTH]], axis=0
    )
    chw = tf.reshape(pixels, shape)
    rank = len(raw.shape) - 1
    perm = list(range(rank)) + [rank + 1, rank + 2, rank]
    return tf.transpose(chw, perm), label


def decode_record(record: tf.Tensor, label_offset: int, label_bytes: int):
    """Decodes raw records (a string scalar or `[batch]`); see `split_records`."""
    raw = tf.io.decode_raw(record, tf.uint8)
    return split_records(raw, label_offset, label_bytes)


def augment_example(image: tf.Tensor) -> tf.Tensor:
    """The TF1-tutorial way: pad 4, random 32x32 crop, random flip, one image.

    Args:
      image: `[32, 32, 3]`.

    Returns:
      `[32, 32, 3]`, same dtype.
    """
    size = data.HEIGHT + 2 * PAD
    padded = tf.image.resize_with_crop_or_pad(image, size, size)
    cropped = tf.image.random_crop(padded, [data.HEIGHT, data.WIDTH, data.CHANNELS])
    return tf.image.random_flip_left_right(cropped)


def augment_batch(images: tf.Tensor, seed: tf.Tensor) -> tf.Tensor:
    """Pad 4, random crop and random flip, drawn per example, in two gathers.

    The draws are stateless: the same `seed` gives the same crops and flips,
    however many threads run the pipeline.

    Args:
      images: `[batch, 32, 32, 3]`, any dtype.
      seed: int32 or int64 `[2]`, the stateless seed of this batch.

    Returns:
      `[batch, 32, 32, 3]`, same dtype.
    """
    batch = tf.shape(images)[0]
    padded = tf.pad(images, [[0, 0], [PAD, PAD], [PAD, PAD], [0, 0]])
    draws = tf.random.stateless_uniform(
        [batch, 2], seed, minval=0, maxval=2 * PAD + 1, dtype=tf.int32
    )
    flip = _coin(batch, seed)
    steps = tf.range(data.HEIGHT)
    rows = draws[:, :1] + steps
    cols = draws[:, 1:] + tf.where(flip, data.WIDTH - 1 - steps, steps)
    out = tf.gather(padded, rows, axis=1, batch_dims=1)
    return tf.gather(out, cols, axis=2, batch_dims=1)


def _coin(batch: tf.Tensor, seed: tf.Tensor) -> tf.Tensor:
    """bool `[batch, 1]`, each True with probability 1/2."""
    seed = tf.cast(seed, tf.int64) + tf.constant([0, 1], tf.int64)
    return tf.random.stateless_uniform([batch, 1], seed, maxval=2, dtype=tf.int32) > 0
