"""Zehaos/MobileNet: MobileNet on the flowers dataset with TF-slim's image
classification trainer (2017), trained by slim.learning.train over
model_deploy clones (--num_clones).

Needs `pip install easydict` (pure Python): nets_factory imports the
detector network (nets/mobilenetdet), whose config module (configs/
kitti_config.py) imports it, whatever the model name.
Without --clone_on_cpu, model_deploy puts clone i on /device:GPU:i, which
runs on simulated devices here; --clone_on_cpu would put every clone on
CPU:0.
"""

from __future__ import annotations

import pathlib

from benchmarks.real_code._case import Case, Command
from benchmarks.real_code.cases._features import ints, strings

_CLASSES = ("daisy", "dandelion", "roses", "sunflowers", "tulips")


def _example(tf, rng, index: int):
    """One image as datasets/download_and_convert_flowers.py writes it."""
    height, width = 240 + 8 * (index % 3), 256
    pixels = rng.integers(0, 255, size=(height, width, 3), dtype="uint8")
    jpeg = tf.io.encode_jpeg(pixels).numpy()

    feature = {
        "image/encoded": strings([jpeg]),
        "image/format": strings([b"jpg"]),
        "image/class/label": ints([index % len(_CLASSES)]),
        "image/height": ints([height]),
        "image/width": ints([width]),
    }
    return tf.train.Example(features=tf.train.Features(feature=feature))


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    """flowers_train_0000N-of-00005.tfrecord (4 JPEG images each) and labels.txt."""
    del tree
    import numpy as np
    import tensorflow as tf

    rng = np.random.default_rng(0)
    for shard in range(5):
        name = data / f"flowers_train_{shard:05d}-of-00005.tfrecord"
        with tf.io.TFRecordWriter(str(name)) as writer:
            for i in range(4):
                writer.write(_example(tf, rng, shard * 4 + i).SerializeToString())
    labels = "".join(f"{i}:{name}\n" for i, name in enumerate(_CLASSES))
    (data / "labels.txt").write_text(labels, encoding="utf-8")


CASE = Case(
    name="mobilenet_slim",
    repo="Zehaos/MobileNet",
    commit="bb02b10fbd211d717f7a207245feac229f6bb23e",
    what=(
        "a popular MobileNet reimplementation on TF-slim's image classifier "
        "trainer (2017): slim datasets and DatasetDataProvider, tf.train.batch, "
        "prefetch_queue, model_deploy clones over --num_clones, "
        "slim.learning.train"
    ),
    paths=(
        "train_image_classifier.py",
        "datasets",
        "deployment",
        "nets",
        "optimizer",
        "preprocessing",
        "configs",
        "utils",
    ),
    make_data=make_data,
    commands=[
        Command(
            [
                "{python}",
                "train_image_classifier.py",
                "--train_dir={model_dir}",
                "--dataset_dir={data}",
                "--dataset_name=flowers",
                "--dataset_split_name=train",
                "--model_name=mobilenet",
                "--width_multiplier=0.25",
                "--train_image_size=224",
                "--num_clones={num_gpus}",
                "--batch_size=4",
                "--max_number_of_steps=3",
                "--log_every_n_steps=1",
                "--num_readers=1",
                "--num_preprocessing_threads=1",
                "--save_summaries_secs=600",
                "--save_interval_secs=600",
                "--optimizer=sgd",
            ],
            expect=r"global step 3\b",
            loss=r"global step 1: loss = ([\d.]+)",
            timeout=900,
        )
    ],
)
