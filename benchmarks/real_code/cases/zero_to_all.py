"""hunkim/DeepLearningZeroToAll (2017): the lab scripts of a lecture course,
from a reader-queue CSV regression to tf.layers CNNs and tf.contrib RNNs."""

from __future__ import annotations

import pathlib

from benchmarks.real_code._case import Case, Command
from benchmarks.real_code.cases import _mnist_idx


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    """MNIST_data/: the four idx .gz files read_data_sets("MNIST_data/") reads
    (it downloads only what is missing). 5,500 training images: its default
    validation_size takes the first 5,000, leaving 500 to train on. The CSV
    labs read the repository's own data-01/data-02 files."""
    del data
    _mnist_idx.write(tree / "MNIST_data", 5500, 300)


CASE = Case(
    name="zero_to_all",
    repo="hunkim/DeepLearningZeroToAll",
    commit="9f8fb944c5574365e50887aca0170e5c4a9462ed",
    what=(
        "hunkim's lecture labs (TF 1.3, 2017): a CSV regression through "
        "string_input_producer/TextLineReader/decode_csv/tf.train.batch, an MLP "
        "with tf.contrib.layers.xavier_initializer and a tf.layers CNN class on "
        "the TF 1.x MNIST tutorial reader, and a tf.contrib.rnn LSTM with "
        "tf.contrib.layers.fully_connected on stock prices"
    ),
    paths=(
        "lab-04-4-tf_reader_linear_regression.py",
        "lab-10-3-mnist_nn_xavier.py",
        "lab-11-4-mnist_cnn_layers.py",
        "lab-12-5-rnn_stock_prediction.py",
        "data-01-test-score.csv",
        "data-02-stock_daily.csv",
    ),
    commands=[
        Command.script(
            "lab-04-4-tf_reader_linear_regression.py",
            r"Other scores will be",
            loss=r"(?m)^0 Cost:\s+([\d.]+)",
        ),
        Command.script(
            "lab-10-3-mnist_nn_xavier.py", r"Prediction:", loss=r"cost = ([\d.]+)"
        ),
        Command.script(
            "lab-11-4-mnist_cnn_layers.py", r"Accuracy:", loss=r"cost = ([\d.]+)"
        ),
        Command.script(
            "lab-12-5-rnn_stock_prediction.py", r"RMSE:", loss=r"loss: ([\d.]+)"
        ),
    ],
    make_data=make_data,
    devices=(1,),
    single_device_why=(
        "each lab builds one model on one device, with no device count, "
        "tower loop or command-line flag of its own"
    ),
    # matplotlib without a display draws with its file backend.
    env={"MPLBACKEND": "Agg"},
)
