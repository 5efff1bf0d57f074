"""Cloud ML Engine's census sample: a canned wide-and-deep Estimator on CSV."""

from __future__ import annotations

import pathlib

from benchmarks.real_code._case import Case, Command
from benchmarks.real_code.cases import _census


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    _census.adult_csv(data / "adult.data.csv", 256, seed=0, separator=", ")
    _census.adult_csv(data / "adult.test.csv", 64, seed=1, separator=", ")


CASE = Case(
    name="cloudml_census_estimator",
    repo="GoogleCloudPlatform/cloudml-samples",
    commit="e83731afafb42177aac5510780afbef75b2fda8a",
    what=(
        "census/estimator/trainer (Oct 2018): DNNLinearCombinedClassifier over "
        "feature columns, a TextLineDataset CSV input_fn with "
        "make_one_shot_iterator and tf.contrib.lookup, contrib HParams, "
        "train_and_evaluate with a FinalExporter"
    ),
    paths=("census/estimator",),
    commands=[
        Command(
            [
                "{python}",
                "-m",
                "trainer.task",
                "--train-files={data}/adult.data.csv",
                "--eval-files={data}/adult.test.csv",
                "--job-dir={model_dir}",
                "--train-steps=20",
                "--eval-steps=2",
                "--train-batch-size=32",
                "--eval-batch-size=32",
                "--first-layer-size=8",
                "--num-layers=2",
            ],
            cwd="census/estimator",
            expect=r"Saving dict for global step 20",
            loss=r"loss = ([\d.]+), step = ",
            timeout=400,
        )
    ],
    make_data=make_data,
    env={"EMG_NUM_GPUS": "{num_gpus}"},
    migrate_paths=("census/estimator",),
)
