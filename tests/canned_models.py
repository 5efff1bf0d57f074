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
# Class names of the `<kind>_named` label kinds (and MultiLabelHead's).
NAMES = {
    "binary": ("neg", "pos"),
    "multiclass": ("low", "mid", "high"),
    "multilabel": ("u", "v", "t"),
}


def numeric():
    return fc.numeric_column("a", shape=[2])


def category():
    return fc.categorical_column_with_vocabulary_list("c", ["x", "y", "z"])


def dnn_columns():
    return [numeric(), fc.embedding_column(category(), 2)]


def shared_columns(ns_fc):
    """`c` and `h` (one value out of vocabulary) sharing one embedding."""
    hashed = fc.categorical_column_with_vocabulary_list("h", ["p", "q", "r"])
    make = fc.shared_embedding_columns if ns_fc is fc else ns_fc.shared_embeddings
    # Both refuse eager execution (a TF1 program builds them in its graph);
    # the columns hold no graph state, so any graph may build them.
    with tf.Graph().as_default():
        return make([category(), hashed], 2)


def shared_dnn_columns(ns_fc):
    return [numeric(), *shared_columns(ns_fc)]


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
    # Dropout: training draws masks no two graphs share, so the golden
    # comparison evaluates and predicts from one checkpoint instead.
    random_training: bool = False
    # Batch norm normalises with each tower's sub-batch, and dropout draws
    # each tower's masks: 1 and 2 devices then differ by design.
    same_on_towers: bool = True
    tag: str = ""  # Tells apart cases of one class, form and kind.

    @property
    def key(self) -> str:
        parts = [self.name, self.form, self.kind] + ([self.tag] if self.tag else [])
        return "_".join(parts)

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


def _with_head(make_args, head: str, *head_args, **head_kwargs):
    def args(ns):
        head_ = getattr(ns, head)(*head_args, **head_kwargs)
        return {"head": head_, **make_args(ns)}

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
        *_argument_cases(),
    ]
    return {c.key: c for c in cases}


def _argument_cases() -> list:
    """weight_column, label_vocabulary, batch_norm, dropout, shared embeddings."""
    v1_fc, v2_fc = fc, tf.feature_column
    return [
        Case(
            "DNNClassifier",
            "v2",
            "binary_named",
            _dnn(weight_column="w", label_vocabulary=list(NAMES["binary"])),
        ),
        Case(
            "DNNClassifier",
            "v1",
            "multiclass_named",
            _dnn(
                n_classes=3,
                weight_column="w",
                label_vocabulary=list(NAMES["multiclass"]),
            ),
        ),
        Case(
            "LinearClassifier",
            "v2",
            "binary",
            _linear(weight_column="w"),
            tag="weighted",
        ),
        Case(
            "LinearRegressor",
            "v1",
            "regression",
            _linear(
                weight_column=fc.numeric_column("w"),
                loss_reduction=tf.compat.v1.losses.Reduction.MEAN,
            ),
            tag="weighted_mean",
        ),
        Case(
            "DNNRegressor",
            "v1",
            "regression",
            _dnn(
                weight_column="w",
                loss_reduction=tf.compat.v1.losses.Reduction.SUM_BY_NONZERO_WEIGHTS,
            ),
            tag="weighted_nonzero",
        ),
        Case(
            "DNNRegressor",
            "v2",
            "regression",
            _dnn(batch_norm=True),
            tag="bn",
            same_on_towers=False,
        ),
        Case(
            "DNNClassifier",
            "v1",
            "binary",
            _dnn(batch_norm=True),
            tag="bn",
            same_on_towers=False,
        ),
        Case(
            "DNNLinearCombinedClassifier",
            "v2",
            "binary",
            _combined(batch_norm=True, weight_column="w"),
            tag="bn_weighted",
            same_on_towers=False,
        ),
        Case(
            "DNNClassifier",
            "v2",
            "binary",
            _dnn(dropout=0.5),
            tag="dropout",
            random_training=True,
            same_on_towers=False,
        ),
        Case(
            "DNNRegressor",
            "v1",
            "regression",
            _dnn(dropout=0.3, batch_norm=True),
            tag="dropout_bn",
            random_training=True,
            same_on_towers=False,
        ),
        Case(
            "DNNClassifier",
            "v2",
            "multiclass",
            lambda ns: _dnn(n_classes=3, feature_columns=shared_dnn_columns(v2_fc))(ns),
            tag="shared",
        ),
        Case(
            "DNNClassifier",
            "v1",
            "binary",
            lambda ns: _dnn(feature_columns=shared_dnn_columns(v1_fc))(ns),
            tag="shared",
        ),
        Case(
            "DNNLinearCombinedRegressor",
            "v1",
            "regression",
            lambda ns: _combined(
                dnn_feature_columns=shared_dnn_columns(v1_fc), weight_column="w"
            )(ns),
            tag="shared_weighted",
        ),
        Case(
            "DNNEstimator",
            "v2",
            "multilabel",
            _with_head(
                _dnn(),
                "MultiLabelHead",
                3,
                weight_column="w",
                thresholds=[0.3, 0.5],
                classes_for_class_based_metrics=[0, 2],
            ),
            tag="thresholds",
        ),
        Case(
            "LinearEstimator",
            "v2",
            "multilabel",
            _with_head(
                _linear(),
                "MultiLabelHead",
                3,
                thresholds=[0.5],
                label_vocabulary=list(NAMES["multilabel"]),
                classes_for_class_based_metrics=["u", "t"],
            ),
            tag="class_names",
        ),
        Case(
            "LinearEstimator",
            "v2",
            "binary",
            _with_head(
                _linear(), "BinaryClassHead", weight_column="w", thresholds=[0.4, 0.7]
            ),
            tag="thresholds",
        ),
    ]


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
    # Example weights (a zero among them) from their own stream, so the
    # other features and labels stay those of the cases written before them.
    weights = np.random.RandomState(seed + 1).choice([0.0, 0.5, 1.0, 3.0], NUM_EXAMPLES)
    features["w"] = weights.astype(np.float32).reshape(-1, 1)
    if kind.endswith("_named"):
        features, labels = data(kind[: -len("_named")], seed)
        return features, np.asarray(NAMES[kind[: -len("_named")]])[labels]
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
