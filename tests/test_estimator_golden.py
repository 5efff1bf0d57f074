"""Golden comparisons: emg's Estimator vs numpy, and vs tf.estimator on TF 2.15.

Every scenario runs for each implementation: `emg` everywhere, `tf_estimator`
where tf.estimator exists. Both start from one warm-start checkpoint, and
both are compared with a numpy replay of the same training, so the two
implementations agree with each other wherever both run.
"""

import glob
import os

import numpy as np
import pytest
import tensorflow as tf
from estimator_models import (
    LossRecorder,
    batches,
    dataset_input_fn,
    initial_weights,
    make_data,
    model_fn,
    numpy_loss,
    numpy_train,
    write_checkpoint,
)

from estimator_multigpu import estimator as emg_estimator

pytestmark = pytest.mark.tf_compat

BATCH = 8
X, Y = make_data(20)  # Batches of 8, 8 and a short one of 4.
X_EVAL, Y_EVAL = make_data(13, seed=5)

IMPLEMENTATIONS = ["emg", "tf_estimator"]


def _classes(impl):
    if impl == "emg":
        return emg_estimator.Estimator, emg_estimator.RunConfig
    if not emg_estimator.HAS_TF_ESTIMATOR:
        pytest.skip("tf.estimator (the reference) exists on TF <= 2.15 only")
    return tf.estimator.Estimator, tf.estimator.RunConfig


@pytest.fixture(params=IMPLEMENTATIONS)
def make_estimator(request, tmp_path):
    """Builds an Estimator of the implementation under test, warm-started."""
    estimator_cls, config_cls = _classes(request.param)
    warm = write_checkpoint(str(tmp_path / "init" / "init"), *initial_weights())

    def make(model_dir=None, **config):
        config = config_cls(
            model_dir=str(model_dir or tmp_path / "model"),
            save_checkpoints_steps=3,
            log_step_count_steps=1,
            save_summary_steps=1,
            **config,
        )
        return estimator_cls(model_fn, config=config, params={}, warm_start_from=warm)

    return make


def _train(estimator, steps):
    recorder = LossRecorder()
    estimator.train(
        dataset_input_fn(X, Y, BATCH, repeat=True), hooks=[recorder], steps=steps
    )
    return recorder.losses


def _reference(steps):
    return numpy_train(*initial_weights(), batches(X, Y, BATCH, steps))


@pytest.mark.parametrize("steps", [1, 5], ids=["1step", "5steps"])
def test_training_losses_match_numpy(make_estimator, steps):
    _, _, expected = _reference(steps)
    np.testing.assert_allclose(_train(make_estimator(), steps), expected, rtol=1e-5)


def test_trained_variables_match_numpy(make_estimator):
    estimator = make_estimator()
    _train(estimator, 5)
    kernel, bias, _ = _reference(5)
    np.testing.assert_allclose(
        estimator.get_variable_value("dense/kernel"), kernel, rtol=1e-4, atol=1e-6
    )
    np.testing.assert_allclose(
        estimator.get_variable_value("dense/bias"), bias, rtol=1e-4, atol=1e-6
    )
    assert estimator.get_variable_value("global_step") == 5


def test_checkpoint_variable_names(make_estimator):
    estimator = make_estimator()
    _train(estimator, 2)
    assert sorted(estimator.get_variable_names()) == [
        "dense/bias",
        "dense/bias/Momentum",
        "dense/kernel",
        "dense/kernel/Momentum",
        "global_step",
    ]


def test_evaluate_dict_matches_numpy(make_estimator):
    estimator = make_estimator()
    _train(estimator, 4)
    kernel, bias, _ = _reference(4)
    result = estimator.evaluate(dataset_input_fn(X_EVAL, Y_EVAL, BATCH))
    eval_batches = batches(X_EVAL, Y_EVAL, BATCH, 2)  # 8 + a short batch of 5.
    expected_loss = np.mean([numpy_loss(kernel, bias, x, y) for x, y in eval_batches])
    expected_accuracy = np.mean(np.argmax(X_EVAL @ kernel + bias, axis=1) == Y_EVAL)
    assert sorted(result) == ["accuracy", "global_step", "loss"]
    assert result["global_step"] == 4
    np.testing.assert_allclose(result["loss"], expected_loss, rtol=1e-5)
    np.testing.assert_allclose(result["accuracy"], expected_accuracy)


def test_predictions_match_numpy_including_short_batch(make_estimator):
    estimator = make_estimator()
    _train(estimator, 3)
    kernel, bias, _ = _reference(3)
    predictions = list(estimator.predict(dataset_input_fn(X_EVAL, None, BATCH)))
    logits = X_EVAL.astype(np.float64) @ kernel + bias
    assert len(predictions) == len(X_EVAL)
    assert [p["class"] for p in predictions] == list(np.argmax(logits, axis=1))
    probabilities = np.stack([p["probabilities"] for p in predictions])
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(
        np.log(probabilities[:, 1] / probabilities[:, 0]),
        logits[:, 1] - logits[:, 0],
        rtol=1e-4,
        atol=1e-5,
    )


def _event_tags(directory):
    tags = set()
    for path in glob.glob(os.path.join(directory, "events.out.tfevents.*")):
        for event in tf.compat.v1.train.summary_iterator(path):
            tags.update(value.tag for value in event.summary.value)
    return tags


def test_event_files_hold_loss_and_step_rate(make_estimator):
    estimator = make_estimator()
    _train(estimator, 4)
    estimator.evaluate(dataset_input_fn(X_EVAL, Y_EVAL, BATCH), name="holdout")
    assert {"loss", "global_step/sec"} <= _event_tags(estimator.model_dir)
    assert {"loss", "accuracy"} <= _event_tags(
        os.path.join(estimator.model_dir, "eval_holdout")
    )


def _emg(model_dir, warm):
    config = emg_estimator.RunConfig(model_dir=str(model_dir), save_checkpoints_steps=3)
    return emg_estimator.Estimator(
        model_fn, config=config, params={}, warm_start_from=warm
    )


def _tf(model_dir, warm):
    config = tf.estimator.RunConfig(model_dir=str(model_dir), save_checkpoints_steps=3)
    return tf.estimator.Estimator(
        model_fn, config=config, params={}, warm_start_from=warm
    )


@pytest.mark.skipif(
    not emg_estimator.HAS_TF_ESTIMATOR, reason="needs tf.estimator (TF <= 2.15)"
)
@pytest.mark.parametrize(
    "first, second", [(_tf, _emg), (_emg, _tf)], ids=["tf_then_emg", "emg_then_tf"]
)
def test_checkpoints_cross_load(tmp_path, first, second):
    warm = write_checkpoint(str(tmp_path / "init" / "init"), *initial_weights())
    _train(first(tmp_path / "model", warm), 3)
    losses = _train(second(tmp_path / "model", warm), 3)
    kernel, _, expected = _reference(6)
    np.testing.assert_allclose(losses, expected[3:], rtol=1e-5)
    resumed = second(tmp_path / "model", warm)
    assert resumed.get_variable_value("global_step") == 6
    np.testing.assert_allclose(
        resumed.get_variable_value("dense/kernel"), kernel, rtol=1e-4, atol=1e-6
    )


@pytest.mark.skipif(
    not emg_estimator.HAS_TF_ESTIMATOR, reason="needs tf.estimator (TF <= 2.15)"
)
def test_evaluate_and_predict_equal_reference_on_one_checkpoint(tmp_path):
    warm = write_checkpoint(str(tmp_path / "init" / "init"), *initial_weights())
    _train(_tf(tmp_path / "model", warm), 4)
    ours, theirs = _emg(tmp_path / "model", warm), _tf(tmp_path / "model", warm)
    eval_fn = dataset_input_fn(X_EVAL, Y_EVAL, BATCH)
    assert ours.evaluate(eval_fn, name="a") == theirs.evaluate(eval_fn, name="b")
    predict_fn = dataset_input_fn(X_EVAL, None, BATCH)
    mine_all = list(ours.predict(predict_fn))  # Generators must not interleave.
    for mine, reference in zip(mine_all, list(theirs.predict(predict_fn)), strict=True):
        assert mine["class"] == reference["class"]
        np.testing.assert_array_equal(mine["probabilities"], reference["probabilities"])


@pytest.mark.skipif(
    not emg_estimator.HAS_TF_ESTIMATOR, reason="needs tf.estimator (TF <= 2.15)"
)
def test_accepts_tf_estimator_warm_start_and_receiver(tmp_path):
    """Code that still builds tf.estimator's helper objects runs on ours unchanged."""
    warm = write_checkpoint(str(tmp_path / "init" / "init"), *initial_weights())
    settings = tf.estimator.WarmStartSettings(warm, vars_to_warm_start="dense.*")
    estimator = emg_estimator.Estimator(
        model_fn, model_dir=str(tmp_path / "m"), params={}, warm_start_from=settings
    )
    losses = _train(estimator, 2)
    np.testing.assert_allclose(losses, _reference(2)[2], rtol=1e-5)
    example = {"x": tf.zeros([1, X.shape[1]])}  # Theirs needs a tensor, not a spec.
    receiver_fn = tf.estimator.export.build_raw_serving_input_receiver_fn(example)
    path = estimator.export_saved_model(str(tmp_path / "export"), receiver_fn)
    served = tf.saved_model.load(path.decode()).signatures["serving_default"]
    assert served(x=tf.constant(X[:2]))["probabilities"].shape == (2, 3)
