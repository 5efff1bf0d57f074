"""The "before": a TF1-tutorial queue input (FixedLengthRecordReader, shuffle_batch).

Kept as the reference the tf.data input (`cifar10/input.py`) replaces. It runs
in graph mode on any TF 2.x through `tf.compat.v1`; its queue runners are
started by `MonitoredTrainingSession` (or `tf.compat.v1.train.start_queue_runners`).
"""

from __future__ import annotations

import tensorflow as tf

from cifar10 import augment, data

MIN_FRACTION_OF_EXAMPLES_IN_QUEUE = 0.4


def _read_example(filename_queue, dataset: str, label: str | None):
    """Reads and decodes one record: uint8 `[32, 32, 3]`, int32 scalar."""
    spec = data.layout(dataset)
    offset, _ = data.label_spec(dataset, label)
    reader = tf.compat.v1.FixedLengthRecordReader(record_bytes=spec.record_bytes)
    _, value = reader.read(filename_queue)
    return augment.decode_record(value, offset, spec.label_bytes)


def inputs(
    data_dir: str,
    batch_size: int,
    split: str = "train",
    dataset: str = "cifar10",
    label: str | None = None,
    augment_images: bool = True,
    shuffle: bool = True,
    num_threads: int = 16,
    num_epochs: int | None = None,
    seed: int | None = None,
):
    """Builds the queue pipeline in the current graph.

    Args:
      data_dir: see `data.filenames`.
      batch_size: examples per batch (global: the towers split it).
      split: `'train'` or `'test'`.
      dataset: `'cifar10'` or `'cifar100'`.
      label: `'fine'` or `'coarse'` for CIFAR-100.
      augment_images: random crop after 4-pixel padding and random flip.
      shuffle: shuffle the files and use `shuffle_batch` (else `batch`, in
        file order when `num_threads` is 1).
      num_threads: threads that read, decode and augment examples.
      num_epochs: passes over the files (None: forever); with a count, the
        last batch may be smaller.
      seed: graph-level seed for the queues and augmentation.

    Returns:
      images: float32 `[batch_size, 32, 32, 3]`, normalised per channel.
      labels: int32 `[batch_size]`.

    Raises:
      ValueError: for bad files or arguments, before any op is created.
    """
    files = data.filenames(data_dir, dataset, split)
    if batch_size < 1 or num_threads < 1:
        raise ValueError(
            f"`batch_size` ({batch_size}) and `num_threads` ({num_threads}) must "
            "be >= 1."
        )
    if seed is not None:
        tf.compat.v1.set_random_seed(seed)
    producer = tf.compat.v1.train.string_input_producer(
        files, num_epochs=num_epochs, shuffle=shuffle
    )
    image, label_ = _read_example(producer, dataset, label)
    if augment_images:
        image = augment.augment_example(image)
    image = augment.normalize(image)
    image.set_shape([data.HEIGHT, data.WIDTH, data.CHANNELS])
    return _batch(
        image, label_, batch_size, shuffle, num_threads, num_epochs, files, dataset
    )


def _batch(image, label, batch_size, shuffle, num_threads, num_epochs, files, dataset):
    """Queues examples into batches, as the TF1 CIFAR-10 tutorial did."""
    per_epoch = data.num_examples(files, dataset)
    min_after_dequeue = int(per_epoch * MIN_FRACTION_OF_EXAMPLES_IN_QUEUE)
    capacity = min_after_dequeue + 3 * batch_size
    final = num_epochs is not None
    if shuffle:
        return tf.compat.v1.train.shuffle_batch(
            [image, label],
            batch_size=batch_size,
            num_threads=num_threads,
            capacity=capacity,
            min_after_dequeue=min_after_dequeue,
            allow_smaller_final_batch=final,
        )
    return tf.compat.v1.train.batch(
        [image, label],
        batch_size=batch_size,
        num_threads=num_threads,
        capacity=capacity,
        allow_smaller_final_batch=final,
    )
