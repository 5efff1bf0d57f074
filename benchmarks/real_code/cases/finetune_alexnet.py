"""kratzert/finetune_alexnet_with_tensorflow: AlexNet fine-tuned from the
bvlc_alexnet.npy weights on an image list, through the early tf.contrib.data
(TF 1.2-1.3's Dataset and Iterator)."""

from __future__ import annotations

import pathlib

import numpy as np
from PIL import Image

from benchmarks.real_code._case import Case, Command, HandEdit

_IMAGES = 128  # per list: batch_size is 128, and an epoch is floor(n / 128) steps
# The layers load_initial_weights assigns (fc6-fc8 are train_layers: skipped),
# with the shapes alexnet.py gives their variables.
_CONV = {
    "conv1": (11, 11, 3, 96),
    "conv2": (5, 5, 48, 256),
    "conv3": (3, 3, 256, 384),
    "conv4": (3, 3, 192, 384),
    "conv5": (3, 3, 192, 256),
}


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    """bvlc_alexnet.npy beside alexnet.py (its default weights path, relative
    to the working folder): a pickled dict of layer name -> [weights,
    biases], as the Caffe-converted file is; train.txt and val.txt ("<image
    path> <class>" lines, the format _read_txt_file splits) in the tree, and
    the PNG images (decode_png) they name under `data`."""
    rng = np.random.default_rng(0)
    weights = {
        name: [
            rng.normal(0, 0.01, shape).astype(np.float32),
            np.full(shape[-1], 0.1, np.float32),
        ]
        for name, shape in _CONV.items()
    }
    np.save(tree / "bvlc_alexnet.npy", weights)
    for split in ("train", "val"):
        folder = data / split
        folder.mkdir(parents=True)
        lines = []
        for i in range(_IMAGES):
            label = i % 2
            pixels = rng.integers(0, 128, (32, 32, 3)) + 127 * label
            path = folder / f"{i}.png"
            Image.fromarray(pixels.astype(np.uint8)).save(path)
            lines.append(f"{path} {label}\n")
        (tree / f"{split}.txt").write_text("".join(lines))


# finetune.py's configuration block, from its first setting to its last.
_CONFIG = """\
train_file = '/path/to/train.txt'
val_file = '/path/to/val.txt'

# Learning params
learning_rate = 0.01
num_epochs = 10
batch_size = 128

# Network params
dropout_rate = 0.5
num_classes = 2
train_layers = ['fc8', 'fc7', 'fc6']

# How often we want to write the tf.summary data to disk
display_step = 20

# Path for tf.summary.FileWriter and to store model checkpoints
filewriter_path = "/tmp/finetune_alexnet/tensorboard"
checkpoint_path = "/tmp/finetune_alexnet/checkpoints"
"""
# Its paths: the image lists make_data writes, and output folders in the
# working folder (os.mkdir(checkpoint_path) needs the parent to exist).
_PATHS = {
    "/path/to/train.txt": "train.txt",
    "/path/to/val.txt": "val.txt",
    "/tmp/finetune_alexnet/tensorboard": "tensorboard",
    "/tmp/finetune_alexnet/checkpoints": "checkpoints",
}


def _configured(block: str) -> str:
    for old, new in _PATHS.items():
        block = block.replace(old, new)
    return block


CASE = Case(
    name="finetune_alexnet",
    repo="kratzert/finetune_alexnet_with_tensorflow",
    commit="3e2b50efdf982efe4a02e071eb86327a3d9fde5d",
    what=(
        "AlexNet fine-tuning (Aug 2018, before its tf.data port): the early "
        "tf.contrib.data (Dataset.from_tensor_slices, map(num_threads=, "
        "output_buffer_size=), a reinitializable Iterator.from_structure), "
        "private tensorflow.python imports, variable scopes assigned from a "
        "pickled bvlc_alexnet.npy, feed_dict training with summaries and a Saver"
    ),
    paths=("alexnet.py", "datagenerator.py", "finetune.py"),
    commands=[
        Command(
            ["{python}", "finetune.py"],
            expect=r"Epoch number: 10\n(.*\n)*.*Validation Accuracy = [\d.]+",
            timeout=1200,
        )
    ],
    make_data=make_data,
    devices=(1,),
    single_device_why=(
        "finetune.py builds one AlexNet on one device and has no device count, "
        "tower loop or command-line flag of its own"
    ),
    hand_edits=[
        HandEdit(
            "finetune.py",
            _CONFIG,
            _configured(_CONFIG),
            why=(
                "the paths of the script's configuration block, which its "
                "docstring asks the user to set: placeholder image lists "
                "/path/to/train.txt and /path/to/val.txt, and a checkpoint folder "
                "os.mkdir makes only inside an existing /tmp/finetune_alexnet; "
                "the user's own input and output, no TensorFlow API"
            ),
        )
    ],
)
