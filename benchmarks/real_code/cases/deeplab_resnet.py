"""DrSleep/tensorflow-deeplab-resnet (2016-2018): DeepLab-v2 ResNet-101
semantic segmentation on the caffe-tensorflow (kaffe) Network class, fed by
an ImageReader class whose queue (slice_input_producer over the image and
mask paths, read_file/decode, random scale/mirror/crop) is made in
`__init__` and batched with tf.train.batch in `dequeue()`; a tf.Session loop
of per-layer-group MomentumOptimizers.

Its commands, as the README gives them: npy2ckpt.py turns a .npy of
Caffe-converted weights into the checkpoint train.py restores, train.py
trains from it, inference.py writes one image's mask from the snapshot.
The kaffe layers are Python 2 code: `isinstance(name, basestring)`, a
grouped convolution's filter depth `c_i / group` of a Dimension and a
softmax layer that measures `map(...)`; --fix writes `str`, `//` and
`list(map(...))` (the first two are on the path train.py runs). The queue is left as a queue (its producer and its
batcher are in two methods) and runs under the compat.v1 port.
Not run: evaluate.py's streaming_mean_iou asserts that every label is below
--num-classes even where its weight is 0 (the 255 ignore label of every
PASCAL mask), an assertion TF added after the repository's TF 1.x; no rewrite
changes a metric's checks."""

from __future__ import annotations

import pathlib

from benchmarks.real_code._case import Case, Command


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    """VOC-style data under {data}: JPEGImages/*.jpg, SegmentationClassAug/*.png
    (class ids 0..20 and the 255 ignore label), train.txt listing the pairs
    as '/JPEGImages/x.jpg /SegmentationClassAug/x.png', and init.npy: the
    dict of layer -> {param: array} that npy2ckpt.py loads (conv1's weights;
    the other layers keep their initializers)."""
    del tree
    import numpy as np  # noqa: PLC0415
    from PIL import Image  # noqa: PLC0415

    rng = np.random.default_rng(0)
    for folder in ("JPEGImages", "SegmentationClassAug"):
        (data / folder).mkdir()
    lines = []
    for i in range(4):
        image = rng.integers(0, 255, (80, 96, 3), dtype=np.uint8)
        Image.fromarray(image).save(data / "JPEGImages" / f"img{i}.jpg")
        mask = rng.integers(0, 21, (80, 96), dtype=np.uint8)
        mask[:4, :] = 255
        Image.fromarray(mask).save(data / "SegmentationClassAug" / f"img{i}.png")
        lines.append(f"/JPEGImages/img{i}.jpg /SegmentationClassAug/img{i}.png")
    (data / "train.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    weights = (rng.standard_normal((7, 7, 3, 64)) * 0.01).astype(np.float32)
    np.save(data / "init.npy", {"conv1": {"weights": weights}})


CASE = Case(
    name="deeplab_resnet",
    repo="DrSleep/tensorflow-deeplab-resnet",
    commit="e69bdf0a3a43963cf7adfd2032998f2cd45b7532",
    what=(
        "DeepLab-ResNet (Apr 2018): ResNet-101 segmentation on kaffe's "
        "Network layers (Python 2: basestring, Dimension / int), queue input "
        "from an ImageReader class (slice_input_producer in __init__, "
        "tf.train.batch in dequeue), slim.batch_norm, tf.py_func summaries, "
        "three MomentumOptimizers in a tf.Session loop; npy2ckpt.py, "
        "train.py, then inference.py"
    ),
    commands=[
        Command(
            [
                "{python}",
                "npy2ckpt.py",
                "{data}/init.npy",
                "--save-dir={model_dir}/init",
            ],
            expect=r"The weights have been converted to ",
            timeout=600,
        ),
        Command(
            [
                "{python}",
                "train.py",
                "--data-dir={data}",
                "--data-list={data}/train.txt",
                "--batch-size=2",
                "--input-size=65,65",
                "--num-steps=3",
                "--save-pred-every=2",
                "--random-scale",
                "--random-mirror",
                "--restore-from={model_dir}/init/model.ckpt",
                "--snapshot-dir={model_dir}/snapshots",
            ],
            expect=r"Restored model parameters from (?s:.*)step 2 \t loss = ",
            loss=r"step 0 \t loss = ([\d.]+)",
            timeout=900,
        ),
        Command(
            [
                "{python}",
                "inference.py",
                "{data}/JPEGImages/img0.jpg",
                "{model_dir}/snapshots/model.ckpt-2",
                "--save-dir={model_dir}/output/",
            ],
            expect=r"The output file has been saved to ",
            timeout=600,
        ),
    ],
    make_data=make_data,
    devices=(1,),
    single_device_why=(
        "train.py builds one network on one device and has no device count, "
        "tower loop or device flag of its own"
    ),
)
