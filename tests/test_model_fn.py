"""The low spec module: `fn_args` reads arguments as TensorFlow's, one `call_model_fn`."""

import functools

import pytest
import tensorflow as tf
from conftest import ALL_DEVICES
from tensorflow.python.util import function_utils

import estimator_multigpu as emg
from estimator_multigpu import _model_fn as model_fn_lib
from estimator_multigpu._model_fn import EstimatorSpec, ModeKeys
from estimator_multigpu.estimator import _spec as estimator_spec


def _plain(features, labels, mode, params, config):
    del labels, mode, params, config
    return features


def _varargs(features, *args, labels=None, **kwargs):
    del args, labels, kwargs
    return features


def _positional_only(features, labels, /, mode):
    del labels, mode
    return features


class _Model:
    def method(self, features, labels, mode):
        del labels, mode
        return features

    @classmethod
    def build(cls, features, mode):
        del mode
        return features

    @staticmethod
    def static(features, labels):
        del labels
        return features

    def __call__(self, features, labels, params):
        del labels, params
        return features


def _decorated(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    return wrapper


_CASES = {
    "function": _plain,
    "lambda": lambda features, labels, mode: features,
    "varargs_kwonly": _varargs,
    "positional_only": _positional_only,
    "partial_positional": functools.partial(_plain, 1, 2),
    "partial_keyword": functools.partial(_plain, mode="train"),
    "partial_mixed": functools.partial(_plain, 1, params={}),
    "partial_of_partial": functools.partial(functools.partial(_plain, 1), config=2),
    "bound_method": _Model().method,
    "classmethod": _Model.build,
    "staticmethod": _Model.static,
    "callable_object": _Model(),
    "partial_of_bound_method": functools.partial(_Model().method, labels=None),
    "partial_of_callable_object": functools.partial(_Model(), 1),
    "wraps_decorated": _decorated(_plain),
}


@pytest.mark.tf_compat
@pytest.mark.parametrize("fn", list(_CASES.values()), ids=list(_CASES))
def test_fn_args_matches_tensorflow(fn):
    assert model_fn_lib.fn_args(fn) == tuple(function_utils.fn_args(fn))


def test_fn_args_rejects_what_is_not_callable():
    with pytest.raises(TypeError, match=r"`fn` must be callable; received 3"):
        model_fn_lib.fn_args(3)


@pytest.mark.tf_compat
def test_estimator_spec_module_re_exports_the_low_module():
    assert estimator_spec.EstimatorSpec is EstimatorSpec
    assert estimator_spec.ModeKeys is ModeKeys
    assert emg.estimator.EstimatorSpec is EstimatorSpec


def _predict_fn(features, labels, mode):
    del labels
    return EstimatorSpec(mode, predictions=features)


def _no_labels_fn(features, mode):
    return EstimatorSpec(mode, predictions=features)


def _returns_dict(features, labels, mode):
    del labels, mode
    return {"predictions": features}


def _call(model_fn, with_labels, devices=None):
    """Calls `model_fn` directly (devices=None) or replicated over `devices`."""
    with tf.Graph().as_default():
        features = tf.ones([4, 2])
        labels = tf.ones([4]) if with_labels else None
        if devices is None:
            return model_fn_lib.call_model_fn(
                model_fn, features, labels, ModeKeys.PREDICT, None, None
            )
        replicated = emg.replicate_model_fn(model_fn, devices=devices)
        return replicated(features, labels, ModeKeys.PREDICT)


_MISTAKES = [
    (_no_labels_fn, "model_fn does not take labels, but input_fn returns labels"),
    (_returns_dict, "model_fn should return an EstimatorSpec; .*it returned dict"),
]


@pytest.mark.parametrize(
    "devices", [None, ALL_DEVICES[:1], ALL_DEVICES[:2]], ids=["direct", "1dev", "2dev"]
)
@pytest.mark.parametrize("model_fn, message", _MISTAKES, ids=["labels", "not_a_spec"])
def test_one_exception_type_for_each_mistake(devices, model_fn, message):
    with pytest.raises(ValueError, match=message):
        _call(model_fn, model_fn is _no_labels_fn, devices)


def test_the_error_names_the_tower():
    with pytest.raises(ValueError, match="in tower 0 it returned dict"):
        _call(_returns_dict, False, ALL_DEVICES[:2])


def test_call_passes_only_the_arguments_the_model_fn_takes():
    spec = _call(_predict_fn, False)
    assert spec.mode == ModeKeys.PREDICT


@pytest.mark.tf_compat
def test_tf_estimator_classes_exactly_where_tf_estimator_exists():
    if model_fn_lib.HAS_TF_ESTIMATOR:
        assert (EstimatorSpec, ModeKeys) == (
            tf.estimator.EstimatorSpec,
            tf.estimator.ModeKeys,
        )
    else:
        assert not hasattr(tf, "estimator")
        assert (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT) == (
            "train",
            "eval",
            "infer",
        )
