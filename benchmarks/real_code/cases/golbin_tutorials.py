"""golbin/TensorFlow-Tutorials (2017-2018): a Korean book's examples, from a
tf.layers CNN to a seq2seq chatbot program driven by tf.app.flags."""

from __future__ import annotations

import pathlib

from benchmarks.real_code._case import Case, Command
from benchmarks.real_code.cases import _mnist_idx

_CHATBOT = "10 - RNN/ChatBot"
_SAVER = "05 - TensorBoard, Saver"


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    """07 - CNN/mnist/data: the four idx .gz files read_data_sets reads (it
    downloads only what is missing); 5,500 training images, as its default
    validation split takes 5,000. The chatbot and the saver example read the
    repository's own data/chat.log, data/chat.voc and data.csv; the saver
    example resumes from the repository's own checkpoint (model/dnn.ckpt-100)."""
    del data
    _mnist_idx.write(tree / "07 - CNN" / "mnist" / "data", 5500, 300)


def _chatbot(*flags: str, expect: str, loss: str | None = None) -> Command:
    return Command(
        ["{python}", "train.py", "--train_dir={model_dir}", *flags],
        cwd=_CHATBOT,
        expect=expect,
        loss=loss,
        timeout=900,
    )


CASE = Case(
    name="golbin_tutorials",
    repo="golbin/TensorFlow-Tutorials",
    commit="909a8b77d5bb1db4732febee9ed68ab218478b97",
    what=(
        "golbin's book examples (TF 1.x, 2017-2018): a seq2seq chatbot program "
        "(tf.app.flags across modules, MultiRNNCell of DropoutWrapper'd "
        "BasicLSTMCells, a Saver, summaries) trained then tested by its own "
        "train.py, a Saver/TensorBoard example that resumes from the "
        "repository's checkpoint, a tf.layers CNN with tf.contrib.layers."
        "flatten on the TF 1.x MNIST tutorial reader, and a seq2seq translator"
    ),
    # Files, not folders: the mirror lacks the chatbot's trained checkpoint.
    paths=(
        f"{_CHATBOT}/chat.py",
        f"{_CHATBOT}/config.py",
        f"{_CHATBOT}/dialog.py",
        f"{_CHATBOT}/model.py",
        f"{_CHATBOT}/train.py",
        f"{_CHATBOT}/data/chat.log",
        f"{_CHATBOT}/data/chat.voc",
        f"{_SAVER}/02 - TensorBoard.py",
        f"{_SAVER}/data.csv",
        f"{_SAVER}/model",
        "07 - CNN/02 - tf.layers.py",
        "10 - RNN/03 - Seq2Seq.py",
    ),
    commands=[
        _chatbot(
            "--train",
            "--log_dir={model_dir}/logs",
            "--epoch=200",
            expect=r"Step: 000200 cost = [\d.]+",
            loss=r"cost = ([\d.]+)",
        ),
        # Not its --test: it cuts each answer at the end-of-sentence token,
        # which a model trained 200 steps rarely writes (ValueError).
        Command(
            ["{python}", "02 - TensorBoard.py"],
            cwd=_SAVER,
            expect=r"정확도: [\d.]+",
            loss=r"Cost: ([\d.]+)",
            timeout=600,
        ),
        Command(
            ["{python}", "02 - tf.layers.py"],
            cwd="07 - CNN",
            expect=r"정확도: [\d.]+",
            loss=r"Avg\. cost = ([\d.]+)",
            timeout=900,
        ),
        Command(
            ["{python}", "03 - Seq2Seq.py"],
            cwd="10 - RNN",
            expect=r"love -> ",
            loss=r"cost = ([\d.]+)",
            timeout=600,
        ),
    ],
    make_data=make_data,
    devices=(1,),
    single_device_why=(
        "each example builds one model on one device, with no device count, "
        "tower loop or command-line flag of its own"
    ),
)
