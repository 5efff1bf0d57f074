"""Tests for the CIFAR binary layouts, their validation and the generator."""

import os

import numpy as np
import pytest

from cifar10 import data, generate


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("tiny"))
    generate.generate(out, train_examples=52, test_examples=20, seed=3)
    return out


@pytest.fixture(scope="module")
def tiny100(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("tiny100"))
    generate.generate(out, "cifar100", train_examples=40, test_examples=10, seed=3)
    return out


@pytest.mark.parametrize(
    "dataset, record_bytes",
    [("cifar10", 3073), ("cifar100", 3074)],
    ids=["c10", "c100"],
)
def test_record_bytes(dataset, record_bytes):
    assert data.layout(dataset).record_bytes == record_bytes


def test_unknown_dataset():
    with pytest.raises(ValueError, match=r"`dataset` must be one of .*'mnist'"):
        data.layout("mnist")


@pytest.mark.parametrize(
    "dataset, label, expected",
    [
        ("cifar10", None, (0, 10)),
        ("cifar100", None, (1, 100)),
        ("cifar100", "coarse", (0, 20)),
    ],
    ids=["c10", "c100-fine-default", "c100-coarse"],
)
def test_label_spec(dataset, label, expected):
    assert data.label_spec(dataset, label) == expected


def test_label_spec_rejects_fine_on_cifar10():
    with pytest.raises(ValueError, match=r"`label` 'fine' does not exist in cifar10"):
        data.label_spec("cifar10", "fine")


@pytest.mark.parametrize(
    "split, count", [("train", 5), ("test", 1)], ids=["train", "test"]
)
def test_filenames(tiny, split, count):
    paths = data.filenames(tiny, "cifar10", split)
    assert len(paths) == count and all(os.path.isfile(p) for p in paths)


def test_filenames_accepts_the_folder_itself(tiny):
    folder = os.path.join(tiny, "cifar-10-batches-bin")
    assert data.filenames(folder, "cifar10", "test") == [
        os.path.join(folder, "test_batch.bin")
    ]


def test_wrong_directory(tmp_path):
    with pytest.raises(ValueError, match=r"has no 'cifar-10-batches-bin' directory"):
        data.filenames(str(tmp_path), "cifar10", "train")


def test_missing_file(tmp_path):
    generate.generate(str(tmp_path), train_examples=5, test_examples=1)
    os.remove(tmp_path / "cifar-10-batches-bin" / "data_batch_3.bin")
    with pytest.raises(ValueError, match=r"Missing cifar10 file .*data_batch_3.bin"):
        data.filenames(str(tmp_path), "cifar10", "train")


@pytest.mark.parametrize("size", [0, 3073 * 2 + 100], ids=["empty", "truncated"])
def test_bad_file_size(tmp_path, size):
    generate.generate(str(tmp_path), train_examples=5, test_examples=1)
    path = tmp_path / "cifar-10-batches-bin" / "test_batch.bin"
    path.write_bytes(b"\0" * size)
    with pytest.raises(
        ValueError, match=rf"test_batch.bin has {size} bytes, .*3073-byte"
    ):
        data.filenames(str(tmp_path), "cifar10", "test")


def test_bad_split(tiny):
    with pytest.raises(ValueError, match=r"`split` must be one of .*'valid'"):
        data.filenames(tiny, "cifar10", "valid")


def test_read_numpy_layout(tiny):
    paths = data.filenames(tiny, "cifar10", "train")
    images, labels = data.read_numpy(paths, "cifar10")
    raw = np.fromfile(paths[0], np.uint8)
    assert images.shape == (52, 32, 32, 3) and labels.shape == (52,)
    assert labels[0] == raw[0] and images[0, 0, 1, 0] == raw[1 + 1]
    assert images[0, 0, 0, 2] == raw[1 + 2 * 1024]  # Blue plane comes third.


@pytest.mark.parametrize(
    "label, classes", [("fine", 100), ("coarse", 20)], ids=["fine", "coarse"]
)
def test_cifar100_labels(tiny100, label, classes):
    images, labels = data.read_numpy(
        data.filenames(tiny100, "cifar100", "train"), "cifar100", label
    )
    assert images.shape == (40, 32, 32, 3)
    assert labels.min() >= 0 and labels.max() < classes


def test_cifar100_coarse_matches_fine(tiny100):
    paths = data.filenames(tiny100, "cifar100", "test")
    _, fine = data.read_numpy(paths, "cifar100", "fine")
    _, coarse = data.read_numpy(paths, "cifar100", "coarse")
    np.testing.assert_array_equal(coarse, fine // 5)


def test_num_examples(tiny):
    assert data.num_examples(data.filenames(tiny, "cifar10", "train"), "cifar10") == 52


def _corrupt(path, record, record_bytes, offset, value):
    raw = bytearray(path.read_bytes())
    raw[record * record_bytes + offset] = value
    path.write_bytes(bytes(raw))


@pytest.mark.parametrize("value", [10, 200], ids=["ten", "200"])
def test_check_labels_names_file_record_and_value(tmp_path, value):
    generate.generate(str(tmp_path), train_examples=20, test_examples=4)
    path = tmp_path / "cifar-10-batches-bin" / "data_batch_2.bin"
    _corrupt(path, 3, 3073, 0, value)
    paths = data.filenames(str(tmp_path), "cifar10", "train")
    with pytest.raises(
        ValueError,
        match=rf"data_batch_2.bin: record 3 has label {value}, but cifar10 labels "
        r"are 0\.\.9",
    ):
        data.check_labels(paths, "cifar10")


@pytest.mark.parametrize(
    "label, offset, value, classes",
    [("fine", 1, 100, 100), ("coarse", 0, 20, 20)],
    ids=["fine", "coarse"],
)
def test_check_labels_cifar100(tmp_path, label, offset, value, classes):
    generate.generate(str(tmp_path), "cifar100", train_examples=9, test_examples=3)
    path = tmp_path / "cifar-100-binary" / "test.bin"
    _corrupt(path, 2, 3074, offset, value)
    paths = data.filenames(str(tmp_path), "cifar100", "test")
    with pytest.raises(
        ValueError,
        match=rf"test.bin: record 2 has {label} label {value}, .*0\.\.{classes - 1}",
    ):
        data.check_labels(paths, "cifar100", label)


def test_check_labels_reads_only_the_label_in_use(tmp_path):
    generate.generate(str(tmp_path), "cifar100", train_examples=9, test_examples=3)
    path = tmp_path / "cifar-100-binary" / "test.bin"
    _corrupt(path, 1, 3074, 0, 99)  # A bad coarse label; fine labels are valid.
    data.check_labels([str(path)], "cifar100", "fine")
    with pytest.raises(ValueError, match=r"record 1 has coarse label 99"):
        data.check_labels([str(path)], "cifar100", "coarse")


def test_check_labels_accepts_valid_files(tiny, tiny100):
    data.check_labels(data.filenames(tiny, "cifar10", "train"), "cifar10")
    data.check_labels(data.filenames(tiny100, "cifar100", "train"), "cifar100")
