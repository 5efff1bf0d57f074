"""Reads the MNIST idx `.gz` files (or Keras' cached copy) into TF 1.x's arrays.

The four files and their format are those TF 1.x's
`tensorflow/contrib/learn/python/learn/datasets/mnist.py` read: a gzip
stream holding a big-endian uint32 header (magic 2051 for images, 2049 for
labels, then the counts) followed by uint8 pixels or class ids. Nothing is
ever written: when the files are absent the arrays come from
`tf.keras.datasets.mnist.load_data()`, which keeps its own cache.
"""

from __future__ import annotations

import gzip
import os
import zlib

import numpy as np

TRAIN_IMAGES = "train-images-idx3-ubyte.gz"
TRAIN_LABELS = "train-labels-idx1-ubyte.gz"
TEST_IMAGES = "t10k-images-idx3-ubyte.gz"
TEST_LABELS = "t10k-labels-idx1-ubyte.gz"
FILES = (TRAIN_IMAGES, TRAIN_LABELS, TEST_IMAGES, TEST_LABELS)
IMAGE_MAGIC = 2051
LABEL_MAGIC = 2049
_REFETCH = "download it again (MNIST's own page lists the four files)"


def _read_gz(path: str) -> bytes:
    """The uncompressed bytes of `path`, or a ValueError naming the file."""
    try:
        with open(path, "rb") as f, gzip.GzipFile(fileobj=f) as stream:
            return stream.read()
    except (OSError, EOFError, zlib.error) as error:
        raise ValueError(
            f"MNIST file {path!r} is not a complete gzip file ({error}); {_REFETCH}."
        ) from error


def _header(data: bytes, path: str, magic: int, count: int) -> list[int]:
    """The `count` big-endian uint32 header fields after the magic number."""
    need = 4 * (count + 1)
    if len(data) < need:
        raise ValueError(
            f"MNIST file {path!r} is truncated: {len(data)} bytes, shorter than "
            f"its {need}-byte header; {_REFETCH}."
        )
    fields = np.frombuffer(data[:need], dtype=">u4").tolist()
    if fields[0] != magic:
        raise ValueError(
            f"Invalid magic number {fields[0]} in MNIST file {path!r}: expected "
            f"{magic} ({'images' if magic == IMAGE_MAGIC else 'labels'}); is it "
            f"one of {', '.join(FILES)}?"
        )
    return fields[1:]


def _payload(data: bytes, path: str, offset: int, size: int) -> np.ndarray:
    """`size` uint8 values after the header; a ValueError if the file is short."""
    if len(data) - offset < size:
        raise ValueError(
            f"MNIST file {path!r} is truncated: its header promises {size} bytes "
            f"of data, it holds {len(data) - offset}; {_REFETCH}."
        )
    return np.frombuffer(data, dtype=np.uint8, count=size, offset=offset)


def read_images(path: str) -> np.ndarray:
    """Images from an idx3 `.gz` file, uint8 `[num_images, rows, cols, 1]`."""
    data = _read_gz(path)
    num, rows, cols = _header(data, path, IMAGE_MAGIC, 3)
    pixels = _payload(data, path, 16, num * rows * cols)
    return pixels.reshape(num, rows, cols, 1)


def read_labels(path: str, num_classes: int | None = None) -> np.ndarray:
    """Class ids from an idx1 `.gz` file, uint8 `[num_items]`.

    Args:
      path: the file.
      num_classes: when given, every id must be below it (a ValueError
        names the first that is not, and its byte offset).
    """
    data = _read_gz(path)
    (num,) = _header(data, path, LABEL_MAGIC, 1)
    labels = _payload(data, path, 8, num)
    if num_classes is not None:
        _check_classes(labels, path, num_classes)
    return labels


def _check_classes(labels: np.ndarray, path: str, num_classes: int) -> None:
    """Raises ValueError naming the first label >= `num_classes` in `path`."""
    bad = np.flatnonzero(labels >= num_classes)
    if bad.size:
        index = int(bad[0])
        raise ValueError(
            f"MNIST file {path!r} has label {int(labels[index])} at byte offset "
            f"{8 + index} of its data (label {index}; {bad.size} bad in all): "
            f"class ids must be below num_classes={num_classes}; the file is "
            f"damaged or not MNIST's labels: {_REFETCH}, or pass the right "
            "num_classes."
        )


def _check_pair(images: np.ndarray, labels: np.ndarray, paths) -> None:
    """Raises ValueError naming both files if their counts differ."""
    if images.shape[0] != labels.shape[0]:
        raise ValueError(
            f"MNIST files disagree: {paths[0]!r} holds {images.shape[0]} images "
            f"but {paths[1]!r} holds {labels.shape[0]} labels; each images file "
            "needs the labels file of the same split (train-* with train-*, "
            f"t10k-* with t10k-*): {_REFETCH}."
        )


def present(train_dir: str) -> list[str]:
    """Which of the four MNIST files are in `train_dir`."""
    return [name for name in FILES if os.path.isfile(os.path.join(train_dir, name))]


def read_dir(train_dir: str) -> tuple[np.ndarray, ...]:
    """(train images, train labels, test images, test labels) from `train_dir`."""
    paths = [os.path.join(train_dir, name) for name in FILES]
    arrays = []
    for images_path, labels_path in (paths[:2], paths[2:]):
        images = read_images(images_path)
        labels = read_labels(labels_path, num_classes=10)
        _check_pair(images, labels, (images_path, labels_path))
        arrays += [images, labels]
    return tuple(arrays)


def from_keras_arrays(train, test) -> tuple[np.ndarray, ...]:
    """`load_data()`'s ((x, y), (x, y)) as `read_dir` returns them.

    Args:
      train: (images uint8 `[n, 28, 28]`, labels uint8 `[n]`).
      test: the same for the test split.
    """
    (x_train, y_train), (x_test, y_test) = train, test
    return (
        np.asarray(x_train, np.uint8)[..., np.newaxis],
        np.asarray(y_train, np.uint8),
        np.asarray(x_test, np.uint8)[..., np.newaxis],
        np.asarray(y_test, np.uint8),
    )


def missing_error(train_dir: str, found: list[str], why: str) -> FileNotFoundError:
    """The error for a `train_dir` without the four files (`found`: those present)."""
    absent = [name for name in FILES if name not in found]
    return FileNotFoundError(
        f"read_data_sets: train_dir {train_dir!r} lacks {', '.join(absent)} "
        f"(looked for {', '.join(FILES)}), and {why}. Put the four MNIST files "
        f"in {train_dir!r} (MNIST's own page lists them), or make "
        "tf.keras.datasets.mnist.load_data() work (it caches mnist.npz under "
        "~/.keras/datasets)."
    )
