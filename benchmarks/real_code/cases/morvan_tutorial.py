"""MorvanZhou's TensorFlow tutorial (2017-2019): small standalone scripts of
tf.layers, tf.data and the TF 1.x MNIST tutorial reader."""

from __future__ import annotations

import pathlib

from benchmarks.real_code._case import Case, Command
from benchmarks.real_code.cases import _mnist_idx


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    """tutorial-contents/mnist: the four idx .gz files read_data_sets('./mnist')
    reads (it downloads only what is missing). 5,500 training images: its
    default validation_size takes the first 5,000."""
    del data
    _mnist_idx.write(tree / "tutorial-contents" / "mnist", 5500, 500)


CASE = Case(
    name="morvan_tutorial",
    repo="MorvanZhou/Tensorflow-Tutorial",
    commit="f97c56b3b026fa1d9356e9581284e6f246614310",
    what=(
        "MorvanZhou's tutorial scripts (2017-2019): a tf.data initializable "
        "iterator over placeholders, a tf.layers CNN on the TF 1.x MNIST "
        "tutorial reader with tf.metrics.accuracy, tf.layers.batch_normalization "
        "with UPDATE_OPS, and a GAN with reused tf.layers.dense scopes"
    ),
    paths=(
        "tutorial-contents/306_dataset.py",
        "tutorial-contents/401_CNN.py",
        "tutorial-contents/406_GAN.py",
        "tutorial-contents/502_batch_normalization.py",
    ),
    commands=[
        Command.script(
            "306_dataset.py",
            r"Finish the last epoch",
            loss=r"train loss: ([\d.]+)",
            cwd="tutorial-contents",
        ),
        Command.script(
            "401_CNN.py",
            r"real number",
            loss=r"train loss: ([\d.]+)",
            cwd="tutorial-contents",
        ),
        Command.script("406_GAN.py", r"^", cwd="tutorial-contents"),
        Command.script(
            "502_batch_normalization.py", r"Epoch:\s+11", cwd="tutorial-contents"
        ),
    ],
    make_data=make_data,
    devices=(1,),
    single_device_why=(
        "each script builds one model on one device, with no device count, "
        "tower loop or command-line flag of its own"
    ),
    # matplotlib without a display draws with its file backend.
    env={"MPLBACKEND": "Agg"},
)
