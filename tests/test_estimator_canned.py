"""emg's canned estimators on several devices, and their argument errors.

On 1 and 2 (simulated) devices, each canned estimator of tests/canned_models
takes the same first step from one checkpoint: the same loss (the global
one, not tower 0's), the same variables after it, the same evaluation and
predictions. The golden comparisons with tf.estimator are in
tests/test_estimator_canned_golden.py.
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
from canned_models import (
    BATCH,
    CASES,
    data,
    dnn_columns,
    input_fn,
    linear_columns,
    make_estimator,
    numeric,
    shared_columns,
    warm_start_checkpoint,
)
from conftest import ALL_DEVICES
from estimator_models import LossRecorder

from estimator_multigpu import estimator as est
from estimator_multigpu.estimator._canned import _feature_layer


def _step(case, model_dir, warm, devices):
    config = est.RunConfig(devices=devices) if len(devices) > 1 else None
    estimator = make_estimator(case, "emg", model_dir, warm, config=config)
    recorder = LossRecorder()
    kind = CASES[case].kind
    estimator.train(input_fn(kind, repeat=True), hooks=[recorder], steps=1)
    variables = {
        name: estimator.get_variable_value(name)
        for name in estimator.get_variable_names()
    }
    metrics = estimator.evaluate(input_fn(kind))
    predictions = list(estimator.predict(input_fn(kind, labels=False)))
    return recorder.losses, variables, metrics, predictions


def _assert_same(ours, theirs):
    assert sorted(ours) == sorted(theirs)
    for key in ours:
        a, b = np.asarray(ours[key]), np.asarray(theirs[key])
        if a.dtype.kind in "SOU":
            np.testing.assert_array_equal(a, b, err_msg=key)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=key)


@pytest.mark.slow  # About a minute per case on 2 busy cores.
@pytest.mark.tf_compat
@pytest.mark.parametrize(
    "case", sorted(k for k, c in CASES.items() if c.same_on_towers)
)
def test_two_devices_take_the_one_device_first_step(case, tmp_path):
    warm = warm_start_checkpoint(case, str(tmp_path / "init"))
    one = _step(case, str(tmp_path / "one"), warm, ALL_DEVICES[:1])
    two = _step(case, str(tmp_path / "two"), warm, ALL_DEVICES[:2])
    np.testing.assert_allclose(two[0], one[0], rtol=1e-5)
    _assert_same(two[1], one[1])
    _assert_same(two[2], one[2])
    assert len(two[3]) == len(one[3])
    for ours, theirs in zip(two[3], one[3]):
        _assert_same(ours, theirs)


def _first_step(model_dir, reduction, devices):
    config = est.RunConfig(
        model_dir=model_dir,
        tf_random_seed=1,
        devices=devices if len(devices) > 1 else None,
    )
    estimator = est.v1.BaselineRegressor(
        weight_column="w", loss_reduction=reduction, config=config
    )
    recorder = LossRecorder()
    estimator.train(input_fn("regression", repeat=True), hooks=[recorder], steps=1)
    return recorder.losses, estimator.get_variable_value("baseline/bias")


@pytest.mark.parametrize(
    "reduction",
    [
        tf.compat.v1.losses.Reduction.MEAN,
        tf.compat.v1.losses.Reduction.SUM_BY_NONZERO_WEIGHTS,
        tf.compat.v1.losses.Reduction.SUM_OVER_BATCH_SIZE,
    ],
)
def test_a_weight_normalised_loss_is_the_global_one_on_two_devices(reduction, tmp_path):
    """The first batch's weights are [0.5, 3, 0, 0]: tower 1's are all 0, so
    the mean of the towers' weighted means is half the global one."""
    one = _first_step(str(tmp_path / "one"), reduction, ALL_DEVICES[:1])
    two = _first_step(str(tmp_path / "two"), reduction, ALL_DEVICES[:2])
    np.testing.assert_allclose(two[0], one[0], rtol=1e-6)
    np.testing.assert_allclose(two[1], one[1], rtol=1e-6)
    features, labels = data("regression")
    w, y = features["w"][:BATCH], labels[:BATCH]
    if reduction == tf.compat.v1.losses.Reduction.MEAN:
        expected = (w * y**2).sum() / w.sum()
    elif reduction == tf.compat.v1.losses.Reduction.SUM_BY_NONZERO_WEIGHTS:
        expected = (w * y**2).sum() / (w != 0).sum()
    else:
        expected = (w * y**2).sum() / BATCH
    np.testing.assert_allclose(one[0], [expected], rtol=1e-6)  # bias starts at 0


def test_v2_shared_embeddings_are_read_and_left_untrained(tmp_path):
    """tf.estimator's v2 DNN read tf.feature_column.shared_embeddings through
    Keras's DenseFeatures and never trained the shared table (it is no
    variable of its Keras model); emg reads them and keeps it so."""
    columns = [numeric(), *shared_columns(tf.feature_column)]
    estimator = est.DNNClassifier([3], columns, str(tmp_path))
    estimator.train(input_fn("binary", repeat=True), steps=1)
    table = estimator.get_variable_value("c_h_shared_embedding")
    kernel = estimator.get_variable_value("dnn/hiddenlayer_0/kernel")
    assert table.shape == (3, 2) and kernel.shape == (2 + 2 + 2, 3)
    estimator.train(input_fn("binary", repeat=True), steps=2)
    np.testing.assert_array_equal(
        estimator.get_variable_value("c_h_shared_embedding"), table
    )
    assert not np.allclose(
        estimator.get_variable_value("dnn/hiddenlayer_0/kernel"), kernel
    )
    predictions = list(estimator.predict(input_fn("binary", labels=False)))
    assert len(predictions) == 12


class _VariableKinds(tf.compat.v1.train.SessionRunHook):
    """Whether each trainable variable of the graph is a resource variable
    (a reference variable's dtype is a reference one, `float32_ref`)."""

    def begin(self):
        self.resource = {
            v.op.name: v.dtype == v.dtype.base_dtype
            for v in tf.compat.v1.trainable_variables()
        }


@pytest.fixture
def reference_variables():
    """`get_variable` makes reference variables, as under disable_v2_behavior()."""
    enabled = tf.compat.v1.resource_variables_enabled()
    tf.compat.v1.disable_resource_variables()
    yield
    if enabled:
        tf.compat.v1.enable_resource_variables()


@pytest.mark.parametrize(
    "case",
    [
        "BaselineClassifier_v2_binary",
        "LinearClassifier_v2_binary",
        "DNNClassifier_v2_binary",
        "DNNClassifier_v2_multiclass_shared",
        "DNNLinearCombinedClassifier_v2_binary",
        "DNNLinearCombinedClassifier_v1_binary",
    ],
)
def test_model_variables_are_of_tf_estimators_kind_without_resource_variables(
    case, reference_variables, tmp_path
):
    """Where `get_variable` makes reference variables (disable_v2_behavior()),
    tf.estimator's v2 models still made resource ones (Keras layers,
    `tf.Variable`, `use_resource=True`), which their Keras optimizers need for
    slots; the v1 models made reference ones, and so did the creator of a
    tf.feature_column.shared_embeddings table (which is not trained)."""
    estimator = make_estimator(case, "emg", str(tmp_path))
    kinds = _VariableKinds()
    estimator.train(input_fn(CASES[case].kind, repeat=True), hooks=[kinds], steps=1)
    table = "c_h_shared_embedding"
    v2 = CASES[case].form == "v2"
    assert (table in kinds.resource) == case.endswith("_shared")
    assert kinds.resource == {name: v2 and name != table for name in kinds.resource}


def test_v2_shared_embeddings_combine_as_embedding_lookups():
    """The dense value of each shared column is its ids' mean embedding (a
    value out of the vocabulary gives zeros), as embedding_lookup_sparse."""
    with tf.Graph().as_default():
        features = {"c": tf.constant([["x"], ["z"]]), "h": tf.constant([["q"], ["s"]])}
        columns = shared_columns(tf.feature_column)
        dense = _feature_layer.input_layer(
            features, columns, tf.compat.v1.get_variable_scope()
        )
        table = columns[0].shared_embedding_column_creator.embedding_weights
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            session.run(tf.compat.v1.tables_initializer())
            dense_value, table_value = session.run([dense, table])
    expected = np.concatenate(
        [table_value[[0, 2]], np.stack([table_value[1], np.zeros(2)])], axis=1
    )
    np.testing.assert_allclose(dense_value, expected, rtol=1e-6)


def test_an_unknown_optimizer_name_is_refused(tmp_path):
    estimator = est.DNNClassifier([3], dnn_columns(), str(tmp_path), optimizer="Adamax")
    with pytest.raises(
        ValueError,
        match=r"Unsupported optimizer name: Adamax\. Supported names are: \('Adagrad', 'Adam', 'Ftrl', 'RMSProp', 'SGD'\)",
    ):
        estimator.train(input_fn("binary", repeat=True), steps=1)


def test_a_v1_estimator_refuses_a_keras_optimizer(tmp_path):
    estimator = est.v1.LinearClassifier(
        linear_columns(), str(tmp_path), optimizer=object()
    )
    with pytest.raises(
        ValueError, match="not an Optimizer instance.*tf.compat.v1.train optimizer"
    ):
        estimator.train(input_fn("binary", repeat=True), steps=1)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n_classes": 1}, r"n_classes must be >= 2: 1"),
        (
            {"loss_reduction": "weighted_mean"},
            r"Invalid loss_reduction: 'weighted_mean'.*'sum_over_batch_size', 'sum'",
        ),
        (
            {"label_vocabulary": ["a"]},
            r"label_vocabulary has 1 entries \(\['a'\]\) but n_classes is 2",
        ),
        (
            {"feature_columns": []},
            r"feature_columns must be given and non-empty; received \[\]",
        ),
    ],
    ids=["n_classes", "loss_reduction", "vocabulary", "no_columns"],
)
def test_bad_arguments_are_refused_with_the_fix(kwargs, match):
    args = {"hidden_units": [3], "feature_columns": dnn_columns(), **kwargs}
    with pytest.raises(ValueError, match=match):
        est.DNNClassifier(**args)


def test_wide_and_deep_needs_columns_and_hidden_units():
    with pytest.raises(
        ValueError,
        match="Either linear_feature_columns or dnn_feature_columns must be defined",
    ):
        est.DNNLinearCombinedClassifier()
    with pytest.raises(
        ValueError,
        match=r"dnn_hidden_units must be defined when dnn_feature_columns is specified; received None",
    ):
        est.DNNLinearCombinedClassifier(dnn_feature_columns=dnn_columns())


def test_a_bad_sparse_combiner_is_refused():
    with pytest.raises(
        ValueError,
        match=r"sparse_combiner must be one of \('sum', 'mean', 'sqrtn'\); received 'max'",
    ):
        est.LinearRegressor(linear_columns(), sparse_combiner="max")


def test_features_that_are_not_a_dict_are_refused(tmp_path):
    estimator = est.BaselineRegressor(str(tmp_path))

    def input_fn_of_a_tensor():
        return tf.data.Dataset.from_tensors(([1.0], [2.0]))

    with pytest.raises(
        ValueError,
        match="features should be a dictionary of `Tensor`s.*return a dict from the input_fn",
    ):
        estimator.train(input_fn_of_a_tensor, steps=1)
