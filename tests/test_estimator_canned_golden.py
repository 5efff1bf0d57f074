"""Golden comparisons: emg's canned estimators vs tf.estimator's on TF 2.15.

Each case builds the same canned estimator both ways (`emg.estimator` /
`emg.estimator.v1` and `tf.estimator` / `tf.compat.v1.estimator`), both
warm-started from one checkpoint, then compares the loss of each training
step, the evaluation metrics, the predictions, the checkpoint's variable
names and the SavedModel's signatures; and a checkpoint of each resumes on
the other. Skipped where tf.estimator is gone (TF 2.16+).
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest
import tensorflow as tf
from canned_models import CASES, input_fn, make_estimator, warm_start_checkpoint
from estimator_models import LossRecorder

from estimator_multigpu import estimator as emg_estimator

pytestmark = [
    pytest.mark.tf_compat,
    pytest.mark.skipif(
        not emg_estimator.HAS_TF_ESTIMATOR,
        reason="tf.estimator (the reference) exists on TF <= 2.15 only",
    ),
]

STEPS = 3
DETERMINISTIC = sorted(k for k, c in CASES.items() if not c.random_training)
RANDOM_TRAINING = sorted(k for k, c in CASES.items() if c.random_training)


def _train(estimator, case, steps=STEPS):
    recorder = LossRecorder()
    estimator.train(
        input_fn(CASES[case].kind, repeat=True), hooks=[recorder], steps=steps
    )
    return recorder.losses


def _pair(case, tmp_path):
    warm = warm_start_checkpoint(case, str(tmp_path / "init"))
    return {
        impl: make_estimator(case, impl, str(tmp_path / impl), warm)
        for impl in ("emg", "tf")
    }


def _assert_close_dicts(ours, theirs, rtol=2e-4, atol=1e-6):
    assert sorted(ours) == sorted(theirs)
    for key in theirs:
        ours_value, their_value = np.asarray(ours[key]), np.asarray(theirs[key])
        if their_value.dtype.kind in "SOU":
            np.testing.assert_array_equal(ours_value, their_value, err_msg=key)
        else:
            np.testing.assert_allclose(
                ours_value, their_value, rtol=rtol, atol=atol, err_msg=key
            )


def _signatures(export_dir):
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        meta = tf.compat.v1.saved_model.loader.load(session, ["serve"], export_dir)
    return {
        key: sorted(signature.outputs) for key, signature in meta.signature_def.items()
    }


def _export(estimator, case, path):
    columns = CASES[case].columns()
    # The v1 function refuses tf.feature_column.shared_embeddings columns.
    v2 = any(hasattr(c, "shared_embedding_column_creator") for c in columns)
    make_spec = (
        tf.feature_column if v2 else tf.compat.v1.feature_column
    ).make_parse_example_spec
    spec = make_spec(columns)
    serving = emg_estimator.export.build_parsing_serving_input_receiver_fn(spec)
    return estimator.export_saved_model(path, serving)


def _assert_same_evaluation_and_predictions(built, kind):
    results = {impl: e.evaluate(input_fn(kind)) for impl, e in built.items()}
    _assert_close_dicts(results["emg"], results["tf"])
    predictions = {
        impl: list(e.predict(input_fn(kind, labels=False))) for impl, e in built.items()
    }
    assert len(predictions["emg"]) == len(predictions["tf"])
    for ours, theirs in zip(predictions["emg"], predictions["tf"]):
        _assert_close_dicts(ours, theirs)


@pytest.mark.parametrize("case", DETERMINISTIC)
def test_losses_metrics_predictions_and_names_match_tf_estimator(case, tmp_path):
    built = _pair(case, tmp_path)
    losses = {impl: _train(e, case) for impl, e in built.items()}
    np.testing.assert_allclose(losses["emg"], losses["tf"], rtol=2e-5)
    _assert_same_evaluation_and_predictions(built, CASES[case].kind)
    names = {impl: sorted(e.get_variable_names()) for impl, e in built.items()}
    assert names["emg"] == names["tf"]


@pytest.mark.parametrize("case", RANDOM_TRAINING)
def test_dropout_trains_only_and_names_match_tf_estimator(case, tmp_path):
    """Dropout masks come from the graph's op seeds (tf.estimator's dropout
    layers take no seed), which no two graphs share; so both resume from one
    checkpoint and evaluate and predict (no dropout there) before training,
    and each one's first training loss differs from the batch's evaluation
    loss (dropout is on in training)."""
    warm = warm_start_checkpoint(case, str(tmp_path / "init"))
    built = {}
    for impl in ("emg", "tf"):
        shutil.copytree(warm, str(tmp_path / impl))
        built[impl] = make_estimator(case, impl, str(tmp_path / impl))
    kind = CASES[case].kind
    _assert_same_evaluation_and_predictions(built, kind)
    for impl, estimator in built.items():
        first_batch = estimator.evaluate(input_fn(kind), steps=1)["loss"]
        losses = _train(estimator, case)
        assert np.all(np.isfinite(losses)), (impl, losses)
        assert abs(losses[0] - first_batch) > 1e-4 * abs(first_batch), impl
    names = {impl: sorted(e.get_variable_names()) for impl, e in built.items()}
    assert names["emg"] == names["tf"]


@pytest.mark.parametrize("case", sorted(CASES))
def test_saved_model_signatures_match_tf_estimator(case, tmp_path):
    signatures = {}
    for impl, estimator in _pair(case, tmp_path).items():
        _train(estimator, case, 1)
        path = _export(estimator, case, str(tmp_path / f"export_{impl}"))
        signatures[impl] = _signatures(path)
    assert signatures["emg"] == signatures["tf"]


@pytest.mark.parametrize("first", ["tf", "emg"], ids=["tf_then_emg", "emg_then_tf"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_checkpoint_resumes_on_the_other(case, first, tmp_path):
    warm = warm_start_checkpoint(case, str(tmp_path / "init"))
    second = "emg" if first == "tf" else "tf"
    reference = make_estimator(case, first, str(tmp_path / "reference"), warm)
    _train(reference, case, 2)
    expected = _train(reference, case, 2)  # A new train call restarts the input.
    model_dir = str(tmp_path / "model")
    starter = make_estimator(case, first, model_dir, warm)
    _train(starter, case, 2)
    step = starter.get_variable_value("global_step")
    resumed = make_estimator(case, second, model_dir)
    losses = _train(resumed, case, 2)
    assert resumed.get_variable_value("global_step") == step + 2
    np.testing.assert_allclose(losses, expected, rtol=2e-5)
