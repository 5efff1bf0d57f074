"""sherjilozair/char-rnn-tensorflow: a character-level LSTM language model in a
tf.Session loop, built from tf.contrib.rnn cells and contrib.legacy_seq2seq."""

from __future__ import annotations

import pathlib

from benchmarks.real_code._case import Case, Command

_TEXT = (
    "First Citizen:\nBefore we proceed any further, hear me speak.\n\n"
    "All:\nSpeak, speak.\n\n"
    "First Citizen:\nYou are all resolved rather to die than to famish?\n\n"
)


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    """input.txt, the plain text utils.TextLoader reads (it writes vocab.pkl
    and data.npy beside it on first use), as data/tinyshakespeare holds it."""
    del tree
    folder = data / "text"
    folder.mkdir(parents=True)
    (folder / "input.txt").write_text(_TEXT * 12, encoding="utf-8")


CASE = Case(
    name="char_rnn",
    repo="sherjilozair/char-rnn-tensorflow",
    commit="4bff62d34ba6d536f052145cd3f8f79b6fa11365",
    what=(
        "char-rnn (Jan 2019): a character LSTM language model from "
        "tf.contrib.rnn cells (LSTMCell, MultiRNNCell, DropoutWrapper) and "
        "contrib.legacy_seq2seq's rnn_decoder and sequence_loss_by_example, "
        "trained in a tf.Session loop that feeds the LSTM state tuples back "
        "in; train.py, then sample.py from its checkpoint"
    ),
    paths=("model.py", "train.py", "sample.py", "utils.py"),
    make_data=make_data,
    commands=[
        Command(
            [
                "{python}",
                "train.py",
                "--data_dir={data}/text",
                "--save_dir={model_dir}/save",
                "--log_dir={model_dir}/logs",
                "--rnn_size=16",
                "--num_layers=2",
                "--seq_length=10",
                "--batch_size=8",
                "--num_epochs=1",
                "--input_keep_prob=0.9",
                "--output_keep_prob=0.9",
            ],
            expect=r"model saved to ",
            loss=r"train_loss = ([\d.]+)",
            timeout=600,
        ),
        Command(
            # --sample=0 (argmax): the default sampler (model.py's
            # weighted_pick) calls int() on a 1-element array, a TypeError on
            # NumPy 2.4; whether an int() call gets an array is known only at
            # run time, so no rewrite covers it (the default would need a
            # second hand edit: int(...[0])).
            [
                "{python}",
                "sample.py",
                "--save_dir={model_dir}/save",
                "-n",
                "40",
                "--sample=0",
                "--prime=First",
            ],
            expect=r"(?m)^First",
            timeout=300,
        ),
    ],
    # rnn.NASCell (--model=nas) has no TF 2 successor: --fix leaves it as
    # emg.migrate_gone(...) and drops the contrib import, so every other
    # --model runs and --model=nas stops there with what to do.
    devices=(1,),
    single_device_why=(
        "train.py builds one model on one device and has no device count, "
        "tower loop or clone flag of its own"
    ),
)
