"""shekkizh/FCN.tensorflow (2016-2018): FCN-8s semantic segmentation on
VGG-19, the network's conv layers initialized from MatConvNet's
imagenet-vgg-verydeep-19.mat (read with scipy.io.loadmat), trained on MIT
Scene Parsing (ADE20K) images that BatchDatsetReader reads with scipy.misc
into memory and feeds batch by batch (feed_dict) to a tf.Session loop.

Its commands, as the README gives them: FCN.py --mode=train, then
FCN.py --mode=visualize, which restores the checkpoint from --logs_dir and
writes the input, ground truth and prediction images. The training loop is
`for itr in xrange(MAX_ITERATION)` with a module constant of 100001 and no
flag to shorten it, so the train run counts as done when a time limit stops
it (timeout's 124) after it printed step 10's loss; it saves its checkpoint
at step 0, the one visualize restores. --fix ports the TF names
(compat.v1), the scipy.misc image functions and TensorflowUtils' Python 2
`reduce`; one hand edit is left, an np.expand_dims axis past the end of a
2-D array that NumPy 1.18 stopped accepting.

Data: the scene parsing zip's folders and a MatConvNet-layout .mat of
random filters (make_data), so neither download runs. SciPy (scipy.io,
for the .mat) is in the environment already.
"""

from __future__ import annotations

import pathlib
import zipfile

import numpy as np
from PIL import Image

from benchmarks.real_code._case import Case, Command, HandEdit

_SECONDS = 120  # the train run's time limit: the loop never ends by itself
_SCENES = "ADEChallengeData2016"  # DATA_URL's zip, and the folder it unzips to
_CLASSES = 151  # NUM_OF_CLASSESS: 150 classes and 0 for "other"
# VGG-19's conv layers in MatConvNet's order, the indices vgg_net reads them
# at; narrower than VGG-19 except conv5_3, whose 512 channels the fc6 weights
# (W6, [7, 7, 512, 4096] in FCN.py) take.
_LAYERS = (
    ("conv1_1", 3, 8), ("relu1_1",), ("conv1_2", 8, 8), ("relu1_2",), ("pool1",),
    ("conv2_1", 8, 16), ("relu2_1",), ("conv2_2", 16, 16), ("relu2_2",), ("pool2",),
    ("conv3_1", 16, 32), ("relu3_1",), ("conv3_2", 32, 32), ("relu3_2",),
    ("conv3_3", 32, 32), ("relu3_3",), ("conv3_4", 32, 32), ("relu3_4",), ("pool3",),
    ("conv4_1", 32, 64), ("relu4_1",), ("conv4_2", 64, 64), ("relu4_2",),
    ("conv4_3", 64, 64), ("relu4_3",), ("conv4_4", 64, 64), ("relu4_4",), ("pool4",),
    ("conv5_1", 64, 64), ("relu5_1",), ("conv5_2", 64, 64), ("relu5_2",),
    ("conv5_3", 64, 512), ("relu5_3",), ("conv5_4", 512, 64), ("relu5_4",),
)  # fmt: skip


def _vgg_mat(path: pathlib.Path, rng) -> None:
    """A MatConvNet model file: `layers`, a 1 x n cell of structs whose first
    field, `weights`, is a 1 x 2 cell {filters [w, h, in, out], biases
    [1, out]} (`weights[i][0][0][0][0]` in vgg_net), and `normalization`, a
    struct whose first field is the average image (its per-pixel mean is
    subtracted from the input)."""
    import scipy.io  # noqa: PLC0415

    layer = np.dtype([("weights", object), ("name", object), ("type", object)])
    layers = np.empty((1, len(_LAYERS)), dtype=object)
    for i, (name, *shape) in enumerate(_LAYERS):
        cell = np.empty((1, 2 if shape else 0), dtype=object)
        if shape:
            fan_in, out = shape
            std = np.sqrt(2.0 / (9 * fan_in))
            cell[0, 0] = rng.normal(0, std, (3, 3, fan_in, out)).astype(np.float32)
            cell[0, 1] = np.zeros((1, out), np.float32)
        struct = np.zeros((1, 1), dtype=layer)
        struct[0, 0] = (cell, name, name[:4].rstrip("_0123456789"))
        layers[0, i] = struct
    norm = np.zeros((1, 1), dtype=[("averageImage", object), ("imageSize", object)])
    average = np.broadcast_to([123.68, 116.78, 103.94], (224, 224, 3))
    norm[0, 0] = (average.astype(np.float32), np.array([[224, 224, 3]], np.float64))
    scipy.io.savemat(path, {"layers": layers, "normalization": norm})


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    """{data}/ADEChallengeData2016/{images,annotations}/{training,validation}:
    RGB .jpg scenes and .png class maps (0..150) of the same name, the
    layout create_image_lists reads, beside ADEChallengeData2016.zip (the
    same files zipped: maybe_download_and_extract downloads only when the
    zip is missing). Model_zoo/imagenet-vgg-verydeep-19.mat: random
    filters in MatConvNet's layout (_vgg_mat)."""
    del tree
    rng = np.random.default_rng(0)
    root = data / _SCENES
    for split, count in (("training", 6), ("validation", 3)):
        (root / "images" / split).mkdir(parents=True)
        (root / "annotations" / split).mkdir(parents=True)
        for i in range(count):
            name = f"ADE_{split[:5]}_{i:08d}"
            height, width = rng.integers(48, 80, size=2)
            classes = rng.integers(0, _CLASSES, size=4)
            label = np.zeros((height, width), np.uint8)
            label[: height // 2] = classes[0]
            label[height // 2 :, : width // 2] = classes[1]
            label[height // 2 :, width // 2 :] = classes[2]
            image = rng.integers(0, 64, (height, width, 3)) + label[..., None]
            image = np.clip(image, 0, 255).astype(np.uint8)
            Image.fromarray(image).save(root / "images" / split / f"{name}.jpg")
            Image.fromarray(label).save(root / "annotations" / split / f"{name}.png")
    with zipfile.ZipFile(data / f"{_SCENES}.zip", "w") as archive:
        for path in sorted(root.rglob("*")):
            archive.write(path, path.relative_to(data))
    (data / "Model_zoo").mkdir()
    _vgg_mat(data / "Model_zoo" / "imagenet-vgg-verydeep-19.mat", rng)


_FLAGS = [
    "--batch_size=2",
    "--data_dir={data}/",
    "--model_dir={data}/Model_zoo/",
    # FCN.py writes FLAGS.logs_dir + "model.ckpt": the slash is the user's
    "--logs_dir={model_dir}/",
]

CASE = Case(
    name="fcn_segmentation",
    repo="shekkizh/FCN.tensorflow",
    commit="c90f16c3a9ca85da0b422145241e64eaec580a8f",
    what=(
        "FCN-8s semantic segmentation on VGG-19 (May 2018; later commits "
        "change only the README): tf.flags and tf.app.run, a MatConvNet "
        ".mat read with scipy.io.loadmat into constant-initialized "
        "get_variables, Dimension.value, tf.argmax(dimension=), "
        "squeeze_dims=, scipy.misc imread/imresize/imsave, six.moves, "
        "feed_dict training with two summary FileWriters and a Saver, then "
        "a visualize mode that restores it"
    ),
    paths=(
        "FCN.py",
        "TensorflowUtils.py",
        "BatchDatsetReader.py",
        "read_MITSceneParsingData.py",
    ),
    make_data=make_data,
    env={"PYTHONUNBUFFERED": "1"},
    commands=[
        Command(
            [
                "bash",
                "-c",
                f'timeout {_SECONDS} "$@"; test $? -eq 124',
                "bash",
                "{python}",
                "FCN.py",
                "--mode=train",
                *_FLAGS,
            ],
            expect=r"Validation_loss: [\d.e+-]+(?s:.*)Step: 10, Train_loss:[\d.e+-]+",
            loss=r"Step: 0, Train_loss:([\d.e+-]+)",
            timeout=_SECONDS + 60,
        ),
        Command(
            ["{python}", "FCN.py", "--mode=visualize", *_FLAGS],
            expect=r"Model restored\.\.\.(?s:.*)Saved image: 1",
            timeout=600,
        ),
    ],
    devices=(1,),
    single_device_why=(
        "FCN.py builds one network on one device and has no device count, "
        "tower loop or device flag of its own"
    ),
    hand_edits=[
        HandEdit(
            "BatchDatsetReader.py",
            "np.expand_dims(self._transform(filename['annotation']), axis=3)",
            "np.expand_dims(self._transform(filename['annotation']), axis=-1)",
            why=(
                "axis=3 of a 2-D class map: NumPy up to 1.17 put an axis past "
                "the end at the end (deprecated in 1.13), NumPy 1.18 on raises "
                "AxisError. The array's rank is known only once the PNG is "
                "read, so nothing in the call tells this axis from a valid "
                "axis=3 of an image batch, and the old behaviour's exact "
                "form, axis=min(3, np.ndim(x)), would evaluate the argument "
                "(a method call that reads and resizes the file) twice"
            ),
        )
    ],
)
