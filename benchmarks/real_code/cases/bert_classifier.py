"""google-research/bert (2018-2019): run_classifier.py, BERT fine-tuning on
a GLUE task through tf.contrib.tpu's TPUEstimator (use_tpu=False off TPU)
with TPUEstimatorSpec, RunConfig/TPUConfig and per-host input, an input_fn
over a TFRecord file it writes itself (tf.data with
tf.contrib.data.map_and_batch), its own AdamWeightDecayOptimizer and
tf.flags.

--fix runs the TPUEstimator as `emg.estimator.tpu.TPUEstimator` and gives
the program a --num_gpus flag that its RunConfig reads: the model_fn then
runs as towers over --num_gpus devices. Off TPU, TF 1.x's TPUEstimator logs
no training loss (only global_step/sec and examples/sec), so the loss
reported is the first the program prints: the evaluation's, after
training. No checkpoint to start from: --init_checkpoint is optional and
the model here is a 2-layer BERT of hidden size 32 trained from scratch."""

from __future__ import annotations

import json
import pathlib
import random

from benchmarks.real_code._case import Case, Command

_WORDS = "the a cat dog sat on mat ran fast slow big small red blue house tree".split()


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    """MRPC/{train,dev,test}.tsv as GLUE ships them (a header, then
    quality, two ids and two sentences), a WordPiece vocab.txt and a tiny
    bert_config.json."""
    del tree
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ".", ",", *_WORDS]
    (data / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    config = {
        "attention_probs_dropout_prob": 0.1,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "hidden_size": 32,
        "initializer_range": 0.02,
        "intermediate_size": 64,
        "max_position_embeddings": 64,
        "num_attention_heads": 2,
        "num_hidden_layers": 2,
        "type_vocab_size": 2,
        "vocab_size": len(vocab),
    }
    (data / "bert_config.json").write_text(json.dumps(config), encoding="utf-8")
    rng = random.Random(0)

    def sentence() -> str:
        return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(3, 8))) + " ."

    (data / "MRPC").mkdir()
    for name, rows in (("train", 16), ("dev", 8), ("test", 8)):
        lines = ["Quality\t#1 ID\t#2 ID\t#1 String\t#2 String"]
        for i in range(rows):
            quality = i if name == "test" else rng.randint(0, 1)
            lines.append(f"{quality}\t{i}\t{i + 100}\t{sentence()}\t{sentence()}")
        (data / "MRPC" / f"{name}.tsv").write_text(
            "\n".join(lines) + "\n", encoding="utf-8"
        )


CASE = Case(
    name="bert_classifier",
    repo="google-research/bert",
    commit="cc7051dc592802f501e8a6f71f8fb3cf9de95dc9",
    what=(
        "BERT run_classifier.py (2018-2019): a TPUEstimator (use_tpu=False) "
        "model_fn with TPUEstimatorSpec and scaffold_fn, RunConfig/TPUConfig, "
        "a TFRecord input_fn with tf.contrib.data.map_and_batch, its own "
        "AdamWeightDecayOptimizer, tf.flags; MRPC train, eval and predict"
    ),
    paths=(
        "__init__.py",
        "modeling.py",
        "optimization.py",
        "tokenization.py",
        "run_classifier.py",
    ),
    commands=[
        Command(
            [
                "{python}",
                "run_classifier.py",
                "--task_name=MRPC",
                "--do_train=true",
                "--do_eval=true",
                "--do_predict=true",
                "--data_dir={data}/MRPC",
                "--vocab_file={data}/vocab.txt",
                "--bert_config_file={data}/bert_config.json",
                "--max_seq_length=32",
                "--train_batch_size=4",
                "--num_train_epochs=1",
                "--output_dir={model_dir}",
                "--num_gpus={num_gpus}",
            ],
            # Prediction logs nothing after it starts: a run that ends with
            # status 0 after this line wrote test_results.tsv.
            expect=(
                r"Saving dict for global step 4: eval_accuracy = [\d.]+"
                r"(?s:.*)\*\*\*\*\* Running prediction\*\*\*\*\*"
            ),
            loss=r"eval_loss = ([\d.]+)",
            timeout=900,
        )
    ],
    make_data=make_data,
)
