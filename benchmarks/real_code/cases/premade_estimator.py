"""The premade-estimator tutorial: a canned DNNClassifier on the Iris CSVs."""

from __future__ import annotations

import pathlib
import random

from benchmarks.real_code._case import Case, Command

_SPECIES = 3


def _iris_csv(path: pathlib.Path, rows: int, seed: int) -> None:
    """The tutorial's CSV: a header `rows,4,names...`, then 4 floats and a class."""
    rng = random.Random(seed)
    lines = [f"{rows},4,setosa,versicolor,virginica"]
    for _ in range(rows):
        label = rng.randrange(_SPECIES)
        values = [round(rng.uniform(1, 3) + 1.5 * label, 1) for _ in range(4)]
        lines.append(",".join(map(str, values)) + f",{label}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    # iris_data.maybe_download() calls tf.keras.utils.get_file, which reads
    # the file from $KERAS_HOME/datasets when it is there.
    cache = data / "keras" / "datasets"
    cache.mkdir(parents=True)
    _iris_csv(cache / "iris_training.csv", 120, seed=0)
    _iris_csv(cache / "iris_test.csv", 30, seed=1)


CASE = Case(
    name="premade_estimator",
    repo="Dzinushi/models_1_4",
    commit="fc37f117cb2d0d014851adf8e5e2d72d13a068a1",
    what=(
        "tensorflow/models samples/core/get_started/premade_estimator.py "
        "(Jan 2018, in a fork's history): tf.estimator.DNNClassifier over "
        "feature columns, pandas input, train/evaluate/predict"
    ),
    paths=("samples/core/get_started",),
    commands=[
        Command(
            ["{python}", "premade_estimator.py", "--train_steps=20", "--batch_size=16"],
            cwd="samples/core/get_started",
            expect=r"Prediction is",
            loss=r"loss = ([\d.]+), step = ",
            timeout=300,
        )
    ],
    make_data=make_data,
    env={"EMG_NUM_GPUS": "{num_gpus}", "KERAS_HOME": "{data}/keras"},
    migrate_paths=("samples/core/get_started",),
)
