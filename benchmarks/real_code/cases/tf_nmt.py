"""tensorflow/nmt (2019): the TF 1.x neural machine translation tutorial."""

from __future__ import annotations

import pathlib
import random

from benchmarks.real_code._case import Case, Command

_VI = "toi ban anh chi em nha cua xe di ve an uong".split()
_EN = "i you he she we house door car go come eat drink".split()
# nmt's vocabulary files: one token a line, <unk>, <s> and </s> first.
_RESERVED = ["<unk>", "<s>", "</s>"]


def _pairs(data: pathlib.Path, split: str, rows: int, seed: int) -> None:
    """A word-for-word 'translation' of random short sentences."""
    rng = random.Random(seed)
    source, target = [], []
    for _ in range(rows):
        ids = [rng.randrange(len(_VI)) for _ in range(rng.randint(2, 6))]
        source.append(" ".join(_VI[i] for i in ids))
        target.append(" ".join(_EN[i] for i in ids))
    (data / f"{split}.vi").write_text("\n".join(source) + "\n", encoding="utf-8")
    (data / f"{split}.en").write_text("\n".join(target) + "\n", encoding="utf-8")


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    # The layout nmt/scripts/download_iwslt15.sh leaves: {prefix}.{vi,en}.
    (data / "vocab.vi").write_text("\n".join(_RESERVED + _VI) + "\n", encoding="utf-8")
    (data / "vocab.en").write_text("\n".join(_RESERVED + _EN) + "\n", encoding="utf-8")
    _pairs(data, "train", 300, seed=0)
    _pairs(data, "tst2012", 20, seed=1)
    _pairs(data, "tst2013", 20, seed=2)


# nmt.nmt's training command (it evaluates and decodes dev and test too).
_TRAIN = [
    "{python}",
    "-m",
    "nmt.nmt",
    "--src=vi",
    "--tgt=en",
    "--vocab_prefix={data}/vocab",
    "--train_prefix={data}/train",
    "--dev_prefix={data}/tst2012",
    "--test_prefix={data}/tst2013",
    "--num_train_steps=10",
    "--steps_per_stats=5",
    "--num_layers=2",
    "--num_units=16",
    "--dropout=0.2",
    "--metrics=bleu",
    "--num_gpus={num_gpus}",
]
# The attention model (AttentionWrapper over LuongAttention(scale=True)),
# decoded by BeamSearchDecoder.
_ATTENTION = ["--attention=scaled_luong", "--infer_mode=beam_search", "--beam_width=2"]


CASE = Case(
    name="tf_nmt",
    repo="tensorflow/nmt",
    commit="0be864257a76c151eef20ea689755f08bc1faf4e",
    what=(
        "tensorflow/nmt (Feb 2019): the TF 1.x NMT tutorial's encoder-decoder, "
        "without attention and greedy inference, then with scaled Luong "
        "attention and beam search inference (beam width 2): tf.contrib.seq2seq "
        "TrainingHelper, GreedyEmbeddingHelper, BasicDecoder, dynamic_decode, "
        "LuongAttention, AttentionWrapper, BeamSearchDecoder and tile_batch; "
        "contrib.rnn "
        "cells placed per layer over --num_gpus with DeviceWrapper; tf.data "
        "with contrib.lookup vocabulary tables and group_by_window buckets; "
        "contrib.learn.ModeKeys and contrib.training.HParams; train, eval and "
        "infer graphs in their own sessions, BLEU on dev and test"
    ),
    paths=("nmt",),
    commands=[
        Command(
            [*_TRAIN, "--out_dir={model_dir}"],
            expect=r"# Done training!",
            loss=r"step 5 lr \S+ step-time \S+ wps \S+ ppl (\d+\.\d+)",
            timeout=600,
        ),
        Command(
            [*_TRAIN, "--out_dir={model_dir}/attention", *_ATTENTION],
            expect=r"# Done training!",
            loss=r"step 5 lr \S+ step-time \S+ wps \S+ ppl (\d+\.\d+)",
            timeout=600,
        ),
    ],
    make_data=make_data,
    devices=(1, 2),
)
