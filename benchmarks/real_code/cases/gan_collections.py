"""hwalsuklee/tensorflow-generative-model-collections: GANs and VAEs (GAN,
CGAN, infoGAN, ACGAN, EBGAN, BEGAN, WGAN, WGAN_GP, DRAGAN, LSGAN, VAE, CVAE)
behind one main.py, each a tf.Session loop over MNIST's gzipped idx files."""

from __future__ import annotations

import gzip
import pathlib

import numpy as np

from benchmarks.real_code._case import Case, Command

# utils.load_mnist reads exactly these counts from each file.
_TRAIN, _TEST = 60000, 10000


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    """data/mnist/{train,t10k}-{images-idx3,labels-idx1}-ubyte.gz under the
    tree (load_mnist opens ./data/<dataset> from where main.py runs), the
    MNIST release's gzipped idx files with random pixels and digits."""
    del data
    folder = tree / "data" / "mnist"
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    for prefix, count in (("train", _TRAIN), ("t10k", _TEST)):
        header = np.array([2051, count, 28, 28], ">i4").tobytes()
        pixels = rng.integers(0, 256, (count, 28, 28), dtype=np.uint8).tobytes()
        with gzip.open(folder / f"{prefix}-images-idx3-ubyte.gz", "wb", 1) as f:
            f.write(header + pixels)
        header = np.array([2049, count], ">i4").tobytes()
        labels = rng.integers(0, 10, count, dtype=np.uint8).tobytes()
        with gzip.open(folder / f"{prefix}-labels-idx1-ubyte.gz", "wb", 1) as f:
            f.write(header + labels)


def _train(gan_type: str) -> Command:
    return Command(
        [
            "{python}",
            "main.py",
            f"--gan_type={gan_type}",
            "--dataset=mnist",
            "--epoch=1",
            "--batch_size=64",
            "--z_dim=8",
            "--checkpoint_dir={model_dir}/checkpoint",
            # the models write to "./" + result_dir + ...: a relative folder
            "--result_dir=results",
            "--log_dir={model_dir}/logs",
        ],
        expect=r"\[\*\] Testing finished!",
        loss=r"d_loss: ([-\d.]+)",
        timeout=1500,
    )


CASE = Case(
    name="gan_collections",
    repo="hwalsuklee/tensorflow-generative-model-collections",
    commit="ee8cef767327fa1a82d1eff35a1c992e4bebe9ff",
    what=(
        "GAN and VAE collection (Feb 2018): argparse main.py, a tf.Session "
        "loop per model with tf.contrib.layers.batch_norm in its ops, "
        "slim's model_analyzer, summaries and a Saver; one epoch of the plain "
        "GAN on MNIST's gzipped idx files"
    ),
    make_data=make_data,
    commands=[_train("GAN")],
    devices=(1,),
    single_device_why=(
        "main.py builds each model on one device and has no device count, "
        "tower loop or clone flag of its own"
    ),
)
