"""MNIST's four idx files of random digits, as the cases' make_data write them.

The format is MNIST's own: a big-endian uint32 header (magic 2051 for
images, then count, rows, cols; magic 2049 for labels, then count) followed
by uint8 pixels or class ids, each file gzip-compressed as released (or
plain, as a program that unzips them after downloading keeps them).
"""

from __future__ import annotations

import gzip
import pathlib

import numpy as np

SIDE = 28


def _idx(header: list[int], payload: np.ndarray) -> bytes:
    return np.array(header, ">u4").tobytes() + payload.astype(np.uint8).tobytes()


def write(
    folder: pathlib.Path,
    train: int,
    test: int,
    *,
    gz: bool = True,
    seed: int = 0,
) -> None:
    """train-/t10k- images and labels in `folder` (made if absent).

    Each class gets a brighter band of rows of its own, so a model can learn.
    """
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.RandomState(seed)
    for prefix, n in (("train", train), ("t10k", test)):
        labels = rng.randint(0, 10, n)
        images = rng.randint(0, 128, (n, SIDE, SIDE))
        for i, label in enumerate(labels):
            images[i, 2 * label : 2 * label + 4] += 127
        for name, data in (
            (f"{prefix}-images-idx3-ubyte", _idx([2051, n, SIDE, SIDE], images)),
            (f"{prefix}-labels-idx1-ubyte", _idx([2049, n], labels)),
        ):
            if gz:
                with gzip.open(folder / f"{name}.gz", "wb") as f:
                    f.write(data)
            else:
                (folder / name).write_bytes(data)
