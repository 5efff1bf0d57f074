"""tensorflow/models research/inception (2016-2018, here as models 1.4 held
it): Inception v3 trained by a hand-written multi-GPU tower loop over
--num_gpus, fed by a queue pipeline (string_input_producer, a
RandomShuffleQueue filled by TFRecordReader threads through add_queue_runner,
batch_join over preprocessing threads), on the repository's own early slim
library (scopes, ops, variables, losses); then its evaluation script restores
the checkpoint through the same queues.

The queues are left as queues (the reader feeds a RandomShuffleQueue that
several readers fill, then batch_join: no rewrite to tf.data covers it) and
run under the compat.v1 port; the tower loop resolves its devices through
`emg.devices.resolve(num_gpus=FLAGS.num_gpus)`, so --num_gpus=2 builds two
towers on two simulated devices. --image_size=139: the smallest size at
which the auxiliary head's 5x5 pool fits (299 is the default); the 17x17
stage is then 7x7."""

from __future__ import annotations

import io
import pathlib

from benchmarks.real_code._case import Case, Command
from benchmarks.real_code.cases import _features


def _example(tf, rng, i: int):
    """One flowers Example as build_image_data.py writes it: a JPEG, a label
    in 1..5 (0 is the background class), its text and one bounding box."""
    from PIL import Image  # noqa: PLC0415

    jpeg = io.BytesIO()
    pixels = rng.integers(0, 255, (48, 64, 3), dtype="uint8")
    Image.fromarray(pixels).save(jpeg, "JPEG")
    box = {"xmin": 0.1, "ymin": 0.1, "xmax": 0.9, "ymax": 0.9}
    feature = {
        "image/encoded": _features.strings([jpeg.getvalue()]),
        "image/class/label": _features.ints([1 + i % 5]),
        "image/class/text": _features.strings([b"daisy"]),
        **{f"image/object/bbox/{k}": _features.floats([v]) for k, v in box.items()},
    }
    return tf.train.Example(features=tf.train.Features(feature=feature))


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    """train-0000N-of-00002 (8 Examples each) and validation-00000-of-00001
    (8), the TFRecord shards FlowersData finds by '<subset>-*'."""
    del tree
    import numpy as np  # noqa: PLC0415
    import tensorflow as tf  # noqa: PLC0415

    rng = np.random.default_rng(0)
    shards = [f"train-{s:05d}-of-00002" for s in range(2)]
    for n, name in enumerate([*shards, "validation-00000-of-00001"]):
        with tf.io.TFRecordWriter(str(data / name)) as writer:
            for i in range(8):
                writer.write(_example(tf, rng, n * 8 + i).SerializeToString())


_INPUT = [
    "--batch_size=4",
    "--image_size=139",
    "--num_preprocess_threads=4",
    "--input_queue_memory_factor=1",
]

CASE = Case(
    name="inception_flowers",
    repo="Dzinushi/models_1_4",
    commit="fc37f117cb2d0d014851adf8e5e2d72d13a068a1",
    what=(
        "tensorflow/models research/inception (2016-2018): Inception v3 on "
        "flowers by a module-level tower loop over --num_gpus (tf.split of "
        "one batch, tower_%d name scopes, variables on the CPU, averaged "
        "gradients, RMSProp with moving averages), queue input "
        "(RandomShuffleQueue fed by TFRecordReader threads via "
        "add_queue_runner, batch_join), its own early slim library; "
        "flowers_train, then flowers_eval from the checkpoint"
    ),
    paths=("research/inception",),
    migrate_paths=("research/inception",),
    commands=[
        Command(
            [
                "{python}",
                "-m",
                "inception.flowers_train",
                "--data_dir={data}",
                "--train_dir={model_dir}/train",
                "--max_steps=3",
                "--num_gpus={num_gpus}",
                "--num_readers=1",
                *_INPUT,
            ],
            cwd="research/inception",
            expect=r"step 0, loss = [\d.]+",
            loss=r"step 0, loss = ([\d.]+)",
            timeout=1200,
        ),
        Command(
            [
                "{python}",
                "-m",
                "inception.flowers_eval",
                "--data_dir={data}",
                "--checkpoint_dir={model_dir}/train",
                "--eval_dir={model_dir}/eval",
                "--run_once",
                "--num_examples=8",
                *_INPUT,
            ],
            cwd="research/inception",
            expect=r"at step=2\.(?s:.*)precision @ 1 = [\d.]+ recall @ 5",
            timeout=600,
        ),
    ],
    make_data=make_data,
)
