"""The wide-and-deep census tutorial: DNNLinearCombinedClassifier on adult.data."""

from __future__ import annotations

import pathlib

from benchmarks.real_code._case import Case, Command
from benchmarks.real_code.cases import _census


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    _census.adult_csv(data / "adult.data", 256, seed=0, separator=",")
    _census.adult_csv(data / "adult.test", 64, seed=1, separator=",")


CASE = Case(
    name="wide_deep_census",
    repo="Dzinushi/models_1_4",
    commit="fc37f117cb2d0d014851adf8e5e2d72d13a068a1",
    what=(
        "tensorflow/models official/wide_deep/wide_deep.py (Jan 2018, in a "
        "fork's history): wide, deep and wide-and-deep canned classifiers on "
        "the census CSV through its own argparse flags; a RunConfig "
        "replace(session_config=ConfigProto(device_count={'GPU': 0}))"
    ),
    paths=("official/wide_deep",),
    commands=[
        Command(
            [
                "{python}",
                "wide_deep.py",
                "--model_dir={model_dir}",
                "--model_type=wide_deep",
                "--train_epochs=2",
                "--epochs_per_eval=1",
                "--batch_size=32",
                "--train_data={data}/adult.data",
                "--test_data={data}/adult.test",
            ],
            cwd="official/wide_deep",
            expect=r"Results at epoch 2\n-+\n(.*\n)*accuracy: ",
            loss=r"loss = ([\d.]+), step = ",
            timeout=400,
        )
    ],
    make_data=make_data,
    env={"EMG_NUM_GPUS": "{num_gpus}"},
    migrate_paths=("official/wide_deep",),
)
