"""guillaumegenthial/sequence_tagging (2017): a BiLSTM-CRF tagger in a tf.Session."""

from __future__ import annotations

import pathlib
import random

from benchmarks.real_code._case import Case, Command

_DIM = 300  # model/config.py's dim_word, which names the GloVe file


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    # build_data.py keeps the words of data/test.txt that GloVe has: a GloVe
    # text file (word, then 300 floats) of the example's own words, where
    # model/config.py looks for it.
    words = set()
    for line in (tree / "data" / "test.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("-DOCSTART-"):
            word = line.split(" ")[0].lower()
            words.add("$NUM$" if word.isdigit() else word)
    rng = random.Random(0)
    glove = tree / "data" / "glove.6B"
    glove.mkdir(parents=True, exist_ok=True)
    lines = [
        " ".join([w] + [f"{rng.uniform(-1, 1):.4f}" for _ in range(_DIM)])
        for w in sorted(words)
    ]
    (glove / f"glove.6B.{_DIM}d.txt").write_text(
        "\n".join(lines) + "\n", encoding="utf-8"
    )


CASE = Case(
    name="sequence_tagging",
    repo="guillaumegenthial/sequence_tagging",
    commit="0048d604f7a4e15037875593b331e1268ad6e887",
    what=(
        "guillaumegenthial/sequence_tagging (Nov 2017): a named-entity tagger, "
        "char BiLSTM + word BiLSTM + CRF (tf.contrib.rnn.LSTMCell, "
        "bidirectional_dynamic_rnn, tf.contrib.crf.crf_log_likelihood and "
        "viterbi_decode) trained with its own tf.Session loop and early "
        "stopping; build_data.py then train.py on the repository's CoNLL "
        "example (data/test.txt)"
    ),
    commands=[
        Command(
            ["{python}", "build_data.py"],
            expect=r"- done\. \d+ tokens",
            timeout=300,
        ),
        Command(
            ["{python}", "train.py"],
            expect=r"Epoch 2 out of",
            loss=r"train loss: ([\d.]+)",
            timeout=900,
        ),
    ],
    make_data=make_data,
    devices=(1,),
    single_device_why=(
        "one tf.Session graph with no device placement, tower code or device "
        "flag of its own"
    ),
)
