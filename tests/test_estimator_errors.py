"""Bad input to emg.estimator gets a clear error before any session starts."""

import functools

import pytest
import tensorflow as tf
from estimator_models import (
    EstimatorSpec,
    ModeKeys,
    dataset_input_fn,
    make_data,
    model_fn,
)

from estimator_multigpu import estimator as emg_estimator

pytestmark = pytest.mark.tf_compat  # The runner must behave alike on TF 2.15.

X, Y = make_data(16)
TRAIN_FN = dataset_input_fn(X, Y, 8, repeat=True)


@pytest.fixture(autouse=True)
def no_session(monkeypatch):
    """Fails a test whose error comes only after a session was started."""

    def refuse(*args, **kwargs):
        raise AssertionError("a session started before the error was raised")

    monkeypatch.setattr(tf.compat.v1.train, "MonitoredTrainingSession", refuse)
    monkeypatch.setattr(tf.compat.v1.train, "MonitoredSession", refuse)


@pytest.fixture
def estimator(tmp_path):
    return emg_estimator.Estimator(model_fn, model_dir=str(tmp_path / "m"), params={})


def _returns_dict(features, labels, mode):
    return {"loss": tf.reduce_sum(features["x"])}


def _no_loss(features, labels, mode):
    step = tf.compat.v1.train.get_global_step()
    return EstimatorSpec(mode, train_op=tf.compat.v1.assign_add(step, 1))


def _no_labels(features, mode):
    return EstimatorSpec(mode, predictions={"x": features["x"]})


def _metric_named_loss(features, labels, mode):
    spec = model_fn(features, labels, mode, {})
    value = tf.compat.v1.metrics.mean(tf.constant(1.0))
    return spec._replace(eval_metric_ops={"loss": value})


@pytest.mark.parametrize(
    "fn, error, match",
    [
        (
            _returns_dict,
            ValueError,
            "model_fn should return an EstimatorSpec; it returned dict",
        ),
        (_no_loss, ValueError, "Missing loss"),
        (
            _no_labels,
            ValueError,
            "model_fn does not take labels, but input_fn returns labels",
        ),
    ],
    ids=["wrong_return_type", "missing_loss", "labels_not_taken"],
)
def test_train_model_fn_errors(tmp_path, fn, error, match):
    estimator = emg_estimator.Estimator(fn, model_dir=str(tmp_path))
    with pytest.raises(error, match=match):
        estimator.train(TRAIN_FN, steps=1)


def test_metric_named_loss_is_rejected(tmp_path):
    estimator = emg_estimator.Estimator(_metric_named_loss, model_dir=str(tmp_path))
    with pytest.raises(ValueError, match='Metric with name "loss" is not allowed'):
        estimator.evaluate(TRAIN_FN, steps=1)


def _takes_extra(features, labels, mode, batch_size):
    return model_fn(features, labels, mode, {})


def _lacks_features(inputs, labels, mode):
    return model_fn(inputs, labels, mode, {})


def _no_params(features, labels, mode):
    return model_fn(features, labels, mode, {})


@pytest.mark.parametrize(
    "fn, params, error, match",
    [
        (
            _takes_extra,
            None,
            ValueError,
            r"has following not expected args: \['batch_size'\]",
        ),
        (_lacks_features, None, ValueError, "must include features argument"),
        (_no_params, {"lr": 1}, ValueError, "does not include params argument"),
        ("not a function", None, TypeError, "`model_fn` must be a callable"),
    ],
    ids=["unexpected_arg", "no_features", "params_not_taken", "not_callable"],
)
def test_bad_model_fn_signature(tmp_path, fn, params, error, match):
    with pytest.raises(error, match=match):
        emg_estimator.Estimator(fn, model_dir=str(tmp_path), params=params)


def test_model_dir_that_is_a_file(tmp_path):
    path = tmp_path / "file"
    path.write_text("x")
    with pytest.raises(
        ValueError, match=r"`model_dir` \('.*file'\) is a file, not a directory"
    ):
        emg_estimator.Estimator(model_fn, model_dir=str(path), params={})


def test_model_dir_differs_from_config(tmp_path):
    config = emg_estimator.RunConfig(model_dir=str(tmp_path / "a"))
    with pytest.raises(
        ValueError, match="`model_dir` are set both in constructor and `RunConfig`"
    ):
        emg_estimator.Estimator(
            model_fn, model_dir=str(tmp_path / "b"), config=config, params={}
        )


def test_config_of_wrong_type(tmp_path):
    with pytest.raises(ValueError, match="config must be an instance of `RunConfig`"):
        emg_estimator.Estimator(
            model_fn, config={"model_dir": str(tmp_path)}, params={}
        )


def test_warm_start_from_of_wrong_type(tmp_path):
    with pytest.raises(
        ValueError, match="warm_start_from must be a string or a WarmStartSettings"
    ):
        emg_estimator.Estimator(
            model_fn, model_dir=str(tmp_path), params={}, warm_start_from=3
        )


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (
            {"steps": 2, "max_steps": 5},
            ValueError,
            r"Can not provide both steps \(2\) and max_steps \(5\)",
        ),
        ({"steps": -1}, ValueError, "Must specify steps > 0, given: -1"),
        ({"steps": 0}, ValueError, "Must specify steps > 0, given: 0"),
        ({"max_steps": -3}, ValueError, "Must specify max_steps > 0, given: -3"),
        ({"steps": 2.5}, TypeError, r"`steps` must be an int .*; received 2.5"),
        (
            {"hooks": ["not a hook"]},
            TypeError,
            r"^Hooks must be a SessionRunHook, given: 'not a hook' "
            r"\(`hooks` takes",
        ),
        (
            {"saving_listeners": [object()]},
            TypeError,
            "saving_listeners must be a list of CheckpointSaverListener",
        ),
    ],
    ids=[
        "steps_and_max_steps",
        "negative_steps",
        "zero_steps",
        "negative_max_steps",
        "float_steps",
        "bad_hook",
        "bad_listener",
    ],
)
def test_bad_train_arguments(estimator, kwargs, error, match):
    with pytest.raises(error, match=match):
        estimator.train(TRAIN_FN, **kwargs)


def _needs_batch_size(batch_size):
    return dataset_input_fn(X, Y, batch_size)()


def _three_tuple():
    return {"x": tf.constant(X)}, tf.constant(Y), tf.constant(Y)


@pytest.mark.parametrize(
    "input_fn, error, match",
    [
        (
            _needs_batch_size,
            ValueError,
            r"requires argument\(s\) \['batch_size'\], which the Estimator cannot supply",
        ),
        (
            TRAIN_FN(),
            TypeError,
            "`input_fn` must be a callable returning a tf.data.Dataset",
        ),
        (
            _three_tuple,
            ValueError,
            "input_fn should return \\(features, labels\\) as a len 2 tuple; received a tuple of length 3",
        ),
    ],
    ids=["wrong_arity", "dataset_not_fn", "three_tuple"],
)
def test_bad_input_fn(estimator, input_fn, error, match):
    with pytest.raises(error, match=match):
        estimator.train(input_fn, steps=1)


def test_input_fn_with_bound_arguments_is_accepted(estimator):
    """The arity check sees through functools.partial (no error, no session)."""
    input_fn = functools.partial(_needs_batch_size, batch_size=4)
    with pytest.raises(AssertionError, match="a session started"):
        estimator.train(input_fn, steps=1)


@pytest.mark.parametrize("steps", [0, -2], ids=["zero", "negative"])
def test_bad_evaluate_steps(estimator, steps):
    with pytest.raises(ValueError, match=f"Must specify steps > 0, given: {steps}"):
        estimator.evaluate(TRAIN_FN, steps=steps)


def test_saving_listeners_need_a_checkpoint_saver(tmp_path):
    config = emg_estimator.RunConfig(
        model_dir=str(tmp_path), save_checkpoints_steps=None, save_checkpoints_secs=None
    )
    estimator = emg_estimator.Estimator(model_fn, config=config, params={})
    listener = tf.compat.v1.train.CheckpointSaverListener()
    with pytest.raises(
        ValueError,
        match="There should be a CheckpointSaverHook to use saving_listeners",
    ):
        estimator.train(TRAIN_FN, steps=1, saving_listeners=[listener])


@pytest.mark.parametrize(
    "predict_keys, error, match",
    [
        (
            "nope",
            ValueError,
            r"Expected to run at least one output from \['class', 'probabilities'\]",
        ),
        (
            ["nope"],
            ValueError,
            r"Expected to run at least one output from \['class', 'probabilities'\]",
        ),
    ],
    ids=["string_keys", "unknown_keys"],
)
def test_bad_predict_keys(estimator, predict_keys, error, match):
    with pytest.raises(error, match=match):
        next(estimator.predict(dataset_input_fn(X, None, 4), predict_keys=predict_keys))


def test_predict_keys_with_non_dict_predictions(tmp_path):
    def fn(features, mode):
        return EstimatorSpec(mode, predictions=features["x"])

    estimator = emg_estimator.Estimator(fn, model_dir=str(tmp_path))
    with pytest.raises(
        ValueError, match="predict_keys argument is not valid in case of non-dict"
    ):
        next(estimator.predict(dataset_input_fn(X, None, 4), predict_keys=["a"]))


def test_export_needs_a_receiver_fn(estimator):
    with pytest.raises(ValueError, match="An input_receiver_fn must be defined"):
        estimator.export_saved_model("/tmp/unused", None)


def test_export_needs_a_checkpoint(estimator, tmp_path):
    receiver_fn = emg_estimator.export.build_raw_serving_input_receiver_fn(
        {"x": tf.TensorSpec([None, 4], tf.float32)}
    )
    with pytest.raises(
        ValueError, match="Couldn't find trained model at .*Train first"
    ):
        estimator.export_saved_model(str(tmp_path / "export"), receiver_fn)


@pytest.mark.parametrize(
    "method", ["get_variable_names", "get_variable_value"], ids=["names", "value"]
)
def test_variables_need_a_checkpoint(estimator, method):
    args = ("global_step",) if method == "get_variable_value" else ()
    with pytest.raises(ValueError, match="Could not find trained model in model_dir"):
        getattr(estimator, method)(*args)


def test_predict_spec_without_predictions(tmp_path):
    def fn(features, mode):
        return EstimatorSpec(mode)

    estimator = emg_estimator.Estimator(fn, model_dir=str(tmp_path))
    with pytest.raises(ValueError, match="Missing predictions"):
        next(estimator.predict(dataset_input_fn(X, None, 4)))


def test_mode_keys_are_tf_estimator_strings():
    assert (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT) == (
        "train",
        "eval",
        "infer",
    )
