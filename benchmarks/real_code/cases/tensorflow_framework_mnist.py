"""A 2019 Estimator training framework: its own tower loop, MNIST, AlexNet-like CNN."""

from __future__ import annotations

import gzip
import pathlib
import random
import struct

from benchmarks.real_code._case import Case, Command

_SIZE = 28


def _idx(path: pathlib.Path, count: int, seed: int, images: bool) -> None:
    """MNIST's gzipped idx files: a big-endian header, then uint8 pixels or labels."""
    rng = random.Random(seed)
    if images:
        header = struct.pack(">IIII", 2051, count, _SIZE, _SIZE)
        body = bytes(rng.randrange(256) for _ in range(count * _SIZE * _SIZE))
    else:
        header = struct.pack(">II", 2049, count)
        body = bytes(rng.randrange(10) for _ in range(count))
    with gzip.open(path, "wb") as f:
        f.write(header + body)


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    # dataset/mnist.py reads data/mnist/ under the folder it runs in and
    # downloads only the files that are missing there.
    mnist = tree / "data" / "mnist"
    mnist.mkdir(parents=True, exist_ok=True)
    _idx(mnist / "train-images-idx3-ubyte.gz", 64, seed=0, images=True)
    _idx(mnist / "train-labels-idx1-ubyte.gz", 64, seed=0, images=False)
    _idx(mnist / "t10k-images-idx3-ubyte.gz", 16, seed=1, images=True)
    _idx(mnist / "t10k-labels-idx1-ubyte.gz", 16, seed=1, images=False)


# The framework's own configuration override (JSON): its tower count, one
# epoch of the 64 images in batches of 8, checkpoints (and the evaluation
# its best-checkpoint listener runs) every 4 steps.
_OVERRIDE = (
    '--override={{"num_gpus": {num_gpus}, "num_epochs": 1, '
    '"output_dir": "{model_dir}", "save_summary_steps": 2, '
    '"save_checkpoints_steps": 4, "num_reader_threads": 2, '
    '"hparams": {{"batch_size": 8}}}}'
)

CASE = Case(
    name="tensorflow_framework_mnist",
    repo="vahidk/TensorflowFramework",
    commit="30a33914c980d0e5828c1534490379c02140d845",
    what=(
        "vahidk/TensorflowFramework (Mar 2019): tf.estimator training with a "
        "hand-written tower loop in its model_fn (make_parallel: tf.split over "
        "num_gpus, GPU DeviceSpecs, reused variable scope), tf.data input with "
        "make_one_shot_iterator, custom SessionRunHooks and a best-checkpoint "
        "listener; MNIST with its AlexNet-like CNN"
    ),
    commands=[
        Command(
            [
                "{python}",
                "-m",
                "trainer",
                "--config=configs/mnist.json",
                _OVERRIDE,
            ],
            expect=r"Done\.",
            loss=r"loss = ([\d.]+), step = ",
            timeout=600,
        )
    ],
    make_data=make_data,
)
