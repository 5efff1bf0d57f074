"""Canned-estimator cases, data and builders shared by the canned tests.

Holds no tests. Each case names a canned estimator, its form (`v2`:
`tf.estimator.<Name>` / `emg.estimator.<Name>`, `v1`:
`tf.compat.v1.estimator.<Name>` / `emg.estimator.v1.<Name>`) and its
arguments; `make_estimator(case, impl, ...)` builds it as emg's (`impl='emg'`)
or tf.estimator's (`impl='tf'`, TF <= 2.15).
"""

from __future__ import annotations

import dataclasses
import inspect
import shutil
from collections.abc import Callable

import numpy as np
import tensorflow as tf

from estimator_multigpu import estimator as emg_estimator

fc = tf.compat.v1.feature_column
NUM_EXAMPLES = 12
BATCH = 4


def numeric():
    return fc.numeric_column("a", shape=[2])


def category():
    return fc.categorical_column_with_vocabulary_list("c", ["x", "y", "z"])


def dnn_columns():
    return [numeric(), fc.embedding_column(category(), 2)]


def linear_columns():
    bucketized = fc.bucketized_column(fc.numeric_column("b"), [0.3, 0.6])
    hashed = fc.categorical_column_with_hash_bucket("h", 5)
    return [numeric(), category(), bucketized, hashed, fc.crossed_column(["c", "h"], 7)]


@dataclasses.dataclass(frozen=True)
class Case:
    """One canned estimator: its class name, form, label kind and arguments.

    `args(ns)` gives the constructor's arguments; `ns` is the namespace the
    class comes from, for the heads of the head-taking estimators.
    """

    name: str
    form: str  # "v1" or "v2"
    kind: str  # "binary", "multiclass", "multilabel" or "regression"
    args: Callable[[object], dict]

    def columns(self) -> list:
        """Every feature column the estimator reads (for the parsing spec)."""
        args = self.args(emg_estimator)
        keys = ("feature_columns", "linear_feature_columns", "dnn_feature_columns")
        columns = [column for key in keys for column in args.get(key) or []]
        return columns or [numeric()]  # A baseline reads only the batch size.


def _dnn(**kwargs):
    return lambda ns: {
        "hidden_units": [4, 3],
        "feature_columns": dnn_columns(),
        **kwargs,
    }


def _linear(**kwargs):
    return lambda ns: {"feature_columns": linear_columns(), **kwargs}


def _combined(**kwargs):
    return lambda ns: {
        "linear_feature_columns": linear_columns(),
        "dnn_feature_columns": dnn_columns(),
        "dnn_hidden_units": [4],
        **kwargs,
    }


def _with_head(make_args, head: str, *head_args):
    def args(ns):
        return {"head": getattr(ns, head)(*head_args), **make_args(ns)}

    return args


def _cases() -> dict[str, Case]:
    cases = [
        Case("DNNClassifier", "v2", "binary", _dnn()),
        Case("DNNClassifier", "v1", "binary", _dnn()),
        Case("DNNClassifier", "v2", "multiclass", _dnn(n_classes=3)),
        Case("DNNRegressor", "v2", "regression", _dnn()),
        Case("DNNRegressor", "v1", "regression", _dnn()),
        Case("LinearClassifier", "v2", "binary", _linear()),
        Case("LinearClassifier", "v1", "binary", _linear()),
        Case("LinearClassifier", "v1", "multiclass", _linear(n_classes=3)),
        Case("LinearRegressor", "v2", "regression", _linear()),
        Case("LinearRegressor", "v1", "regression", _linear()),
        Case("DNNLinearCombinedClassifier", "v2", "binary", _combined()),
        Case("DNNLinearCombinedClassifier", "v1", "binary", _combined()),
        Case("DNNLinearCombinedRegressor", "v2", "regression", _combined()),
        Case("DNNLinearCombinedRegressor", "v1", "regression", _combined()),
        Case("BaselineClassifier", "v2", "binary", lambda ns: {}),
        Case("BaselineClassifier", "v1", "multiclass", lambda ns: {"n_classes": 3}),
        Case("BaselineRegressor", "v2", "regression", lambda ns: {}),
        Case("BaselineRegressor", "v1", "regression", lambda ns: {}),
        Case(
            "DNNEstimator",
            "v2",
            "multilabel",
            _with_head(_dnn(), "MultiLabelHead", 3),
        ),
        Case(
            "LinearEstimator",
            "v2",
            "binary",
            _with_head(_linear(), "BinaryClassHead"),
        ),
        Case(
            "DNNLinearCombinedEstimator",
            "v2",
            "regression",
            _with_head(_combined(), "RegressionHead"),
        ),
        Case(
            "BaselineEstimator",
            "v2",
            "multiclass",
            _with_head(lambda ns: {}, "MultiClassHead", 3),
        ),
    ]
    return {f"{c.name}_{c.form}_{c.kind}": c for c in cases}


CASES = _cases()


def data(kind: str, seed: int = 0):
    """`(features, labels)`: numpy arrays of NUM_EXAMPLES examples."""
    rng = np.random.RandomState(seed)
    features = {
        "a": rng.randn(NUM_EXAMPLES, 2).astype(np.float32),
        "b": rng.rand(NUM_EXAMPLES, 1).astype(np.float32),
        "c": rng.choice(["x", "y", "z"], NUM_EXAMPLES),
        "h": rng.choice(["p", "q", "r", "s"], NUM_EXAMPLES),
    }
    score = features["a"].sum(axis=1) + (features["c"] == "x")
    if kind == "binary":
        labels = (score > 0.5).astype(np.int64)
    elif kind == "multiclass":
        labels = np.digitize(score, [0.0, 1.0]).astype(np.int64)
    elif kind == "multilabel":
        columns = [score > 0.5, features["c"] == "y", features["a"][:, 0] > 0]
        return features, np.stack(columns, axis=1).astype(np.int64)
    else:
        labels = (score + 0.1 * rng.randn(NUM_EXAMPLES)).astype(np.float32)
    return features, labels.reshape(-1, 1)


def input_fn(kind: str, repeat: bool = False, labels: bool = True):
    """An input_fn of the case's data in batches of BATCH, in order."""
    features, label_values = data(kind)

    def fn():
        dataset = tf.data.Dataset.from_tensor_slices(
            (features, label_values) if labels else features
        )
        if repeat:
            dataset = dataset.repeat()
        return dataset.batch(BATCH)

    return fn


def namespace(impl: str, form: str):
    """Where the case's class lives: emg's or tf.estimator's, v1 or v2."""
    if impl == "emg":
        return emg_estimator.v1 if form == "v1" else emg_estimator
    return tf.compat.v1.estimator if form == "v1" else tf.estimator


def make_estimator(
    case: str, impl: str, model_dir: str, warm_start_from=None, config=None
):
    """The case's estimator, built by `impl` ('emg' or 'tf').

    It starts from `warm_start_from` (a checkpoint's directory): warm-started
    from it where the class takes `warm_start_from`, else from a copy of it
    in `model_dir`.
    """
    spec = CASES[case]
    ns = namespace(impl, spec.form)
    cls = getattr(ns, spec.name)
    args = spec.args(ns)
    if config is None:
        config_cls = (
            emg_estimator.RunConfig if impl == "emg" else tf.estimator.RunConfig
        )
        config = config_cls(model_dir=model_dir, tf_random_seed=1)
    else:
        config = config.replace(model_dir=model_dir)
    if "warm_start_from" in _parameters(cls):
        args["warm_start_from"] = warm_start_from
    elif warm_start_from is not None:
        # No warm start (Baseline*, DNNLinearCombinedEstimator): the model
        # resumes from a copy of the checkpoint instead.
        shutil.copytree(warm_start_from, model_dir)
    return cls(config=config, **args)


def _parameters(cls) -> list:
    return list(inspect.signature(cls.__init__).parameters)


def warm_start_checkpoint(case: str, model_dir: str) -> str:
    """A checkpoint of the case's variables after one step of emg's, its dir."""
    estimator = make_estimator(case, "emg", model_dir)
    estimator.train(input_fn(CASES[case].kind, repeat=True), steps=1)
    return model_dir
