"""carpedm20/BEGAN-tensorflow: Boundary Equilibrium GAN (2017), a session
program whose input is a string_input_producer of image paths, a
WholeFileReader and a 4-thread tf.train.shuffle_batch queue, trained under a
tf.train.Supervisor."""

from __future__ import annotations

import pathlib

import numpy as np
from PIL import Image

from benchmarks.real_code._case import Case, Command


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    """data/<dataset>/*.jpg, the image folder get_loader globs (any dataset
    name but CelebA, whose 128 x 128 face crop needs CelebA's image size)."""
    del tree
    folder = data / "faces"
    folder.mkdir(parents=True)
    rng = np.random.default_rng(0)
    for i in range(8):
        pixels = rng.integers(0, 256, size=(32, 32, 3), dtype=np.uint8)
        Image.fromarray(pixels).save(folder / f"{i:06d}.jpg")


CASE = Case(
    name="began",
    repo="carpedm20/BEGAN-tensorflow",
    commit="96a7ca37f8da4431a27fdd54e6c3bbfb7b20a99c",
    what=(
        "BEGAN (Nov 2017): string_input_producer + WholeFileReader + decode "
        "batched by a 4-thread tf.train.shuffle_batch, then resized after the "
        "batch; tf.contrib.slim layers, tf.train.Supervisor, argparse flags"
    ),
    paths=(
        "main.py",
        "config.py",
        "data_loader.py",
        "models.py",
        "trainer.py",
        "utils.py",
    ),
    make_data=make_data,
    commands=[
        Command(
            [
                "{python}",
                "main.py",
                "--dataset=faces",
                "--data_dir={data}",
                "--log_dir={model_dir}",
                "--use_gpu=True",
                "--input_scale_size=16",
                "--conv_hidden_num=64",
                "--z_num=64",
                "--batch_size=4",
                "--max_step=3",
                "--log_step=1",
                "--save_step=1000",
            ],
            expect=r"\[2/3\] Loss_D: [\d.]+",
            loss=r"\[0/3\] Loss_D: ([\d.]+)",
            timeout=900,
        )
    ],
    devices=(1,),
    single_device_why=(
        "main.py builds one generator and one discriminator on one device; "
        "its only device flag is --use_gpu (the data format), with no device "
        "count or tower loop"
    ),
)
