"""Stanford CS 20's TensorFlow examples (2017-2018): tf.data iterators,
reader queues and a raw FIFOQueue with a QueueRunner, each a script of its own."""

from __future__ import annotations

import pathlib

from benchmarks.real_code._case import Case, Command
from benchmarks.real_code.cases import _mnist_idx


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    """examples/data/mnist: the four idx files unzipped, as utils.download_mnist
    leaves them (it downloads only when neither the .gz nor the unzipped file
    is there). The 2017 scripts read data/heart.csv, which the repository holds."""
    del data
    _mnist_idx.write(tree / "examples" / "data" / "mnist", 512, 128, gz=False)


CASE = Case(
    name="cs20_examples",
    repo="chiphuyen/stanford-tensorflow-tutorials",
    commit="51e53daaa2a32cfe7a1966f060b28dbbd081791c",
    what=(
        "Stanford CS 20 examples (2017-2018): logistic regression and a convnet "
        "on MNIST through tf.data reinitializable iterators (Iterator."
        "from_structure, AUTO_REUSE variable scopes, 30 hard-coded epochs), a "
        "CSV read by string_input_producer/TextLineReader/shuffle_batch, and a "
        "raw FIFOQueue filled by a QueueRunner's threads"
    ),
    # Files, not folders: the mirror lacks the large text corpora beside them.
    paths=(
        "examples/03_logreg.py",
        "examples/07_convnet_mnist.py",
        "examples/utils.py",
        "2017/examples/05_csv_reader.py",
        "2017/examples/09_queue_example.py",
        "2017/examples/data/heart.csv",
    ),
    commands=[
        Command.script(
            "03_logreg.py",
            r"Accuracy [\d.]+",
            cwd="examples",
            loss=r"Average loss epoch 0: ([\d.]+)",
        ),
        Command.script(
            "07_convnet_mnist.py",
            r"Accuracy at epoch 29: [\d.]+",
            cwd="examples",
            loss=r"Average loss at epoch 0: ([\d.]+)",
        ),
        Command.script("05_csv_reader.py", r"\[\[\s*[-\d.]+", cwd="2017/examples"),
        Command.script("09_queue_example.py", r"\[\s*[-\d.]+", cwd="2017/examples"),
    ],
    make_data=make_data,
    devices=(1,),
    single_device_why=(
        "each script builds one model on one device, with no device count, "
        "tower loop or command-line flag of its own"
    ),
)
