"""emg.estimator.experimental vs tf.estimator.experimental; event tags; Keras metrics."""

import glob
import os

import numpy as np
import pytest
import tensorflow as tf
from estimator_models import (
    EstimatorSpec,
    dataset_input_fn,
    initial_weights,
    make_data,
    model_fn,
    write_checkpoint,
)

from estimator_multigpu import estimator as emg_estimator
from estimator_multigpu.estimator import _summaries

pytestmark = pytest.mark.tf_compat

X, Y = make_data(16)
TRAIN_FN = dataset_input_fn(X, Y, 8, repeat=True)
EVAL_FN = dataset_input_fn(X, Y, 8)
IMPLEMENTATIONS = ["emg", "tf_estimator"]


def _module(impl):
    if impl == "emg":
        return emg_estimator
    if not emg_estimator.HAS_TF_ESTIMATOR:
        pytest.skip("tf.estimator (the reference) exists on TF <= 2.15 only")
    return tf.estimator


@pytest.fixture(params=IMPLEMENTATIONS)
def module(request):
    return _module(request.param)


def _estimator(module, tmp_path, fn=model_fn, **config):
    warm = write_checkpoint(str(tmp_path / "init" / "init"), *initial_weights())
    config = module.RunConfig(
        model_dir=str(tmp_path / "model"), save_checkpoints_steps=100, **config
    )
    return module.Estimator(fn, config=config, params={}, warm_start_from=warm)


def _step(estimator):
    return int(estimator.get_variable_value("global_step"))


def _write_evals(directory, history):
    with tf.Graph().as_default():
        for step, loss in history.items():
            _summaries.write_dict(directory, {"loss": loss}, step)


# Early stopping: the same evaluation history stops both at the same step.

EVAL_HISTORY = {1: 1.0, 2: 0.5, 4: 0.6, 6: 0.7, 9: 0.8}

HOOKS = {
    "no_decrease_3": ("stop_if_no_decrease_hook", ("loss", 3), 1),
    "no_decrease_9": ("stop_if_no_decrease_hook", ("loss", 9), 12),
    "no_increase_2": ("stop_if_no_increase_hook", ("loss", 2), 1),
    "higher_0_75": ("stop_if_higher_hook", ("loss", 0.75), 1),
    "higher_5": ("stop_if_higher_hook", ("loss", 5.0), 12),
    "lower_0_55": ("stop_if_lower_hook", ("loss", 0.55), 1),
}


@pytest.mark.parametrize("name", list(HOOKS))
def test_early_stopping_hooks_stop_at_the_same_step(module, tmp_path, name):
    hook_name, args, expected_step = HOOKS[name]
    estimator = _estimator(module, tmp_path)
    _write_evals(estimator.eval_dir(), EVAL_HISTORY)
    make = getattr(module.experimental, hook_name)
    hook = make(estimator, *args, run_every_secs=None, run_every_steps=1)
    estimator.train(TRAIN_FN, hooks=[hook], max_steps=12)
    assert _step(estimator) == expected_step
    stop_flag = "signal_early_stopping/STOP"
    assert bool(estimator.get_variable_value(stop_flag)) == (expected_step < 12)


def test_early_stopping_hook_argument_errors(module, tmp_path):
    estimator = _estimator(module, tmp_path)
    make = module.experimental.make_early_stopping_hook
    with pytest.raises(ValueError, match="Only one of `run_every_secs` and"):
        make(estimator, lambda: True, run_every_secs=1, run_every_steps=1)
    with pytest.raises(TypeError, match="`estimator` must have type"):
        make(object(), lambda: True)


def test_read_eval_metrics_by_step(tmp_path):
    directory = str(tmp_path / "eval")
    _write_evals(directory, EVAL_HISTORY)
    metrics = emg_estimator.experimental.read_eval_metrics(directory)
    assert list(metrics) == sorted(EVAL_HISTORY)
    assert metrics[2] == {"loss": 0.5}


def test_stop_at_checkpoint_step_hook_on_the_chief_is_stop_at_step(module, tmp_path):
    estimator = _estimator(module, tmp_path)
    make = module.experimental.make_stop_at_checkpoint_step_hook
    estimator.train(TRAIN_FN, hooks=[make(estimator, 3)])
    assert _step(estimator) == 3


def _eval_history(estimator, name=None):
    directory = estimator.eval_dir(name)
    metrics = emg_estimator.experimental.read_eval_metrics(directory)
    return {step: round(values["loss"], 5) for step, values in metrics.items()}


@pytest.mark.slow
def test_in_memory_evaluator_matches_tf_estimator(tmp_path):
    histories = []
    for impl in IMPLEMENTATIONS:
        module = _module(impl)
        estimator = _estimator(module, tmp_path / impl)
        hook = module.experimental.InMemoryEvaluatorHook(
            estimator, EVAL_FN, every_n_iter=2, name="mem"
        )
        estimator.train(TRAIN_FN, hooks=[hook], steps=5)
        histories.append(_eval_history(estimator, "mem"))
    assert sorted(histories[0]) == [0, 2, 4, 5]
    assert histories[0] == histories[1]


def test_in_memory_evaluator_errors(tmp_path):
    estimator = _estimator(emg_estimator, tmp_path)
    with pytest.raises(ValueError, match="invalid every_n_iter=0"):
        emg_estimator.experimental.InMemoryEvaluatorHook(
            estimator, EVAL_FN, every_n_iter=0
        )


# Event files: tf.estimator's tags by default; examples/sec when asked.


def _tags(directory):
    tags = set()
    for path in glob.glob(os.path.join(directory, "events.out.tfevents.*")):
        for event in tf.compat.v1.train.summary_iterator(path):
            tags |= {value.tag for value in event.summary.value}
    return tags


def test_event_tags_are_tf_estimators(module, tmp_path):
    estimator = _estimator(module, tmp_path, log_step_count_steps=2)
    estimator.train(TRAIN_FN, steps=5)
    assert _tags(estimator.model_dir) == {"loss", "global_step/sec"}


def test_examples_per_sec_tag_when_asked(tmp_path):
    estimator = _estimator(
        emg_estimator, tmp_path, log_step_count_steps=2, log_examples_per_sec=True
    )
    estimator.train(TRAIN_FN, steps=5)
    assert _tags(estimator.model_dir) == {"loss", "global_step/sec", "examples/sec"}


# Keras Metric objects in eval_metric_ops.


def _keras_metrics():
    if emg_estimator.HAS_TF_ESTIMATOR:
        return tf.keras.metrics
    tf_keras = pytest.importorskip("tf_keras", reason="graph-mode Keras metrics")
    return tf_keras.metrics


def _model_fn_with_keras_metric(features, labels, mode, params):
    spec = model_fn(features, labels, mode, params)
    if mode != "eval":
        return spec
    mean = _keras_metrics().Mean(name="mean_x")
    mean.update_state(features["x"])
    metrics = dict(spec.eval_metric_ops, mean_x=mean)
    return EstimatorSpec(mode, loss=spec.loss, eval_metric_ops=metrics)


def test_keras_metric_objects_in_eval_metric_ops(module, tmp_path):
    estimator = _estimator(module, tmp_path, fn=_model_fn_with_keras_metric)
    results = estimator.evaluate(EVAL_FN)
    np.testing.assert_allclose(results["mean_x"], X.mean(), rtol=1e-6)
    assert {"accuracy", "loss", "mean_x", "global_step"} == set(results)


# Inputs the examples/sec probe once failed on.


@pytest.fixture
def v1_tensorshape():
    tf.compat.v1.disable_v2_tensorshape()
    try:
        yield
    finally:
        tf.compat.v1.enable_v2_tensorshape()


@pytest.mark.parametrize("examples", [False, True], ids=["default", "examples_sec"])
def test_trains_under_v1_tensorshape_with_unknown_batch(
    v1_tensorshape, tmp_path, examples
):
    estimator = _estimator(
        emg_estimator, tmp_path, log_step_count_steps=1, log_examples_per_sec=examples
    )
    assert _step(estimator.train(TRAIN_FN, steps=2)) == 2


def _mixed_keys_input_fn():
    """Features `{'x': [8, 4], 0: [8]}`: tensors, since tf.data sorts dict keys."""
    dataset = tf.data.Dataset.from_tensor_slices((X, np.arange(16), Y))
    iterator = tf.compat.v1.data.make_one_shot_iterator(dataset.batch(8).repeat())
    x, index, y = iterator.get_next()
    return {"x": x, 0: index}, y


@pytest.mark.parametrize("examples", [False, True], ids=["default", "examples_sec"])
def test_trains_on_features_with_int_and_str_keys(module, tmp_path, examples):
    extra = {"log_examples_per_sec": examples} if module is emg_estimator else {}
    if examples and module is not emg_estimator:
        pytest.skip("examples/sec is emg's option")
    estimator = _estimator(module, tmp_path, log_step_count_steps=1, **extra)
    assert _step(estimator.train(_mixed_keys_input_fn, steps=2)) == 2
