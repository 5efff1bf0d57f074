"""The CIFAR-10 and CIFAR-100 binary file layouts: finding, validating, reading."""

from __future__ import annotations

import dataclasses
import os

import numpy as np

HEIGHT = WIDTH = 32
CHANNELS = 3
IMAGE_BYTES = HEIGHT * WIDTH * CHANNELS
SPLITS = ("train", "test")


@dataclasses.dataclass(frozen=True)
class Layout:
    """Where a dataset's binary files live and how one record is laid out.

    Attributes:
      name: `'cifar10'` or `'cifar100'`.
      folder: the directory inside `data_dir` that holds the files.
      files: split name -> file names inside `folder`.
      label_bytes: bytes before the image in each record.
      labels: label name -> (byte offset of that label, number of classes).
    """

    name: str
    folder: str
    files: dict[str, tuple[str, ...]]
    label_bytes: int
    labels: dict[str, tuple[int, int]]

    @property
    def record_bytes(self) -> int:
        """Bytes per record: the label bytes, then 3x32x32 channel-major pixels."""
        return self.label_bytes + IMAGE_BYTES


CIFAR10 = Layout(
    name="cifar10",
    folder="cifar-10-batches-bin",
    files={
        "train": tuple(f"data_batch_{i}.bin" for i in range(1, 6)),
        "test": ("test_batch.bin",),
    },
    label_bytes=1,
    labels={"label": (0, 10)},
)
CIFAR100 = Layout(
    name="cifar100",
    folder="cifar-100-binary",
    files={"train": ("train.bin",), "test": ("test.bin",)},
    label_bytes=2,
    labels={"coarse": (0, 20), "fine": (1, 100)},
)
LAYOUTS = {layout.name: layout for layout in (CIFAR10, CIFAR100)}


def layout(dataset: str) -> Layout:
    """Returns the `Layout` of `'cifar10'` or `'cifar100'`.

    Raises:
      ValueError: for any other name.
    """
    if dataset not in LAYOUTS:
        raise ValueError(
            f"`dataset` must be one of {sorted(LAYOUTS)}; received {dataset!r}."
        )
    return LAYOUTS[dataset]


def label_spec(dataset: str, label: str | None = None) -> tuple[int, int]:
    """Returns (byte offset, number of classes) of a dataset's label.

    Args:
      dataset: `'cifar10'` or `'cifar100'`.
      label: `'fine'` or `'coarse'` for CIFAR-100 (default `'fine'`); CIFAR-10
        has a single label, so pass None (or `'label'`).

    Raises:
      ValueError: for a label the dataset does not have.
    """
    spec = layout(dataset)
    if label is None:
        label = "fine" if dataset == "cifar100" else "label"
    if label not in spec.labels:
        raise ValueError(
            f"`label` {label!r} does not exist in {dataset}; choose one of "
            f"{sorted(spec.labels)} (CIFAR-10 has one label: pass None)."
        )
    return spec.labels[label]


def filenames(data_dir: str, dataset: str, split: str) -> list[str]:
    """Returns the validated binary files of one split, in order.

    Each file must exist and hold a whole number (>= 1) of records, so a bad
    directory fails here, before any graph is built.

    Args:
      data_dir: the directory that contains `cifar-10-batches-bin/` (or
        `cifar-100-binary/`), or that folder itself.
      dataset: `'cifar10'` or `'cifar100'`.
      split: `'train'` or `'test'`.

    Raises:
      ValueError: for an unknown split, a missing folder or file, or a file
        whose size is not a positive multiple of the record size.
    """
    if split not in SPLITS:
        raise ValueError(f"`split` must be one of {SPLITS}; received {split!r}.")
    spec = layout(dataset)
    folder = _folder(data_dir, spec)
    paths = [os.path.join(folder, name) for name in spec.files[split]]
    for path in paths:
        check_file(path, dataset)
    return paths


def _folder(data_dir: str, spec: Layout) -> str:
    if os.path.basename(os.path.normpath(data_dir)) == spec.folder:
        return data_dir
    folder = os.path.join(data_dir, spec.folder)
    if not os.path.isdir(folder):
        raise ValueError(
            f"`data_dir` {data_dir!r} has no {spec.folder!r} directory: expected "
            f"{folder} holding {_all_files(spec)}. Pass the directory that "
            "contains it, --download to fetch the data, or no data flags to use "
            "generated data."
        )
    return folder


def _all_files(spec: Layout) -> list[str]:
    return [name for split in SPLITS for name in spec.files[split]]


def check_file(path: str, dataset: str) -> None:
    """Checks that `path` is a file of whole `dataset` records.

    Raises:
      ValueError: for a missing file or a size that is not a positive
        multiple of the record size.
    """
    spec = layout(dataset)
    if not os.path.isfile(path):
        raise ValueError(
            f"Missing {spec.name} file {path}: the {spec.folder!r} directory must "
            f"hold {_all_files(spec)}."
        )
    size = os.path.getsize(path)
    if size == 0 or size % spec.record_bytes:
        raise ValueError(
            f"{spec.name} file {path} has {size} bytes, which is not a positive "
            f"multiple of the {spec.record_bytes}-byte record ({spec.label_bytes} "
            f"label byte(s) + {IMAGE_BYTES} pixels); the file is truncated or not "
            f"{spec.name} binary data."
        )


def check_labels(paths: list[str], dataset: str, label: str | None = None) -> None:
    """Checks every record's label byte against the number of classes.

    Reads one byte per record (memory-mapped, no copy of the images), so a
    bad file fails before training rather than in the middle of it.

    Args:
      paths: validated files from `filenames`.
      dataset: `'cifar10'` or `'cifar100'`.
      label: see `label_spec`; only this label's byte is read.

    Raises:
      ValueError: naming the first file, record and label value out of range.
    """
    spec = layout(dataset)
    offset, classes = label_spec(dataset, label)
    for path in paths:
        records = np.memmap(path, np.uint8, mode="r").reshape(-1, spec.record_bytes)
        bad = np.flatnonzero(records[:, offset] >= classes)
        if bad.size:
            _bad_label(path, spec, label, int(bad[0]), int(records[bad[0], offset]))


def _bad_label(path: str, spec: Layout, label, record: int, value: int) -> None:
    offset, classes = label_spec(spec.name, label)
    name = "" if spec.name == "cifar10" else f"{label or 'fine'} "
    raise ValueError(
        f"{path}: record {record} has {name}label {value}, but {spec.name} "
        f"{name}labels are 0..{classes - 1} (byte {offset} of each "
        f"{spec.record_bytes}-byte record). The file is corrupt or holds another "
        "dataset: replace it (--download fetches CIFAR-10 again), or pass the "
        "matching --dataset/--label."
    )


def num_examples(paths: list[str], dataset: str) -> int:
    """The number of records in validated `paths`."""
    record = layout(dataset).record_bytes
    return sum(os.path.getsize(path) // record for path in paths)


def read_numpy(
    paths: list[str], dataset: str, label: str | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Reads records into memory with numpy.

    Args:
      paths: validated files from `filenames`.
      dataset: `'cifar10'` or `'cifar100'`.
      label: see `label_spec`.

    Returns:
      images: uint8 `[num_examples, 32, 32, 3]`.
      labels: int32 `[num_examples]`.
    """
    spec = layout(dataset)
    offset, _ = label_spec(dataset, label)
    raw = np.concatenate([np.fromfile(p, np.uint8) for p in paths])
    records = raw.reshape(-1, spec.record_bytes)
    labels = records[:, offset].astype(np.int32)
    pixels = records[:, spec.label_bytes :].reshape(-1, CHANNELS, HEIGHT, WIDTH)
    return pixels.transpose(0, 2, 3, 1), labels
