"""wiseodd/generative-models: one-file GANs and VAEs on
tensorflow.examples.tutorials.mnist's input_data, each a module-level
tf.Session loop of a million iterations with no flag to shorten it."""

from __future__ import annotations

import gzip
import pathlib

import numpy as np

from benchmarks.real_code._case import Case, Command

_TRAIN, _TEST = 5500, 200  # read_data_sets holds out 5000 for validation
_SECONDS = 150  # each run's time limit: the scripts never end by themselves


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    """MNIST_data/ at the repository's root (the scripts read
    '../../MNIST_data' from their own folder): the four gzipped idx files
    read_data_sets takes, random pixels and digits."""
    del data
    folder = tree / "MNIST_data"
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    for prefix, count in (("train", _TRAIN), ("t10k", _TEST)):
        header = np.array([2051, count, 28, 28], ">i4").tobytes()
        pixels = rng.integers(0, 256, (count, 28, 28), dtype=np.uint8).tobytes()
        with gzip.open(folder / f"{prefix}-images-idx3-ubyte.gz", "wb") as f:
            f.write(header + pixels)
        header = np.array([2049, count], ">i4").tobytes()
        labels = rng.integers(0, 10, count, dtype=np.uint8).tobytes()
        with gzip.open(folder / f"{prefix}-labels-idx1-ubyte.gz", "wb") as f:
            f.write(header + labels)


def _bounded(folder: str, script: str, loss: str) -> Command:
    """The script as its README runs it (python <script> in its folder), for
    _SECONDS: `range(1000000)` is in the code and no flag shortens it, so the
    run counts as done when the time limit stops it (timeout's 124) after it
    printed iteration 1000's losses."""
    return Command(
        [
            "bash",
            "-c",
            f'timeout {_SECONDS} "$0" {script}; test $? -eq 124',
            "{python}",
        ],
        cwd=folder,
        expect=r"Iter: 1000\n" + loss,
        loss=loss.replace(r"[-\d.e]+", r"([-\d.e]+)", 1),
        timeout=_SECONDS + 60,
    )


CASE = Case(
    name="generative_models",
    repo="wiseodd/generative-models",
    commit="b930d5fa9e2f69adfd4ea8ec759f38f6ce6da4c2",
    what=(
        "GAN and VAE scripts (2016-2018, last change Aug 2018): "
        "tensorflow.examples.tutorials.mnist's read_data_sets and "
        "next_batch, tf.Variables and placeholders at module level, two "
        "Adam optimizers and a plain tf.Session loop; the vanilla GAN and "
        "the vanilla VAE, each for its first 1000+ iterations"
    ),
    paths=("GAN/vanilla_gan", "VAE/vanilla_vae"),
    make_data=make_data,
    env={"PYTHONUNBUFFERED": "1", "MPLBACKEND": "Agg"},
    commands=[
        _bounded("GAN/vanilla_gan", "gan_tensorflow.py", r"D loss: [-\d.e]+"),
        _bounded("VAE/vanilla_vae", "vae_tensorflow.py", r"Loss: [-\d.e]+"),
    ],
    devices=(1,),
    single_device_why=(
        "each script builds one model on one device at module level and has "
        "no device count, tower loop or flag of its own"
    ),
)
