"""Cloud ML Engine's census sample: a canned wide-and-deep Estimator on CSV."""

from __future__ import annotations

import pathlib
import random

from benchmarks.real_code._case import Case, Command

_WORKCLASS = ["Private", "Self-emp-not-inc", "State-gov", "Federal-gov", "?"]
_EDUCATION = ["Bachelors", "HS-grad", "11th", "Masters", "Some-college"]
_MARITAL = ["Married-civ-spouse", "Divorced", "Never-married", "Widowed"]
_OCCUPATION = ["Adm-clerical", "Exec-managerial", "Handlers-cleaners", "Sales"]
_RELATIONSHIP = ["Husband", "Not-in-family", "Wife", "Own-child", "Unmarried"]


def _adult_csv(path: pathlib.Path, rows: int, seed: int) -> None:
    """UCI adult rows as the sample's bucket holds them: ', ' between fields."""
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
        lines.append(", ".join(map(str, fields)))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    _adult_csv(data / "adult.data.csv", 256, seed=0)
    _adult_csv(data / "adult.test.csv", 64, seed=1)


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
