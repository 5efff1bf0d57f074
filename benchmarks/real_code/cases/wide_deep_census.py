"""The wide-and-deep census tutorial: DNNLinearCombinedClassifier on adult.data."""

from __future__ import annotations

import pathlib
import random

from benchmarks.real_code._case import Case, Command

_WORKCLASS = ["Private", "Self-emp-not-inc", "State-gov", "Federal-gov", "?"]
_EDUCATION = ["Bachelors", "HS-grad", "11th", "Masters", "Some-college"]
_MARITAL = ["Married-civ-spouse", "Divorced", "Never-married", "Widowed"]
_OCCUPATION = ["Adm-clerical", "Exec-managerial", "Handlers-cleaners", "Sales"]
_RELATIONSHIP = ["Husband", "Not-in-family", "Wife", "Own-child", "Unmarried"]


def _adult_rows(path: pathlib.Path, rows: int, seed: int) -> None:
    """UCI adult rows as data_download.py writes them (', ' joined to ',')."""
    rng = random.Random(seed)
    lines = []
    for _ in range(rows):
        education = rng.randrange(len(_EDUCATION))
        rich = rng.random() < 0.2 + 0.1 * education
        fields = [
            rng.randrange(17, 80),
            rng.choice(_WORKCLASS),
            rng.randrange(20000, 400000),
            _EDUCATION[education],
            9 + education,
            rng.choice(_MARITAL),
            rng.choice(_OCCUPATION),
            rng.choice(_RELATIONSHIP),
            rng.choice(["White", "Black", "Asian-Pac-Islander"]),
            rng.choice(["Male", "Female"]),
            rng.choice([0, 0, 0, 2174, 14084]),
            rng.choice([0, 0, 1902]),
            rng.randrange(10, 60),
            rng.choice(["United-States", "Mexico", "India"]),
            ">50K" if rich else "<=50K",
        ]
        lines.append(",".join(map(str, fields)))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    _adult_rows(data / "adult.data", 256, seed=0)
    _adult_rows(data / "adult.test", 64, seed=1)


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
