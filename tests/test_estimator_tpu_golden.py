"""Golden comparisons: emg.estimator.tpu.TPUEstimator vs TPUEstimator(use_tpu=False).

Each scenario runs for `emg` everywhere and for the real
`tf.compat.v1.estimator.tpu.TPUEstimator(use_tpu=False)` where it exists (TF
2.15), with the same model_fn, input_fn and warm start (a `scaffold_fn`), and
both are checked against the same literal or numpy reference, so the two
agree wherever both run.
"""

import os

import numpy as np
import pytest
import tensorflow as tf
from estimator_models import (
    LossRecorder,
    batches,
    initial_weights,
    make_data,
    numpy_loss,
    numpy_train,
    write_checkpoint,
)
from tpu_models import event_tags, make_input_fn, make_model_fn

from estimator_multigpu import estimator as emg_estimator

pytestmark = pytest.mark.tf_compat

TRAIN_BATCH, EVAL_BATCH, PREDICT_BATCH = 8, 5, 3
X, Y = make_data(20)
X_EVAL, Y_EVAL = make_data(13, seed=5)


def _modules(impl):
    """`(tpu module, export module)` of the implementation under test."""
    if impl == "emg":
        from estimator_multigpu.estimator import tpu

        return tpu, emg_estimator.export
    if not emg_estimator.HAS_TF_ESTIMATOR:
        pytest.skip("tf.compat.v1.estimator.tpu exists on TF <= 2.15 only")
    return tf.compat.v1.estimator.tpu, tf.estimator.export


@pytest.fixture(params=["emg", "tf_estimator"])
def tpu_impl(request):
    return _modules(request.param)


@pytest.fixture
def make_tpu_estimator(tpu_impl, tmp_path):
    """`make(seen, **model_fn_options)`: a warm-started TPUEstimator(use_tpu=False)."""
    tpu, _ = tpu_impl
    warm = write_checkpoint(str(tmp_path / "init" / "init"), *initial_weights())

    def make(seen, export_to_tpu=False, **options):
        config = tpu.RunConfig(
            model_dir=str(tmp_path / "model"),
            save_checkpoints_steps=3,
            save_summary_steps=1,
            log_step_count_steps=1,
            tpu_config=tpu.TPUConfig(iterations_per_loop=1),
        )
        model_fn = make_model_fn(
            tpu.TPUEstimatorSpec, seen, init_checkpoint=warm, **options
        )
        return tpu.TPUEstimator(
            model_fn,
            config=config,
            use_tpu=False,
            train_batch_size=TRAIN_BATCH,
            eval_batch_size=EVAL_BATCH,
            predict_batch_size=PREDICT_BATCH,
            export_to_tpu=export_to_tpu,
        )

    return make


def _train(estimator, seen, steps):
    recorder = LossRecorder()
    estimator.train(
        make_input_fn(X, Y, seen, repeat=True), hooks=[recorder], steps=steps
    )
    return recorder.losses


def _serving_fn(export):
    def serving_input_receiver_fn():
        x = tf.compat.v1.placeholder(tf.float32, [None, 4], name="x")
        return export.ServingInputReceiver({"x": x}, {"x": x})

    return serving_input_receiver_fn


def test_params_batch_size_in_each_mode(make_tpu_estimator, tpu_impl, tmp_path):
    # tpu_estimator.py (2.15), use_tpu=False: _call_input_fn sets
    # params['batch_size'] = ctx.batch_size_for_input_fn, which on CPU is the
    # mode's global batch size; _ModelFnWrapper._call_model_fn sets
    # batch_size_for_model_fn (the same) and params['use_tpu'] = False; an
    # export (no input_fn) sets no batch_size and use_tpu = False. (With
    # export_to_tpu=True the real one calls the model_fn once more, for its
    # TPU MetaGraph, which emg does not write: it needs a TPU to serve.)
    seen = []
    estimator = make_tpu_estimator(seen)
    _train(estimator, seen, 1)
    estimator.evaluate(make_input_fn(X_EVAL, Y_EVAL, seen), steps=1)
    next(iter(estimator.predict(make_input_fn(X_EVAL, None, seen))))
    estimator.export_saved_model(str(tmp_path / "export"), _serving_fn(tpu_impl[1]))
    assert seen == [
        ("input_fn", "train", TRAIN_BATCH),
        ("model_fn", "train", TRAIN_BATCH, False),
        ("input_fn", "eval", EVAL_BATCH),
        ("model_fn", "eval", EVAL_BATCH, False),
        ("input_fn", "infer", PREDICT_BATCH),
        ("model_fn", "infer", PREDICT_BATCH, False),
        ("model_fn", "infer", None, False),
    ]


def _reference(steps):
    return numpy_train(*initial_weights(), batches(X, Y, TRAIN_BATCH, steps))


def test_losses_per_step_match_numpy(make_tpu_estimator):
    seen = []
    losses = _train(make_tpu_estimator(seen), seen, 5)
    np.testing.assert_allclose(losses, _reference(5)[2], rtol=1e-5)


def test_checkpoint_variable_names(make_tpu_estimator):
    seen = []
    estimator = make_tpu_estimator(seen)
    _train(estimator, seen, 2)
    assert sorted(estimator.get_variable_names()) == [
        "dense/bias",
        "dense/bias/Momentum",
        "dense/kernel",
        "dense/kernel/Momentum",
        "global_step",
    ]


@pytest.mark.parametrize("tensors_as", ["list", "dict"])
def test_eval_metrics_match_numpy(make_tpu_estimator, tensors_as):
    seen = []
    estimator = make_tpu_estimator(seen, tensors_as=tensors_as)
    _train(estimator, seen, 4)
    kernel, bias, _ = _reference(4)
    result = estimator.evaluate(make_input_fn(X_EVAL, Y_EVAL, seen))
    eval_batches = batches(X_EVAL, Y_EVAL, EVAL_BATCH, 3)  # 5, 5 and 3.
    assert sorted(result) == ["accuracy", "global_step", "loss", "mean_label"]
    assert result["global_step"] == 4
    np.testing.assert_allclose(
        result["loss"],
        np.mean([numpy_loss(kernel, bias, x, y) for x, y in eval_batches]),
        rtol=1e-5,
    )
    accuracy = np.mean(np.argmax(X_EVAL @ kernel + bias, axis=1) == Y_EVAL)
    np.testing.assert_allclose(result["accuracy"], accuracy)
    np.testing.assert_allclose(result["mean_label"], Y_EVAL.mean(), rtol=1e-6)


def test_predictions_match_numpy(make_tpu_estimator):
    seen = []
    estimator = make_tpu_estimator(seen)
    _train(estimator, seen, 3)
    kernel, bias, _ = _reference(3)
    predictions = list(estimator.predict(make_input_fn(X_EVAL, None, seen)))
    logits = X_EVAL.astype(np.float64) @ kernel + bias
    assert [p["class"] for p in predictions] == list(np.argmax(logits, axis=1))
    np.testing.assert_allclose(
        np.stack([p["logits"] for p in predictions]), logits, rtol=1e-4, atol=1e-5
    )


def test_saved_model_signatures(make_tpu_estimator, tpu_impl, tmp_path):
    seen = []
    estimator = make_tpu_estimator(seen)
    _train(estimator, seen, 1)
    path = estimator.export_saved_model(
        str(tmp_path / "export"), _serving_fn(tpu_impl[1])
    )
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        meta_graph = tf.compat.v1.saved_model.loader.load(
            session, ["serve"], os.fsdecode(path)
        )
    signatures = {
        key: (sorted(sig.inputs), sorted(sig.outputs))
        for key, sig in meta_graph.signature_def.items()
    }
    assert signatures == {
        "serving_default": (["x"], ["class", "logits"]),
    }


def test_host_call_summaries_and_step_rate_tags(make_tpu_estimator, tmp_path):
    seen = []
    host_dir = str(tmp_path / "host")
    estimator = make_tpu_estimator(seen, host_dir=host_dir)
    _train(estimator, seen, 4)
    assert event_tags(host_dir) == {"host_loss", "host_examples"}
    assert {"loss", "global_step/sec", "examples/sec"} <= event_tags(
        estimator.model_dir
    )


def test_as_estimator_spec(tpu_impl):
    tpu, _ = tpu_impl
    scaffold = tf.compat.v1.train.Scaffold()
    hook = tf.compat.v1.train.StopAtStepHook(last_step=1)
    with tf.Graph().as_default():
        labels = tf.constant([0, 1])
        logits = tf.constant([[1.0, 0.0], [0.0, 1.0]])
        loss = tf.constant(0.5)
        spec = tpu.TPUEstimatorSpec(
            "eval",
            loss=loss,
            eval_metrics=(
                lambda labels, logits: _accuracy(labels, logits),
                [labels, logits],
            ),
            host_call=(lambda x: [tf.identity(x)], [tf.reshape(loss, [1])]),
            scaffold_fn=lambda: scaffold,
            training_hooks=[hook],
            evaluation_hooks=[hook],
        ).as_estimator_spec()
    assert sorted(spec.eval_metric_ops) == ["accuracy"]
    assert spec.scaffold is scaffold
    assert spec.loss is loss
    # The host_call's hook joins every mode's hooks.
    assert [len(spec.training_hooks), len(spec.evaluation_hooks)] == [2, 2]
    assert len(spec.prediction_hooks) == 1
    assert spec.training_hooks[0] is hook
    assert spec.training_hooks[1] is spec.prediction_hooks[0]


def _accuracy(labels, logits):
    return {"accuracy": tf.compat.v1.metrics.accuracy(labels, tf.argmax(logits, 1))}


@pytest.mark.parametrize(
    "host_call, error, match",
    [
        ((lambda x: x,), ValueError, "host_call should have two elements"),
        ((1, [1]), TypeError, r"host_call\[0\] should be callable"),
        (
            (lambda x: x, 3),
            ValueError,
            r"host_call\[1\] should be tuple or list, or dict",
        ),
        (
            (lambda x: x, [1, 2]),
            RuntimeError,
            "length of tensors 2 does not match method args of the function, which takes 1",
        ),
    ],
    ids=["one-element", "not-callable", "not-a-list", "arity"],
)
def test_bad_host_call_raises_as_tpu_estimator_does(tpu_impl, host_call, error, match):
    tpu, _ = tpu_impl
    with pytest.raises(error, match=match):
        tpu.TPUEstimatorSpec("train", host_call=host_call)


def test_reserved_params_keys_raise(tpu_impl):
    tpu, _ = tpu_impl
    with pytest.raises(
        ValueError, match=r"\['batch_size', 'context'\] are reserved keys but existed"
    ):
        tpu.TPUEstimator(
            lambda features, labels, mode, params: None,
            config=tpu.RunConfig(),
            params={"batch_size": 8},
            use_tpu=False,
        )


def test_config_must_be_the_tpu_run_config(tpu_impl):
    tpu, _ = tpu_impl
    with pytest.raises(ValueError, match="`config` must be provided with type"):
        tpu.TPUEstimator(lambda features, labels, mode, params: None, use_tpu=False)
