"""tf.estimator's canned estimators, heads and input helpers: their emg names, and those emg lacks."""

from __future__ import annotations

# Canned estimators: `tf.estimator.X` (the v2 form) is `emg.estimator.X`,
# `tf.compat.v1.estimator.X` (the v1 defaults) is `emg.estimator.v1.X`.
CANNED = (
    "DNNClassifier",
    "DNNRegressor",
    "DNNEstimator",
    "LinearClassifier",
    "LinearRegressor",
    "LinearEstimator",
    "DNNLinearCombinedClassifier",
    "DNNLinearCombinedRegressor",
    "DNNLinearCombinedEstimator",
    "BaselineClassifier",
    "BaselineRegressor",
    "BaselineEstimator",
)
# Heads and helpers: one form in both namespaces.
HEADS = (
    "BinaryClassHead",
    "MultiClassHead",
    "RegressionHead",
    "MultiLabelHead",
)
# tf.estimator.inputs (TF 1.x) and tf.compat.v1.estimator.inputs.
INPUTS = ("inputs.numpy_input_fn", "inputs.pandas_input_fn")

# Names tf.estimator had that emg does not build: why, and what to use.
_TREES = (
    "gradient-boosted trees grow layer by layer from quantile summaries "
    "(TensorFlow's BoostedTrees kernels and their own training loop), not a "
    "model_fn whose batches towers split, so emg does not build them",
    "TensorFlow Decision Forests (tensorflow_decision_forests), XGBoost or "
    "LightGBM; or a DNNClassifier/LinearClassifier on the same feature columns",
)
_HEAD = (
    "emg builds the four heads tf.estimator's canned estimators use "
    "(BinaryClassHead, MultiClassHead, RegressionHead, MultiLabelHead), not "
    "this one",
    "one of those four heads, or a model_fn of your own on emg.estimator.Estimator",
)
_OWN_MODEL_FN = (
    "emg does not build it",
    "a model_fn of your own on emg.estimator.Estimator (the guide's canned "
    "estimators section shows the shape)",
)
_PARSE_SPEC = (
    "emg does not build it",
    "tf.feature_column.make_parse_example_spec(feature_columns) with the "
    "label's tf.io.FixedLenFeature added under its key (what it returned)",
)
NOT_BUILT = {
    "BoostedTreesClassifier": _TREES,
    "BoostedTreesRegressor": _TREES,
    "BoostedTreesEstimator": _TREES,
    "boosted_trees_classifier_train_in_memory": _TREES,
    "boosted_trees_regressor_train_in_memory": _TREES,
    "Head": _HEAD,
    "MultiHead": _HEAD,
    "LogisticRegressionHead": _HEAD,
    "PoissonRegressionHead": _HEAD,
    "classifier_parse_example_spec": _PARSE_SPEC,
    "regressor_parse_example_spec": _PARSE_SPEC,
    "experimental.LinearSDCA": _OWN_MODEL_FN,
    "experimental.RNNClassifier": _OWN_MODEL_FN,
    "experimental.RNNEstimator": _OWN_MODEL_FN,
    "experimental.KMeans": _OWN_MODEL_FN,
    "experimental.call_logit_fn": _OWN_MODEL_FN,
    "experimental.dnn_logit_fn_builder": _OWN_MODEL_FN,
    "experimental.linear_logit_fn_builder": _OWN_MODEL_FN,
}


def renames() -> dict[str, str]:
    """`tf.estimator.` name -> its `emg.` name, for the canned names emg has."""
    names = (*CANNED, *HEADS, *INPUTS)
    return {f"tf.estimator.{n}": f"emg.estimator.{n}" for n in names}


def canned_name(api: str) -> str | None:
    """`'DNNClassifier'` for `'tf.estimator.DNNClassifier'`, None for other APIs."""
    prefix = "tf.estimator."
    name = api[len(prefix) :] if api.startswith(prefix) else ""
    return name if name in CANNED else None


def replacement(old: str, new: str) -> str:
    """What `old` becomes, and for a canned estimator what its v1 form becomes."""
    name = canned_name(old)
    if name is None:
        return new
    return (
        f"{new} (the TF 2 defaults; tf.compat.v1.estimator.{name} and TF 1.x "
        f"code: emg.estimator.v1.{name}, the v1 defaults)"
    )


def v1_replacement(name: str) -> str:
    """What a v1 canned estimator becomes."""
    return (
        f"emg.estimator.v1.{name} (tf.compat.v1.estimator's defaults, as TF 1.x "
        "code had them: loss summed over the batch, the v1 optimizers)"
    )
