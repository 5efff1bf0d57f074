"""affinelayer/pix2pix-tensorflow: pix2pix (2017), a session program whose
input is a string_input_producer of image paths, a WholeFileReader, decode
and crop ops and a tf.train.batch queue, trained under a Supervisor."""

from __future__ import annotations

import pathlib

import numpy as np
from PIL import Image

from benchmarks.real_code._case import Case, Command


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    """A folder of paired images as pix2pix's tools/process.py writes them:
    numbered JPEGs, the input (A) on the left half and the target (B) on the
    right; small, since the program resizes them to --scale_size anyway."""
    del tree
    folder = data / "train"
    folder.mkdir(parents=True)
    rng = np.random.default_rng(0)
    for i in range(1, 5):
        a = rng.integers(0, 256, size=(32, 32, 3), dtype=np.uint8)
        b = 255 - a  # the target: the inverted input
        Image.fromarray(np.concatenate([a, b], axis=1)).save(folder / f"{i}.jpg")


CASE = Case(
    name="pix2pix",
    repo="affinelayer/pix2pix-tensorflow",
    commit="0f2174424356162920fc25067e63db2bcf19f4e7",
    what=(
        "pix2pix image-to-image GAN (Dec 2017): string_input_producer over an "
        "image folder, WholeFileReader, decode_jpeg and random crops batched "
        "by tf.train.batch; tf.layers U-Net generator and PatchGAN "
        "discriminator; tf.train.Supervisor's managed_session loop"
    ),
    paths=("pix2pix.py",),
    make_data=make_data,
    commands=[
        Command(
            [
                "{python}",
                "pix2pix.py",
                "--mode=train",
                "--input_dir={data}/train",
                "--output_dir={model_dir}",
                "--max_steps=3",
                "--batch_size=1",
                "--ngf=4",
                "--ndf=4",
                "--scale_size=256",
                "--progress_freq=1",
                "--summary_freq=0",
                "--save_freq=0",
                "--seed=1",
            ],
            expect=r"gen_loss_L1 [\d.]+",
            loss=r"gen_loss_L1 ([\d.]+)",
            timeout=900,
        )
    ],
    devices=(1,),
    single_device_why=(
        "pix2pix.py builds one generator and one discriminator on one device "
        "and has no device flag, device list or tower loop of its own"
    ),
)
