"""The regression cookbook: linear, categorical-linear, DNN and custom
Estimator regressors on the UCI automobile CSV."""

from __future__ import annotations

import pathlib
import random

from benchmarks.real_code._case import Case, Command

_MAKES = ["alfa-romero", "audi", "bmw", "honda", "mazda", "toyota", "volvo"]
_BODIES = ["hardtop", "wagon", "sedan", "hatchback", "convertible"]


def _automobile_row(rng: random.Random) -> str:
    """One imports-85.data row: 26 columns, '?' where a value is unknown."""
    weight = rng.randrange(1500, 4000)
    mpg = rng.randrange(16, 50)
    fields = [
        rng.randrange(-2, 4),
        rng.choice([rng.randrange(65, 256), "?"]),
        rng.choice(_MAKES),
        rng.choice(["gas", "diesel"]),
        rng.choice(["std", "turbo"]),
        rng.choice(["two", "four"]),
        rng.choice(_BODIES),
        rng.choice(["fwd", "rwd", "4wd"]),
        "front",
        round(rng.uniform(86, 120), 1),
        round(rng.uniform(140, 208), 1),
        round(rng.uniform(60, 72), 1),
        round(rng.uniform(47, 60), 1),
        weight,
        rng.choice(["dohc", "ohc", "ohcv"]),
        rng.choice(["four", "six", "five"]),
        rng.randrange(60, 330),
        rng.choice(["mpfi", "2bbl", "idi"]),
        round(rng.uniform(2.5, 4.0), 2),
        round(rng.uniform(2.0, 4.2), 2),
        round(rng.uniform(7, 23), 1),
        rng.randrange(48, 288),
        rng.randrange(4150, 6600),
        mpg - rng.randrange(0, 6),
        mpg,
        int(5 * weight - 150 * mpg + rng.randrange(-2000, 2000)),
    ]
    return ",".join(map(str, fields))


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    # automobile_data.raw_dataframe() calls tf.keras.utils.get_file, which
    # reads the file from its cache when it is there: Keras 3's is
    # $KERAS_HOME/datasets, tf-keras' (TF_USE_LEGACY_KERAS=1) ~/.keras/datasets.
    rng = random.Random(0)
    rows = [_automobile_row(rng) for _ in range(205)]
    for cache in (data / "keras" / "datasets", data / "home" / ".keras" / "datasets"):
        cache.mkdir(parents=True)
        text = "\n".join(rows) + "\n"
        (cache / "imports-85.data").write_text(text, encoding="utf-8")


def _run(script: str) -> Command:
    return Command(
        ["{python}", script, "--train_steps=20", "--batch_size=16"],
        cwd="samples/cookbook/regression",
        expect=r"RMS error for the test set: \$\d+",
        loss=r"loss = ([\d.]+), step = ",
        timeout=300,
    )


CASE = Case(
    name="cookbook_regression",
    repo="Dzinushi/models_1_4",
    commit="fc37f117cb2d0d014851adf8e5e2d72d13a068a1",
    what=(
        "tensorflow/models samples/cookbook/regression (Jan 2018, in a fork's "
        "history): LinearRegressor on numeric and on categorical columns, "
        "DNNRegressor, and a custom model_fn Estimator (tf.layers.dense, "
        "tf.losses, tf.metrics) on the automobile CSV via pandas"
    ),
    paths=("samples/cookbook/regression",),
    commands=[
        _run("linear_regression.py"),
        _run("linear_regression_categorical.py"),
        _run("dnn_regression.py"),
        _run("custom_regression.py"),
    ],
    make_data=make_data,
    # custom_regression.py's tf.layers.dense makes --fix set
    # TF_USE_LEGACY_KERAS there, so its get_file is tf-keras' (cache under
    # ~/.keras) where the other scripts' is Keras 3's ($KERAS_HOME).
    env={
        "EMG_NUM_GPUS": "{num_gpus}",
        "KERAS_HOME": "{data}/keras",
        "HOME": "{data}/home",
    },
    migrate_paths=("samples/cookbook/regression",),
)
