"""carpedm20/DCGAN-tensorflow: a DCGAN in a tf.Session loop with contrib's
batch_norm, on MNIST's raw idx files (the conditional, y-labelled model)."""

from __future__ import annotations

import pathlib

import numpy as np

from benchmarks.real_code._case import Case, Command

# model.load_mnist reshapes each file to these counts.
_TRAIN, _TEST = 60000, 10000


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    """mnist/{train,t10k}-{images-idx3,labels-idx1}-ubyte, uncompressed, as
    download.py leaves them: a 16-byte (images) or 8-byte (labels) header,
    then uint8 pixels or digits (random here)."""
    del tree
    folder = data / "mnist"
    folder.mkdir(parents=True)
    rng = np.random.default_rng(0)
    for prefix, count in (("train", _TRAIN), ("t10k", _TEST)):
        header = np.array([2051, count, 28, 28], ">i4").tobytes()
        pixels = rng.integers(0, 256, (count, 28, 28), dtype=np.uint8)
        (folder / f"{prefix}-images-idx3-ubyte").write_bytes(header + pixels.tobytes())
        header = np.array([2049, count], ">i4").tobytes()
        labels = rng.integers(0, 10, count, dtype=np.uint8)
        (folder / f"{prefix}-labels-idx1-ubyte").write_bytes(header + labels.tobytes())


CASE = Case(
    name="dcgan_mnist",
    repo="carpedm20/DCGAN-tensorflow",
    commit="85edbcdc9a9183419b2d2654fe37d4281177bfb5",
    what=(
        "DCGAN (Aug 2018): tf.app.flags, a tf.Session loop alternating the "
        "discriminator's and generator's Adam steps through feed dicts, "
        "tf.contrib.layers.batch_norm in its own ops, summaries chosen by a "
        "try/except over TF 0.x names, slim's model_analyzer; the conditional "
        "model on MNIST's idx files"
    ),
    paths=("main.py", "model.py", "ops.py", "utils.py"),
    make_data=make_data,
    commands=[
        Command(
            [
                "{python}",
                "main.py",
                "--dataset=mnist",
                "--input_height=28",
                "--output_height=28",
                "--train",
                "--epoch=1",
                "--train_size=192",
                "--batch_size=64",
                "--data_dir={data}",
                "--checkpoint_dir={model_dir}/checkpoint",
                # visualize() writes to ./samples whatever --sample_dir says
                "--sample_dir=samples",
            ],
            expect=r"Epoch: \[ 0/ 1\] \[   2/   3\]",
            loss=r"d_loss: ([\d.]+)",
            timeout=900,
        )
    ],
    devices=(1,),
    single_device_why=(
        "main.py builds one DCGAN on one device and has no device count, "
        "tower loop or clone flag of its own"
    ),
)
