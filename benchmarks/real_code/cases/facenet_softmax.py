"""facenet's softmax trainer: a raw FIFOQueue fed by enqueue_many of file names."""

from __future__ import annotations

import pathlib

import numpy as np
from PIL import Image

from benchmarks.real_code._case import Case, Command


def _faces(data: pathlib.Path, tree: pathlib.Path) -> None:
    """An aligned-face folder as facenet reads it: one folder of PNGs per person."""
    rng = np.random.default_rng(0)
    for person in range(3):
        folder = data / "faces" / f"person_{person}"
        folder.mkdir(parents=True)
        for i in range(4):
            pixels = rng.integers(0, 255, size=(20, 20, 3), dtype=np.uint8)
            pixels[..., person] = 200  # each person's own colour cast
            Image.fromarray(pixels).save(folder / f"person_{person}_{i:04d}.png")


CASE = Case(
    name="facenet_softmax",
    repo="davidsandberg/facenet",
    commit="096ed770f163957c1e56efa7feeb194773920f6e",
    what=(
        "Face recognition (2018): src/train_softmax.py feeds each epoch's file "
        "names into a raw data_flow_ops.FIFOQueue with enqueue_many from the "
        "training loop, decodes them in 4 dequeue threads and batches with "
        "tf.train.batch_join; slim model, center loss."
    ),
    paths=("src",),
    commands=[
        Command(
            [
                "{python}",
                "train_softmax.py",
                "--logs_base_dir={model_dir}/logs",
                "--models_base_dir={model_dir}/models",
                "--data_dir={data}/faces",
                "--model_def=models.dummy",
                "--max_nrof_epochs=1",
                "--epoch_size=3",
                "--batch_size=4",
                "--image_size=16",
                "--embedding_size=8",
                "--learning_rate=0.01",
                "--validation_set_split_ratio=0",
            ],
            cwd="src",
            expect=r"Saving statistics",
            loss=r"Loss ([-\d.]+)",
            timeout=600,
        )
    ],
    make_data=_faces,
    devices=(1,),
    single_device_why=(
        "train_softmax.py builds one model on one device and has no device "
        "count, tower loop or clone flag of its own"
    ),
)
