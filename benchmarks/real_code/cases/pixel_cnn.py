"""openai/pixel-cnn: PixelCNN++ (2016-2018), a session program whose own
tower loop over --nr_gpu feeds one placeholder per GPU, sums tf.gradients
across towers by hand and applies them with its own Adam updates."""

from __future__ import annotations

import pathlib
import pickle

import numpy as np

from benchmarks.real_code._case import Case, Command

_PER_FILE = 10000  # the loader reshapes each batch file to (10000, 3, 32, 32)


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    """cifar-10-python/cifar-10-batches-py: data_batch_1..5 and test_batch,
    python pickles of {'data': uint8 (10000, 3072), 'labels': [int]} as the
    CIFAR-10 python release (random pixels); the loader's download check
    looks for the folder only."""
    del tree
    folder = data / "cifar-10-python" / "cifar-10-batches-py"
    folder.mkdir(parents=True)
    rng = np.random.RandomState(0)
    for name in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
        batch = {
            "data": rng.randint(0, 256, (_PER_FILE, 3072)).astype(np.uint8),
            "labels": rng.randint(0, 10, _PER_FILE).tolist(),
        }
        with open(folder / name, "wb") as f:
            pickle.dump(batch, f, protocol=2)


CASE = Case(
    name="pixel_cnn",
    repo="openai/pixel-cnn",
    commit="ac8b1eb1703737a9664555182ce35264f8c6f88c",
    what=(
        "PixelCNN++ (2018): a hand-written tower loop over --nr_gpu with one "
        "placeholder per GPU, tf.gradients summed across towers, custom Adam "
        "updates, tf.make_template and contrib's arg_scope by module path"
    ),
    make_data=make_data,
    commands=[
        Command(
            [
                "{python}",
                "train.py",
                "--data_dir={data}",
                "--save_dir={model_dir}",
                "--data_set=cifar",
                "--nr_resnet=1",
                "--nr_filters=4",
                "--nr_logistic_mix=2",
                "--batch_size=128",
                "--init_batch_size=16",
                "--max_epochs=1",
                "--nr_gpu={num_gpus}",
            ],
            expect=r"Iteration 0, time = \d+s, train bits_per_dim = [\d.]+",
            loss=r"train bits_per_dim = ([\d.]+)",
            timeout=900,
        )
    ],
)
