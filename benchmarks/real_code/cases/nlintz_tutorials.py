"""nlintz/TensorFlow-Tutorials (2016-2017): numbered standalone scripts on
the TF 1.x MNIST tutorial reader, from a convnet to tf.contrib.rnn's LSTM."""

from __future__ import annotations

import pathlib

from benchmarks.real_code._case import Case, Command
from benchmarks.real_code.cases import _mnist_idx


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    """MNIST_data/: the four idx .gz files read_data_sets("MNIST_data/") reads
    (it downloads only what is missing). 5,500 training images: its default
    validation_size takes the first 5,000, leaving 500 to train on."""
    del data
    _mnist_idx.write(tree / "MNIST_data", 5500, 300)


CASE = Case(
    name="nlintz_tutorials",
    repo="nlintz/TensorFlow-Tutorials",
    commit="d6bdab7df46492446c48537fcf37e20ba44e8168",
    what=(
        "nlintz's numbered tutorials (TF 1.0, 2017): a 3-layer convnet with "
        "RMSProp, tf.contrib.rnn's BasicLSTMCell/static_rnn under a "
        "ConfigProto, a Saver that resumes from global_step, and a GAN over "
        "dict-held variables, all fed from the TF 1.x MNIST tutorial reader"
    ),
    paths=(
        "05_convolutional_net.py",
        "07_lstm.py",
        "10_save_restore_net.py",
        "11_gan.py",
    ),
    commands=[
        # The first three print each epoch's test accuracy, no loss.
        Command.script("05_convolutional_net.py", r"(?m)^99 [\d.]+$"),
        Command.script("07_lstm.py", r"(?m)^99 [\d.]+$"),
        Command.script("10_save_restore_net.py", r"(?m)^99 [\d.]+$"),
        # i, the generator's loss, the discriminator's, ...
        Command.script("11_gan.py", r"(?m)^199\b", loss=r"(?m)^0 ([\d.]+) "),
    ],
    make_data=make_data,
    devices=(1,),
    single_device_why=(
        "each script builds one model on one device, with no device count, "
        "tower loop or command-line flag of its own"
    ),
)
