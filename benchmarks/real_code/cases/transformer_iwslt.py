"""Kyubyong/transformer (2019): a Transformer trained in a tf.Session on tf.data."""

from __future__ import annotations

import pathlib
import random

from benchmarks.real_code._case import Case, Command

_GERMAN = "ich du wir sie haus katze hund sieht hat ein der die das und".split()
_ENGLISH = "i you we they house cat dog sees has a the and".split()
_RESERVED = ["<pad>", "<unk>", "<s>", "</s>"]
VOCAB_SIZE = len(_RESERVED) + len(set(_GERMAN + _ENGLISH))


def _sentences(words: list[str], rows: int, rng: random.Random) -> list[str]:
    return [
        " ".join(rng.choice(words) for _ in range(rng.randint(3, 7)))
        for _ in range(rows)
    ]


def _pairs(data: pathlib.Path, split: str, rows: int, seed: int) -> None:
    rng = random.Random(seed)
    segmented = data / "segmented"
    (segmented / f"{split}.de.bpe").write_text(
        "\n".join(_sentences(_GERMAN, rows, rng)) + "\n"
    )
    english = _sentences(_ENGLISH, rows, rng)
    (segmented / f"{split}.en.bpe").write_text("\n".join(english) + "\n")
    if split == "eval":  # the unsegmented reference multi-bleu.perl scores against
        (data / "prepro" / "eval.en").write_text("\n".join(english) + "\n")


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    # The layout prepro.py writes (sentencepiece's vocabulary: token<TAB>score,
    # the four reserved ids first), with whole words as the BPE pieces.
    (data / "segmented").mkdir()
    (data / "prepro").mkdir()
    tokens = _RESERVED + sorted(set(_GERMAN + _ENGLISH))
    (data / "segmented" / "bpe.vocab").write_text(
        "".join(f"{t}\t0\n" for t in tokens), encoding="utf-8"
    )
    _pairs(data, "train", 16, seed=0)
    _pairs(data, "eval", 8, seed=1)


CASE = Case(
    name="transformer_iwslt",
    repo="Kyubyong/transformer",
    commit="fb023bb097e08d53baf25b46a9da490beba51a21",
    what=(
        "Kyubyong/transformer (Sep 2019): the Transformer of 'Attention Is All "
        "You Need' trained with its own tf.Session loop; tf.data from_generator "
        "with padded_batch, a reinitializable Iterator.from_structure for train "
        "and eval, tf.layers, contrib xavier_initializer, tf.py_func, greedy "
        "decoding in the graph and BLEU by multi-bleu.perl after each epoch"
    ),
    paths=(
        "train.py",
        "model.py",
        "modules.py",
        "data_load.py",
        "utils.py",
        "hparams.py",
        "multi-bleu.perl",
    ),
    commands=[
        Command(
            [
                "{python}",
                "train.py",
                "--train1={data}/segmented/train.de.bpe",
                "--train2={data}/segmented/train.en.bpe",
                "--eval1={data}/segmented/eval.de.bpe",
                "--eval2={data}/segmented/eval.en.bpe",
                "--eval3={data}/prepro/eval.en",
                "--vocab={data}/segmented/bpe.vocab",
                f"--vocab_size={VOCAB_SIZE}",
                "--logdir={model_dir}/log",
                "--evaldir={model_dir}/eval",
                "--batch_size=4",
                "--eval_batch_size=4",
                "--num_epochs=2",
                "--d_model=16",
                "--d_ff=32",
                "--num_blocks=1",
                "--num_heads=2",
                "--maxlen1=12",
                "--maxlen2=12",
                "--warmup_steps=4",
            ],
            expect=r"after training of 2 epochs",
            loss=r"iwslt2016_E01L(\d+\.\d+)",
            timeout=600,
        )
    ],
    make_data=make_data,
    devices=(1,),
    single_device_why=(
        "one tf.Session graph with no device placement, tower code or device "
        "flag of its own"
    ),
)
