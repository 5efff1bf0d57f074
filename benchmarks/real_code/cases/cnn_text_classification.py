"""dennybritz/cnn-text-classification-tf: Kim's CNN for sentence classification
(2015-2018), a session program fed by feed_dict, its vocabulary built with
tf.contrib.learn.preprocessing.VocabularyProcessor."""

from __future__ import annotations

import pathlib
import random

from benchmarks.real_code._case import Case, Command, HandEdit

_WORDS = {
    "pos": "good fine great moving warm clever sharp bright funny brave".split(),
    "neg": "bad dull flat tired cold clumsy slow grim stale weak".split(),
}
_FILLER = "the film is a story with an actor and its plot".split()


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    """rt-polarity.pos / .neg: one sentence a line, latin-1 text as the
    original files (40 sentences each)."""
    del tree
    rng = random.Random(0)
    for kind, words in _WORDS.items():
        lines = [
            " ".join(rng.sample(_FILLER, 4) + rng.sample(words, 2) + ["."])
            for _ in range(40)
        ]
        (data / f"rt-polarity.{kind}").write_text("\n".join(lines) + "\n")


CASE = Case(
    name="cnn_text_classification",
    repo="dennybritz/cnn-text-classification-tf",
    commit="18762b459e21d9c70e5c242f8d43fc4e6db37a0d",
    what=(
        "a popular TF 1.x text CNN (2018): session code fed by feed_dict, "
        "tf.flags, tf.contrib.learn's VocabularyProcessor, summaries and a Saver"
    ),
    paths=("train.py", "text_cnn.py", "data_helpers.py", "eval.py"),
    make_data=make_data,
    commands=[
        Command(
            [
                "{python}",
                "train.py",
                "--positive_data_file={data}/rt-polarity.pos",
                "--negative_data_file={data}/rt-polarity.neg",
                "--embedding_dim=8",
                "--num_filters=4",
                "--batch_size=8",
                "--num_epochs=1",
                "--evaluate_every=5",
                "--checkpoint_every=5",
            ],
            expect=r"Saved model checkpoint to \S+model-5",
            loss=r"step 1, loss ([\d.]+)",
            timeout=600,
        )
    ],
    hand_edits=[
        HandEdit(
            "data_helpers.py",
            "    data = np.array(data)\n",
            "    data = np.array(data, dtype=object)\n",
            why=(
                "a NumPy change, not a TensorFlow one: NumPy 1.24+ refuses a ragged "
                "nested list (here (word ids [L], label [2]) pairs) where older NumPy "
                "made an object array; whether np.array's argument is ragged is known "
                "only from the values at run time, and dtype=object on every "
                "np.array call would change the regular ones"
            ),
        )
    ],
    devices=(1,),
    single_device_why=(
        "a single-device session program: no device flag, no tower loop; "
        "each step feeds one batch through feed_dict"
    ),
)
