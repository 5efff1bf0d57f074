"""jakeret/tf_unet: a U-Net for image segmentation (2016-2019) as a library,
trained the way its usage page shows: an ImageDataProvider over a folder of
TIFF images and masks, unet.Unet and unet.Trainer.train (a session loop fed
by feed_dict, tf.summary and a Saver)."""

from __future__ import annotations

import pathlib

import numpy as np
from PIL import Image

from benchmarks.real_code._case import Case, Command

# docs/usage.rst's program with the smallest net (2 layers, 4 features), a
# few steps and the case's folders.
_TRAIN = """\
import sys
from tf_unet import image_util, unet

data_dir, output_path = sys.argv[1], sys.argv[2]
data_provider = image_util.ImageDataProvider(data_dir + "/train/*.tif")
net = unet.Unet(layers=2, features_root=4, channels=1, n_class=2)
trainer = unet.Trainer(net, batch_size=2, verification_batch_size=2)
path = trainer.train(data_provider, output_path, training_iters=3, epochs=2,
                     display_step=1, prediction_path=output_path + "/prediction")
print("saved", path)
"""


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    """train/<n>.tif (grey images) and train/<n>_mask.tif (boolean masks of
    the bright discs), the layout ImageDataProvider reads by default."""
    del tree
    folder = data / "train"
    folder.mkdir(parents=True)
    rng = np.random.default_rng(0)
    yy, xx = np.mgrid[:64, :64]
    for i in range(4):
        cy, cx = rng.integers(16, 48, size=2)
        mask = (yy - cy) ** 2 + (xx - cx) ** 2 < 10**2
        image = rng.normal(50, 20, size=(64, 64)) + 100 * mask
        Image.fromarray(np.clip(image, 0, 255).astype(np.uint8)).save(
            folder / f"{i}.tif"
        )
        Image.fromarray(mask).save(folder / f"{i}_mask.tif")


CASE = Case(
    name="tf_unet",
    repo="jakeret/tf_unet",
    commit="2fe4d5f2a89eca1140cda663300fccf5136eb894",
    what=(
        "tf_unet U-Net segmentation library (Aug 2019, before its TF 2 port): "
        "placeholders and feed_dict, tf.nn.softmax_cross_entropy_with_logits_v2, "
        "graph-mode tf.summary.image/histogram/scalar, FileWriter, Saver; "
        "trained as docs/usage.rst shows on a folder of TIFF images and masks"
    ),
    paths=("tf_unet",),
    make_data=make_data,
    commands=[
        Command(
            ["{python}", "-c", _TRAIN, "{data}", "{model_dir}"],
            expect=r"Optimization Finished!",
            loss=r"Minibatch Loss= ([\d.]+)",
            timeout=600,
        )
    ],
    devices=(1,),
    single_device_why=(
        "unet.Trainer builds one network on one device and has no device "
        "flag, device list or tower loop of its own"
    ),
)
