"""Tests for the synthetic CIFAR generator: layout, determinism, learnability."""

import os

import numpy as np
import pytest

from cifar10 import data, generate


def _bytes(out):
    folder = os.path.join(out, "cifar-10-batches-bin")
    return {
        name: open(os.path.join(folder, name), "rb").read()
        for name in sorted(os.listdir(folder))
    }


def test_same_seed_same_bytes(tmp_path):
    a = generate.generate(
        str(tmp_path / "a"), train_examples=12, test_examples=4, seed=5
    )
    b = generate.generate(
        str(tmp_path / "b"), train_examples=12, test_examples=4, seed=5
    )
    assert _bytes(os.path.dirname(a)) == _bytes(os.path.dirname(b))


def test_other_seed_other_bytes(tmp_path):
    generate.generate(str(tmp_path / "a"), train_examples=12, test_examples=4, seed=5)
    generate.generate(str(tmp_path / "b"), train_examples=12, test_examples=4, seed=6)
    assert _bytes(str(tmp_path / "a")) != _bytes(str(tmp_path / "b"))


@pytest.mark.parametrize(
    "dataset, files", [("cifar10", 6), ("cifar100", 2)], ids=["c10", "c100"]
)
def test_real_layout(tmp_path, dataset, files):
    generate.generate(str(tmp_path), dataset, train_examples=11, test_examples=3)
    train = data.filenames(str(tmp_path), dataset, "train")
    test = data.filenames(str(tmp_path), dataset, "test")
    assert len(train) + len(test) == files
    assert (
        data.num_examples(train, dataset) == 11
        and data.num_examples(test, dataset) == 3
    )
    assert sorted(os.listdir(tmp_path)) == [
        data.layout(dataset).folder
    ]  # No temp left.


def test_refuses_existing_folder(tmp_path):
    generate.generate(str(tmp_path), train_examples=5, test_examples=1)
    with pytest.raises(ValueError, match=r"already holds 'cifar-10-batches-bin'"):
        generate.generate(str(tmp_path), train_examples=5, test_examples=1)


@pytest.mark.parametrize(
    "train, test, match",
    [
        (4, 1, r"`train_examples` must be an int >= 5.*received 4"),
        (10, 0, r"`test_examples` must be an int >= 1.*received 0"),
        (10.0, 1, r"`train_examples` must be an int"),
    ],
    ids=["too-few-train", "no-test", "float"],
)
def test_bad_sizes(tmp_path, train, test, match):
    with pytest.raises(ValueError, match=match):
        generate.generate(str(tmp_path), train_examples=train, test_examples=test)


def test_learnable_far_above_chance(tmp_path):
    """A nearest-class-mean classifier on blurred pixels beats chance (10%) by far."""
    generate.generate(str(tmp_path), train_examples=2000, test_examples=500, seed=1)
    x, y = data.read_numpy(data.filenames(str(tmp_path), "cifar10", "train"), "cifar10")
    tx, ty = data.read_numpy(
        data.filenames(str(tmp_path), "cifar10", "test"), "cifar10"
    )
    pool = lambda im: (
        im.reshape(len(im), 4, 8, 4, 8, 3).mean(axis=(2, 4)).reshape(len(im), -1)
    )  # noqa: E731
    means = np.stack([pool(x[y == c]).mean(0) for c in range(10)])
    guess = np.argmin(((pool(tx)[:, None] - means[None]) ** 2).sum(-1), axis=1)
    accuracy = (guess == ty).mean()
    assert 0.25 < accuracy < 0.9, accuracy  # Learnable, not trivial.


def test_cli_writes_dataset_and_archive(tmp_path, capsys):
    archive = str(tmp_path / "c.tar.gz")
    generate.main(
        [
            "--out",
            str(tmp_path / "d"),
            "--train_examples",
            "5",
            "--test_examples",
            "2",
            "--archive",
            archive,
        ]
    )
    assert "Wrote cifar10 data" in capsys.readouterr().out
    assert os.path.getsize(archive) > 0
    assert (
        data.num_examples(
            data.filenames(str(tmp_path / "d"), "cifar10", "test"), "cifar10"
        )
        == 2
    )
