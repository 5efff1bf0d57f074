"""david-gpu/srez: image super-resolution GAN (2016), TF 0.x-era session code
whose input is a string_input_producer of JPEG paths, a WholeFileReader,
per-image augmentation and a 4-thread tf.train.batch queue."""

from __future__ import annotations

import pathlib

import numpy as np
from PIL import Image

from benchmarks.real_code._case import Case, Command


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    """A folder of aligned-face JPEGs the size of CelebA's (178 x 218): the
    input crops a 144 x 144 box at (17, 52) of each."""
    del tree
    folder = data / "faces"
    folder.mkdir(parents=True)
    rng = np.random.default_rng(0)
    for i in range(6):
        pixels = rng.integers(0, 256, size=(218, 178, 3), dtype=np.uint8)
        Image.fromarray(pixels).save(folder / f"{i:06d}.jpg")


CASE = Case(
    name="srez",
    repo="david-gpu/srez",
    commit="d65a2aabdb04122be95e61c8aa420036cd6336d6",
    what=(
        "srez super-resolution GAN (Oct 2016, TF 0.x names): "
        "string_input_producer + WholeFileReader + augmentation batched by "
        "tf.train.batch with start_queue_runners; tf.contrib.layers.batch_norm, "
        "TF 0.x loss argument order, tf.train.SummaryWriter"
    ),
    make_data=make_data,
    commands=[
        Command(
            [
                "{python}",
                "srez_main.py",
                "--run=train",
                "--dataset={data}/faces",
                "--checkpoint_dir={model_dir}/checkpoint",
                "--train_dir={model_dir}/train",
                "--batch_size=2",
                "--sample_size=64",
                "--test_vectors=2",
                "--train_time=1",
                "--summary_period=100000",
                "--checkpoint_period=100000",
            ],
            expect=r"Finished training!",
            loss=r"G_Loss\[([-\d.]+)\]",
            timeout=900,
        )
    ],
    # srez_demo.py imports moviepy.editor at the top (a dependency of the
    # code base, pip-installed without imageio-ffmpeg's bundled binary);
    # moviepy's own setting skips its ffmpeg probe.
    env={"FFMPEG_BINARY": "auto-detect"},
    devices=(1,),
    single_device_why=(
        "srez_main.py builds one generator and one discriminator on one device "
        "and has no device flag, device list or tower loop of its own"
    ),
)
