"""TF 1.x's `tensorflow.examples.tutorials.mnist.input_data`, as a drop-in.

Mirrors `read_data_sets` and `DataSet` of TF 1.x's
`tensorflow/contrib/learn/python/learn/datasets/mnist.py` (which the
tutorial's `input_data` re-exported): the same splits, dtypes, scaling,
one-hot labels, epoch and shuffle logic of `next_batch`, and the same seeding
(numpy's global generator, seeded through `tf.compat.v1.get_seed`), so a
TF 1.x script that fed `mnist.train.next_batch(n)` sees the same batches::

    from estimator_multigpu.tutorials import input_data

    mnist = input_data.read_data_sets("/tmp/data/", one_hot=True)
    batch_x, batch_y = mnist.train.next_batch(128)

Unlike TF 1.x it downloads nothing itself: it reads the four idx `.gz` files
from `train_dir`, and when none is there it takes the arrays from
`tf.keras.datasets.mnist.load_data()` (cached under `~/.keras/datasets`).
"""

from __future__ import annotations

import collections

import numpy as np
import tensorflow as tf

from estimator_multigpu.tutorials import _idx

__all__ = [
    "DataSet",
    "Datasets",
    "dense_to_one_hot",
    "extract_images",
    "extract_labels",
    "load_mnist",
    "read_data_sets",
]

Datasets = collections.namedtuple("Datasets", ["train", "validation", "test"])
Datasets.__doc__ = """The three splits `read_data_sets` returns, as in TF 1.x.

Args:
  train: the training `DataSet`.
  validation: the first `validation_size` training examples, a `DataSet`.
  test: the test `DataSet`.
"""


def dense_to_one_hot(labels_dense: np.ndarray, num_classes: int) -> np.ndarray:
    """Class ids `[n]` as one-hot rows `[n, num_classes]` (float64, as TF 1.x)."""
    num_labels = labels_dense.shape[0]
    one_hot = np.zeros((num_labels, num_classes))
    one_hot.flat[np.arange(num_labels) * num_classes + labels_dense.ravel()] = 1
    return one_hot


def extract_images(f) -> np.ndarray:
    """Images `[index, y, x, 1]` uint8 from an idx3 `.gz` file (object or path)."""
    return _idx.read_images(getattr(f, "name", f))


def extract_labels(f, one_hot: bool = False, num_classes: int = 10) -> np.ndarray:
    """Class ids `[index]` uint8 (or one-hot float64 rows) from an idx1 `.gz` file.

    Args:
      f: the file: a path or an open file object with a `name`.
      one_hot: one-hot rows instead of class ids.
      num_classes: the one-hot width.

    Returns:
      The labels, as TF 1.x's `extract_labels` gave them.

    Raises:
      ValueError: the file is damaged, or holds a label >= `num_classes`
        (named with its byte offset).
    """
    labels = _idx.read_labels(getattr(f, "name", f), num_classes)
    return dense_to_one_hot(labels, num_classes) if one_hot else labels


def _image_dtype(dtype) -> tf.DType:
    dtype = tf.as_dtype(dtype).base_dtype
    if dtype not in (tf.uint8, tf.float32):
        raise TypeError(
            f"Invalid image dtype {dtype!r}, expected uint8 or float32 "
            "(uint8 keeps [0, 255], float32 rescales to [0.0, 1.0])"
        )
    return dtype


class DataSet:
    """Images and labels held in memory, served by `next_batch` (TF 1.x's DataSet).

    Args:
      images: uint8 `[num_examples, rows, cols, 1]`.
      labels: `[num_examples]` class ids or `[num_examples, classes]` one-hot.
      fake_data: serve 784 ones and label 0 (TF 1.x's test mode).
      one_hot: with `fake_data`, one-hot fake labels.
      dtype: `tf.uint8` keeps the pixels, `tf.float32` scales them to [0, 1].
      reshape: flatten images to `[num_examples, rows * cols]`.
      seed: op seed; numpy's global generator is seeded as TF 1.x did.
    """

    def __init__(
        self,
        images,
        labels,
        fake_data=False,
        one_hot=False,
        dtype=tf.float32,
        reshape=True,
        seed=None,
    ):
        seed1, seed2 = tf.compat.v1.get_seed(seed)
        # TF 1.x: without an op seed, numpy follows the graph-level seed.
        np.random.seed(seed1 if seed is None else seed2)
        dtype = _image_dtype(dtype)
        if fake_data:
            self._num_examples = 10000
            self.one_hot = one_hot
        else:
            images = self._prepared(images, labels, dtype, reshape)
        self._images = images
        self._labels = labels
        self._epochs_completed = 0
        self._index_in_epoch = 0

    def _prepared(self, images, labels, dtype, reshape) -> np.ndarray:
        if images.shape[0] != labels.shape[0]:
            raise ValueError(
                f"images and labels differ in length: images.shape: {images.shape} "
                f"labels.shape: {labels.shape}"
            )
        self._num_examples = images.shape[0]
        if reshape:
            if images.shape[3] != 1:
                raise ValueError(
                    f"reshape=True needs one channel, got images of shape "
                    f"{images.shape}; pass reshape=False"
                )
            images = images.reshape(images.shape[0], images.shape[1] * images.shape[2])
        if dtype == tf.float32:
            images = np.multiply(images.astype(np.float32), 1.0 / 255.0)
        return images

    @property
    def images(self):
        return self._images

    @property
    def labels(self):
        return self._labels

    @property
    def num_examples(self) -> int:
        return self._num_examples

    @property
    def epochs_completed(self) -> int:
        return self._epochs_completed

    def _shuffle(self) -> None:
        perm = np.arange(self._num_examples)
        np.random.shuffle(perm)
        self._images = self._images[perm]
        self._labels = self._labels[perm]

    def _fake_batch(self, batch_size: int):
        image = [1] * 784
        label = [1] + [0] * 9 if self.one_hot else 0
        return [image] * batch_size, [label] * batch_size

    def next_batch(self, batch_size: int, fake_data: bool = False, shuffle=True):
        """The next `batch_size` (images, labels); an epoch's tail joins the next.

        Shuffles before the first batch and at each epoch end (with
        `shuffle`); a batch that crosses the end takes the rest of this epoch
        and the start of the next, as TF 1.x did.
        """
        if fake_data:
            return self._fake_batch(batch_size)
        start = self._index_in_epoch
        if self._epochs_completed == 0 and start == 0 and shuffle:
            self._shuffle()
        if start + batch_size <= self._num_examples:
            self._index_in_epoch += batch_size
            return self._images[start : self._index_in_epoch], self._labels[
                start : self._index_in_epoch
            ]
        self._epochs_completed += 1
        images_rest = self._images[start : self._num_examples]
        labels_rest = self._labels[start : self._num_examples]
        if shuffle:
            self._shuffle()
        self._index_in_epoch = end = batch_size - (self._num_examples - start)
        return (
            np.concatenate((images_rest, self._images[:end]), axis=0),
            np.concatenate((labels_rest, self._labels[:end]), axis=0),
        )


def _arrays(train_dir: str) -> tuple[np.ndarray, ...]:
    """The four arrays from `train_dir`'s files, or else from Keras' MNIST."""
    found = _idx.present(train_dir)
    if found and len(found) < len(_idx.FILES):
        raise _idx.missing_error(
            train_dir, found, "the others are not taken from elsewhere"
        )
    if found:
        return _idx.read_dir(train_dir)
    tf.get_logger().warning(
        "read_data_sets: no MNIST files in %r; reading "
        "tf.keras.datasets.mnist.load_data() (cached under ~/.keras/datasets).",
        train_dir,
    )
    try:
        return _idx.from_keras_arrays(*tf.keras.datasets.mnist.load_data())
    except Exception as error:  # offline, no cache, a broken cache: say what to do
        why = f"tf.keras.datasets.mnist.load_data() failed ({type(error).__name__}: {error})"
        raise _idx.missing_error(train_dir, found, why) from error


def _split(train_images, train_labels, validation_size: int):
    if not 0 <= validation_size <= len(train_images):
        raise ValueError(
            f"Validation size should be between 0 and {len(train_images)}. "
            f"Received: {validation_size}."
        )
    return (
        (train_images[validation_size:], train_labels[validation_size:]),
        (train_images[:validation_size], train_labels[:validation_size]),
    )


def read_data_sets(
    train_dir,
    fake_data=False,
    one_hot=False,
    dtype=tf.float32,
    reshape=True,
    validation_size=5000,
    seed=None,
    source_url=None,
) -> Datasets:
    """MNIST as TF 1.x's `read_data_sets` gave it: `Datasets(train, validation, test)`.

    Args:
      train_dir: folder holding the four idx `.gz` files; when it holds none,
        `tf.keras.datasets.mnist.load_data()` supplies the same arrays.
      fake_data: three fake `DataSet`s (TF 1.x's test mode).
      one_hot: labels as float64 one-hot rows `[n, 10]`, else uint8 ids `[n]`.
      dtype: `tf.float32` (pixels scaled to [0, 1]) or `tf.uint8`.
      reshape: images `[n, 784]`; else `[n, 28, 28, 1]`.
      validation_size: training images held out, from the front (5000).
      seed: op seed for the shuffles (see `DataSet`).
      source_url: accepted for compatibility (TF 1.x downloaded from it) and
        not used: nothing is downloaded.

    Raises:
      FileNotFoundError: `train_dir` lacks some files and Keras cannot help.
      ValueError: a file is corrupt or truncated, holds a label >= 10, an
        images file and its labels file differ in count, or
        `validation_size` is out of range.
    """
    del source_url  # TF 1.x downloaded from it; this module reads local copies only
    if fake_data:
        fake = [
            DataSet([], [], fake_data=True, one_hot=one_hot, dtype=dtype, seed=seed)
            for _ in range(3)
        ]
        return Datasets(*fake)
    _image_dtype(dtype)
    images, labels, test_images, test_labels = _arrays(train_dir)
    if one_hot:
        labels, test_labels = (
            dense_to_one_hot(labels, 10),
            dense_to_one_hot(test_labels, 10),
        )
    train, validation = _split(images, labels, validation_size)
    options = dict(dtype=dtype, reshape=reshape, seed=seed)
    return Datasets(
        train=DataSet(*train, **options),
        validation=DataSet(*validation, **options),
        test=DataSet(test_images, test_labels, **options),
    )


def load_mnist(train_dir="MNIST-data") -> Datasets:
    """`read_data_sets(train_dir)` (TF 1.x's shorthand)."""
    return read_data_sets(train_dir)
