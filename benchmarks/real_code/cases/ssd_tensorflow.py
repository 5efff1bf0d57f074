"""balancap/SSD-Tensorflow: SSD 300 (VGG-16) on Pascal VOC with TF-slim
(2017), trained by slim.learning.train over model_deploy clones (--num_clones)."""

from __future__ import annotations

import pathlib

from benchmarks.real_code._case import Case, Command
from benchmarks.real_code.cases._features import floats, ints, strings

# Pascal VOC's class ids (datasets/pascal_common.VOC_LABELS): a few of them.
_LABELS = ((b"dog", 12), (b"person", 15), (b"car", 7))


def _example(tf, rng, index: int):
    """One image with its boxes, as datasets/pascalvoc_to_tfrecords.py writes it."""
    height, width = 96 + 8 * (index % 3), 128
    pixels = rng.integers(0, 255, size=(height, width, 3), dtype="uint8")
    jpeg = tf.io.encode_jpeg(pixels).numpy()
    boxes = [(0.1, 0.2, 0.6, 0.7), (0.3, 0.1, 0.9, 0.5)][: 1 + index % 2]
    labels = [_LABELS[(index + i) % 3] for i in range(len(boxes))]

    feature = {
        "image/height": ints([height]),
        "image/width": ints([width]),
        "image/channels": ints([3]),
        "image/shape": ints([height, width, 3]),
        "image/object/bbox/ymin": floats([b[0] for b in boxes]),
        "image/object/bbox/xmin": floats([b[1] for b in boxes]),
        "image/object/bbox/ymax": floats([b[2] for b in boxes]),
        "image/object/bbox/xmax": floats([b[3] for b in boxes]),
        "image/object/bbox/label": ints([label for _, label in labels]),
        "image/object/bbox/label_text": strings([text for text, _ in labels]),
        "image/object/bbox/difficult": ints([0] * len(boxes)),
        "image/object/bbox/truncated": ints([0] * len(boxes)),
        "image/format": strings([b"JPEG"]),
        "image/encoded": strings([jpeg]),
    }
    return tf.train.Example(features=tf.train.Features(feature=feature))


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    """voc_2007_train_000.tfrecord: 8 small JPEG images with their boxes."""
    del tree
    import numpy as np
    import tensorflow as tf

    rng = np.random.default_rng(0)
    with tf.io.TFRecordWriter(str(data / "voc_2007_train_000.tfrecord")) as writer:
        for i in range(8):
            writer.write(_example(tf, rng, i).SerializeToString())


CASE = Case(
    name="ssd_tensorflow",
    repo="balancap/SSD-Tensorflow",
    commit="e0e3104d3a2cc5d830fad041d4e56ebcf84caac3",
    what=(
        "a widely used TF-slim detector (2017): slim datasets and "
        "DatasetDataProvider, prefetch_queue, model_deploy clones over "
        "--num_clones, slim.learning.train"
    ),
    paths=(
        "train_ssd_network.py",
        "tf_utils.py",
        "datasets",
        "deployment",
        "nets",
        "preprocessing",
        "tf_extended",
    ),
    make_data=make_data,
    commands=[
        Command(
            [
                "{python}",
                "train_ssd_network.py",
                "--train_dir={model_dir}",
                "--dataset_dir={data}",
                "--dataset_name=pascalvoc_2007",
                "--dataset_split_name=train",
                "--model_name=ssd_300_vgg",
                "--num_clones={num_gpus}",
                "--batch_size=1",
                "--max_number_of_steps=2",
                "--log_every_n_steps=1",
                "--num_readers=1",
                "--num_preprocessing_threads=1",
                "--save_summaries_secs=600",
                "--save_interval_secs=600",
                "--optimizer=sgd",
            ],
            expect=r"global step 2\b",
            loss=r"global step 1: loss = ([\d.]+)",
            timeout=900,
        )
    ],
)
