"""Learnable synthetic CIFAR data in the real binary layout (python -m cifar10.generate)."""

from __future__ import annotations

import argparse
import os
import sys
import tarfile
import tempfile

import numpy as np

from cifar10 import data

SMALL = (10_000, 2_000)  # train, test examples of the default demo set.
FULL = (50_000, 10_000)


def _prototypes(num_classes: int, seed: int) -> np.ndarray:
    """Smooth class patterns, float32 `[num_classes, 32, 32, 3]` in about [-1, 1]."""
    rng = np.random.default_rng([seed, 7919])
    coarse = rng.uniform(-1, 1, (num_classes, 4, 4, 3)).astype(np.float32)
    fine = np.repeat(np.repeat(coarse, 8, axis=1), 8, axis=2)
    kernel = np.ones(5, np.float32) / 5  # Blur the 8x8 blocks into gradients.
    for axis in (1, 2):
        fine = np.apply_along_axis(np.convolve, axis, fine, kernel, mode="same")
    fine -= fine.mean(axis=(1, 2), keepdims=True)
    color = rng.uniform(-0.2, 0.2, (num_classes, 1, 1, 3)).astype(np.float32)
    return fine + color


def _examples(protos: np.ndarray, labels: np.ndarray, rng) -> np.ndarray:
    """Draws images for `labels`: shifted, flipped, mixed, tinted, noisy prototypes.

    Returns:
      uint8 `[len(labels), 32, 32, 3]`.
    """
    n = len(labels)
    images = protos[labels]
    shifts = rng.integers(-6, 7, (n, 2))
    for i, (dy, dx) in enumerate(shifts):
        images[i] = np.roll(images[i], (dy, dx), axis=(0, 1))
    flip = rng.random(n) < 0.5
    images[flip] = images[flip, :, ::-1]
    distractor = protos[rng.integers(0, len(protos), n)]
    mix = rng.uniform(0.0, 0.6, (n, 1, 1, 1)).astype(np.float32)
    contrast = rng.uniform(0.5, 1.2, (n, 1, 1, 1)).astype(np.float32)
    tint = rng.uniform(-0.4, 0.4, (n, 1, 1, 3)).astype(np.float32)
    noise = rng.normal(0, 0.5, images.shape).astype(np.float32)
    images = contrast * (images + mix * distractor) + tint + noise
    return np.clip(128 + 60 * images, 0, 255).astype(np.uint8)


def _records(images: np.ndarray, label_bytes: np.ndarray) -> bytes:
    """Packs uint8 `[n, 32, 32, 3]` images behind uint8 `[n, k]` label bytes."""
    pixels = images.transpose(0, 3, 1, 2).reshape(len(images), -1)
    return np.concatenate([label_bytes, pixels], axis=1).tobytes()


def _label_bytes(dataset: str, fine: np.ndarray) -> np.ndarray:
    if dataset == "cifar100":
        return np.stack([fine // 5, fine], axis=1).astype(np.uint8)  # coarse, fine
    return fine[:, None].astype(np.uint8)


def _write_split(folder, dataset, split, total, protos, seed) -> None:
    names = data.layout(dataset).files[split]
    sizes = np.full(len(names), total // len(names))
    sizes[: total % len(names)] += 1
    for index, (name, size) in enumerate(zip(names, sizes)):
        rng = np.random.default_rng([seed, SPLIT_KEYS[split], index])
        labels = rng.integers(0, len(protos), size)
        images = _examples(protos, labels, rng)
        with open(os.path.join(folder, name), "wb") as f:
            f.write(_records(images, _label_bytes(dataset, labels)))


SPLIT_KEYS = {"train": 1, "test": 2}


def _check_sizes(train_examples: int, test_examples: int, dataset: str) -> None:
    files = len(data.layout(dataset).files["train"])
    for name, value, least in (
        ("train_examples", train_examples, files),
        ("test_examples", test_examples, 1),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ValueError(
                f"`{name}` must be an int >= {least} (one record per file of "
                f"{dataset}); received {value!r}."
            )


def generate(
    out: str,
    dataset: str = "cifar10",
    train_examples: int = SMALL[0],
    test_examples: int = SMALL[1],
    seed: int = 0,
) -> str:
    """Writes a synthetic dataset in the real binary layout under `out`.

    Each class has a smooth pattern and a faint colour; an image is its class
    pattern, shifted (wrapping around), maybe flipped, mixed with another
    class's pattern, tinted and noisy, so a convolutional network learns it
    while a nearest-class-mean classifier gets only part of the way. The same arguments always give
    the same bytes. Files are written to a temporary folder and renamed into
    place, so `out` never holds a half-written dataset.

    Args:
      out: the data directory; the files go to `out/cifar-10-batches-bin/`
        (or `out/cifar-100-binary/`), which must not exist yet.
      dataset: `'cifar10'` or `'cifar100'` (fine labels 0..99, coarse = fine // 5).
      train_examples: records over all training files.
      test_examples: records in the test file.
      seed: the random seed.

    Returns:
      The folder that holds the files.

    Raises:
      ValueError: for bad sizes or if the dataset folder already exists.
    """
    spec = data.layout(dataset)
    _check_sizes(train_examples, test_examples, dataset)
    target = os.path.join(out, spec.folder)
    if os.path.exists(target):
        raise ValueError(
            f"`out` {out!r} already holds {spec.folder!r}; pass an empty directory "
            "or delete it first."
        )
    os.makedirs(out, exist_ok=True)
    protos = _prototypes(max(n for _, n in spec.labels.values()), seed)
    with tempfile.TemporaryDirectory(dir=out, prefix=".generate-") as tmp:
        folder = os.path.join(tmp, spec.folder)
        os.makedirs(folder)
        _write_split(folder, dataset, "train", train_examples, protos, seed)
        _write_split(folder, dataset, "test", test_examples, protos, seed)
        os.replace(folder, target)
    return target


def write_archive(data_dir: str, archive: str, dataset: str = "cifar10") -> str:
    """Packs `data_dir/<folder>/` into a `.tar.gz` shaped like the official one.

    Returns:
      `archive`.
    """
    folder = os.path.join(data_dir, data.layout(dataset).folder)
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(folder, arcname=os.path.basename(folder))
    return archive


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m cifar10.generate", description=__doc__
    )
    parser.add_argument("--out", required=True, help="data directory to write into")
    parser.add_argument("--dataset", choices=sorted(data.LAYOUTS), default="cifar10")
    parser.add_argument("--full", action="store_true", help="50,000/10,000 examples")
    parser.add_argument("--train_examples", type=int, default=None)
    parser.add_argument("--test_examples", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--archive", default=None, help="also write this .tar.gz")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = _parse(sys.argv[1:] if argv is None else argv)
    train, test = FULL if args.full else SMALL
    folder = generate(
        args.out,
        args.dataset,
        args.train_examples or train,
        args.test_examples or test,
        args.seed,
    )
    print(f"Wrote {args.dataset} data to {folder}")
    if args.archive:
        print(f"Wrote {write_archive(args.out, args.archive, args.dataset)}")


if __name__ == "__main__":
    main()
