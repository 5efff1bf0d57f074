"""TrainSpec, EvalSpec, exporters and local train_and_evaluate."""

import os

import numpy as np
import pytest
import tensorflow as tf
from estimator_models import (
    NUM_FEATURES,
    dataset_input_fn,
    initial_weights,
    make_data,
    model_fn,
    write_checkpoint,
)

from estimator_multigpu import estimator as emg_estimator

pytestmark = pytest.mark.tf_compat  # The runner must behave alike on TF 2.15.

X, Y = make_data(20)
X_EVAL, Y_EVAL = make_data(13, seed=5)
TRAIN_FN = dataset_input_fn(X, Y, 8, repeat=True)
EVAL_FN = dataset_input_fn(X_EVAL, Y_EVAL, 8)


def _receiver_fn():
    spec = {"x": tf.TensorSpec([None, NUM_FEATURES], tf.float32)}
    return emg_estimator.export.build_raw_serving_input_receiver_fn(spec)


def _estimator(tmp_path, module=emg_estimator, **config):
    warm = write_checkpoint(str(tmp_path / "init" / "init"), *initial_weights())
    run_config = module.RunConfig(
        model_dir=str(tmp_path / "model"), save_checkpoints_steps=2, **config
    )
    return module.Estimator(
        model_fn, config=run_config, params={}, warm_start_from=warm
    )


def _versions(estimator, name):
    return sorted(os.listdir(os.path.join(estimator.model_dir, "export", name)))


def test_train_and_evaluate_returns_last_metrics_and_exports(tmp_path):
    estimator = _estimator(tmp_path)
    exporter = emg_estimator.LatestExporter("latest", _receiver_fn(), exports_to_keep=2)
    metrics, exports = emg_estimator.train_and_evaluate(
        estimator,
        emg_estimator.TrainSpec(TRAIN_FN, max_steps=6),
        emg_estimator.EvalSpec(
            EVAL_FN, steps=None, exporters=exporter, throttle_secs=0
        ),
    )
    assert metrics == estimator.evaluate(EVAL_FN)
    assert metrics["global_step"] == 6
    assert len(_versions(estimator, "latest")) == 2  # Evaluated at 2, 4, 6.
    assert os.fsdecode(exports[0]).endswith(_versions(estimator, "latest")[-1])


def test_train_and_evaluate_skips_when_max_steps_reached(tmp_path):
    estimator = _estimator(tmp_path)
    estimator.train(TRAIN_FN, max_steps=2)
    spec = (
        emg_estimator.TrainSpec(TRAIN_FN, max_steps=2),
        emg_estimator.EvalSpec(EVAL_FN),
    )
    assert emg_estimator.train_and_evaluate(estimator, *spec) == (None, None)


@pytest.mark.skipif(
    not emg_estimator.HAS_TF_ESTIMATOR, reason="needs tf.estimator (TF <= 2.15)"
)
def test_train_and_evaluate_matches_tf_estimator(tmp_path):
    ours = emg_estimator.train_and_evaluate(
        _estimator(tmp_path / "ours"),
        emg_estimator.TrainSpec(TRAIN_FN, max_steps=5),
        emg_estimator.EvalSpec(EVAL_FN, steps=None, throttle_secs=0),
    )
    theirs = tf.estimator.train_and_evaluate(
        _estimator(tmp_path / "theirs", tf.estimator),
        tf.estimator.TrainSpec(TRAIN_FN, max_steps=5),
        tf.estimator.EvalSpec(EVAL_FN, steps=None, throttle_secs=0),
    )
    assert ours[0].keys() == theirs[0].keys()
    for key in ours[0]:
        np.testing.assert_allclose(ours[0][key], theirs[0][key], rtol=1e-6)


class _Recorder:
    """Stands in for an Estimator: records the export calls it receives."""

    def __init__(self, model_dir):
        self.model_dir = model_dir
        self.calls = []

    def export_saved_model(self, export_path, receiver_fn, **kwargs):
        self.calls.append(kwargs["checkpoint_path"])
        path = os.path.join(export_path, f"{1000000000 + len(self.calls)}")
        os.makedirs(path)
        return path


def _run_exporter(exporter, tmp_path, losses, final_at=None):
    recorder = _Recorder(str(tmp_path))
    for step, loss in enumerate(losses):
        exporter.export(
            recorder,
            str(tmp_path / "export" / exporter.name),
            f"ckpt-{step}",
            {"loss": loss, "global_step": step},
            is_the_final_export=step == final_at,
        )
    return recorder.calls


def test_best_exporter_exports_only_improvements(tmp_path):
    exporter = emg_estimator.BestExporter(serving_input_receiver_fn=_receiver_fn())
    assert _run_exporter(exporter, tmp_path, [3.0, 2.0, 2.5, 1.0]) == [
        "ckpt-0",
        "ckpt-1",
        "ckpt-3",
    ]


def _higher_accuracy(best_eval_result, current_eval_result):
    return current_eval_result["accuracy"] > best_eval_result["accuracy"]


def test_best_exporter_with_custom_compare_fn(tmp_path):
    exporter = emg_estimator.BestExporter(
        "acc", _receiver_fn(), compare_fn=_higher_accuracy, event_file_pattern=None
    )
    recorder = _Recorder(str(tmp_path))
    for step, accuracy in enumerate([0.5, 0.4, 0.7]):
        exporter.export(
            recorder,
            str(tmp_path / "acc"),
            f"ckpt-{step}",
            {"accuracy": accuracy},
            False,
        )
    assert recorder.calls == ["ckpt-0", "ckpt-2"]


def test_final_exporter_exports_once(tmp_path):
    exporter = emg_estimator.FinalExporter("final", _receiver_fn())
    assert _run_exporter(exporter, tmp_path, [3.0, 2.0, 1.0], final_at=2) == ["ckpt-2"]


def test_latest_exporter_keeps_the_newest(tmp_path):
    exporter = emg_estimator.LatestExporter("latest", _receiver_fn(), exports_to_keep=2)
    _run_exporter(exporter, tmp_path, [3.0, 2.0, 1.0, 0.5])
    assert sorted(os.listdir(tmp_path / "export" / "latest")) == [
        "1000000003",
        "1000000004",
    ]


def _input_fn():
    return None


@pytest.mark.parametrize(
    "build, error, match",
    [
        (
            lambda: emg_estimator.TrainSpec("fn"),
            TypeError,
            "`input_fn` must be callable",
        ),
        (
            lambda: emg_estimator.TrainSpec(_input_fn, max_steps=0),
            ValueError,
            "Must specify max_steps > 0",
        ),
        (
            lambda: emg_estimator.TrainSpec(_input_fn, hooks=[1]),
            TypeError,
            r"^All hooks must be `SessionRunHook` instances, given: 1 \(`hooks` takes",
        ),
        (
            lambda: emg_estimator.EvalSpec(_input_fn, steps=0),
            ValueError,
            "Must specify steps > 0",
        ),
        (
            lambda: emg_estimator.EvalSpec(_input_fn, name=3),
            TypeError,
            "`name` must be string",
        ),
        (
            lambda: emg_estimator.EvalSpec(_input_fn, throttle_secs=-1),
            ValueError,
            "Must specify throttle_secs >= 0",
        ),
        (
            lambda: emg_estimator.EvalSpec(_input_fn, exporters=[1]),
            TypeError,
            "`exporters` must be an Exporter",
        ),
        (
            lambda: emg_estimator.EvalSpec(
                _input_fn,
                exporters=[
                    emg_estimator.LatestExporter("a", _input_fn),
                    emg_estimator.LatestExporter("a", _input_fn),
                ],
            ),
            ValueError,
            "`exporters` must have unique names",
        ),
        (
            lambda: emg_estimator.LatestExporter("a", _input_fn, exports_to_keep=0),
            ValueError,
            "must be a positive number",
        ),
        (
            lambda: emg_estimator.BestExporter(compare_fn=lambda a, b: True),
            ValueError,
            r"must take exactly the arguments \['best_eval_result', 'current_eval_result'\]",
        ),
    ],
    ids=[
        "train_input_fn",
        "max_steps",
        "train_hooks",
        "eval_steps",
        "eval_name",
        "throttle",
        "exporter_type",
        "exporter_names",
        "exports_to_keep",
        "compare_fn_args",
    ],
)
def test_spec_and_exporter_validation(build, error, match):
    with pytest.raises(error, match=match):
        build()


@pytest.mark.parametrize(
    "args, match",
    [
        (("spec", None), "`train_spec` must have type `tf.estimator.TrainSpec`"),
        ((None, "spec"), "`eval_spec` must have type"),
        (("spec", "spec"), "`eval_spec` must have type"),  # Checked first, as tf.
    ],
    ids=["train_spec", "eval_spec", "both"],
)
def test_train_and_evaluate_spec_types(tmp_path, args, match):
    train_spec = emg_estimator.TrainSpec(_input_fn) if args[0] is None else args[0]
    eval_spec = emg_estimator.EvalSpec(_input_fn) if args[1] is None else args[1]
    with pytest.raises(TypeError, match=match):
        emg_estimator.train_and_evaluate(_estimator(tmp_path), train_spec, eval_spec)
