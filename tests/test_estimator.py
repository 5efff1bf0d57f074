"""Behaviour of emg.estimator.Estimator: resume, steps, input forms, predict, export."""

import glob
import os

import numpy as np
import pytest
import tensorflow as tf
from estimator_models import (
    NUM_FEATURES,
    EstimatorSpec,
    LossRecorder,
    ModeKeys,
    dataset_input_fn,
    make_data,
    model_fn,
)

from estimator_multigpu import estimator as emg_estimator

pytestmark = pytest.mark.tf_compat  # The runner must behave alike on TF 2.15.

X, Y = make_data(20)
TRAIN_FN = dataset_input_fn(X, Y, 8, repeat=True)


def _estimator(tmp_path, **config):
    config.setdefault("save_checkpoints_steps", 100)
    run_config = emg_estimator.RunConfig(model_dir=str(tmp_path / "model"), **config)
    return emg_estimator.Estimator(model_fn, config=run_config, params={})


def _step(estimator):
    return int(estimator.get_variable_value("global_step"))


def test_train_returns_self_and_saves_at_end(tmp_path):
    estimator = _estimator(tmp_path)
    assert estimator.train(TRAIN_FN, steps=3) is estimator
    assert estimator.latest_checkpoint().endswith("model.ckpt-3")


def test_steps_add_to_the_global_step(tmp_path):
    estimator = _estimator(tmp_path)
    estimator.train(TRAIN_FN, steps=2)
    estimator.train(TRAIN_FN, steps=3)
    assert _step(estimator) == 5


def test_second_train_to_same_max_steps_does_nothing(tmp_path):
    estimator = _estimator(tmp_path)
    estimator.train(TRAIN_FN, max_steps=4)
    recorder = LossRecorder()
    estimator.train(TRAIN_FN, max_steps=4, hooks=[recorder])
    assert (_step(estimator), recorder.losses) == (4, [])


def test_new_estimator_resumes_from_model_dir(tmp_path):
    _estimator(tmp_path).train(TRAIN_FN, steps=2)
    resumed = _estimator(tmp_path)
    resumed.train(TRAIN_FN, max_steps=5)
    assert _step(resumed) == 5


def test_train_stops_at_end_of_input(tmp_path):
    estimator = _estimator(tmp_path)
    estimator.train(dataset_input_fn(X, Y, 8))  # 20 examples: 3 batches.
    assert _step(estimator) == 3


def test_model_dir_none_uses_a_temporary_directory():
    estimator = emg_estimator.Estimator(model_fn, params={})
    assert os.path.isdir(estimator.model_dir)


def _tuple_input_fn():
    features = {"x": tf.constant(X[:8])}
    return features, tf.constant(Y[:8])


def _params_input_fn(params, mode, config):
    assert (params["batch"], mode) == (4, ModeKeys.TRAIN)
    assert isinstance(config, emg_estimator.RunConfig)
    return dataset_input_fn(X, Y, params["batch"], repeat=True)()


@pytest.mark.parametrize(
    "input_fn",
    [_tuple_input_fn, TRAIN_FN, _params_input_fn],
    ids=["tuple", "dataset", "params_mode_config"],
)
def test_input_fn_forms(tmp_path, input_fn):
    config = emg_estimator.RunConfig(model_dir=str(tmp_path))
    estimator = emg_estimator.Estimator(model_fn, config=config, params={"batch": 4})
    estimator.train(input_fn, steps=2)
    assert _step(estimator) == 2


def _features_only_fn(features, mode):
    return EstimatorSpec(mode, predictions={"first": features["x"][:, :1]})


def test_model_fn_with_features_and_mode_only(tmp_path):
    estimator = emg_estimator.Estimator(_features_only_fn, model_dir=str(tmp_path))
    got = list(estimator.predict(dataset_input_fn(X[:3], None, 2)))
    np.testing.assert_array_equal([p["first"] for p in got], X[:3, :1])


def test_config_reaches_model_fn(tmp_path):
    seen = {}

    def fn(features, labels, mode, config):
        seen["seed"] = config.tf_random_seed
        return model_fn(features, labels, mode, {})

    config = emg_estimator.RunConfig(model_dir=str(tmp_path), tf_random_seed=7)
    emg_estimator.Estimator(fn, config=config).train(TRAIN_FN, steps=1)
    assert seen == {"seed": 7}


def test_evaluate_steps_limits_batches(tmp_path):
    estimator = _estimator(tmp_path)
    estimator.train(TRAIN_FN, steps=1)
    full = estimator.evaluate(dataset_input_fn(X, Y, 8))
    first = estimator.evaluate(dataset_input_fn(X, Y, 8), steps=1)
    assert full["loss"] != first["loss"]


@pytest.mark.parametrize(
    "name, folder",
    [(None, "eval"), ("holdout", "eval_holdout")],
    ids=["default", "named"],
)
def test_evaluate_writes_to_eval_dir(tmp_path, name, folder):
    estimator = _estimator(tmp_path)
    estimator.train(TRAIN_FN, steps=1)
    estimator.evaluate(dataset_input_fn(X, Y, 8), name=name)
    assert estimator.eval_dir(name) == os.path.join(estimator.model_dir, folder)
    assert glob.glob(os.path.join(estimator.model_dir, folder, "events.out.tfevents.*"))


def test_evaluate_without_checkpoint_uses_initial_weights(tmp_path):
    result = _estimator(tmp_path).evaluate(dataset_input_fn(X, Y, 8))
    assert result["global_step"] == 0


def test_predict_keys_filter(tmp_path):
    estimator = _estimator(tmp_path)
    got = next(estimator.predict(dataset_input_fn(X, None, 8), predict_keys=["class"]))
    assert list(got) == ["class"]


def test_predict_whole_batches(tmp_path):
    estimator = _estimator(tmp_path)
    got = list(
        estimator.predict(dataset_input_fn(X, None, 8), yield_single_examples=False)
    )
    assert [len(batch["class"]) for batch in got] == [8, 8, 4]


def test_predict_ignores_labels_from_input_fn(tmp_path):
    got = list(_estimator(tmp_path).predict(dataset_input_fn(X, Y, 8)))
    assert len(got) == len(X)


def _one_tuple_input_fn():
    dataset = tf.data.Dataset.from_tensor_slices(({"x": X},))
    return dataset.batch(8)


@pytest.mark.parametrize(
    "input_fn",
    [
        _one_tuple_input_fn,
        lambda: tf.compat.v1.data.make_one_shot_iterator(
            _one_tuple_input_fn()
        ).get_next(),
    ],
    ids=["dataset", "iterator"],
)
def test_predict_takes_the_features_of_a_one_tuple(tmp_path, input_fn):
    # TF 1.x's predict kept result[0] of any tuple or list, so a dataset of
    # (features,) elements (from_tensor_slices(tuple([features]))) predicted;
    # TF 2's tf.estimator refuses every tuple but a pair.
    estimator = _estimator(tmp_path)
    got = list(estimator.predict(input_fn))
    want = list(estimator.predict(dataset_input_fn(X, None, 8)))
    assert len(got) == len(X)
    np.testing.assert_allclose(
        [g["probabilities"] for g in got], [w["probabilities"] for w in want]
    )


def _serving_fn():
    spec = {"x": tf.TensorSpec([None, NUM_FEATURES], tf.float32)}
    return emg_estimator.export.build_raw_serving_input_receiver_fn(spec)


def test_exported_model_serves_predictions(tmp_path):
    estimator = _estimator(tmp_path)
    estimator.train(TRAIN_FN, steps=3)
    path = estimator.export_saved_model(str(tmp_path / "export"), _serving_fn())
    assert os.path.basename(path).isdigit()
    served = tf.saved_model.load(path.decode()).signatures["serving_default"]
    got = served(x=tf.constant(X[:5]))["probabilities"].numpy()
    expected = [
        p["probabilities"] for p in estimator.predict(dataset_input_fn(X[:5], None, 5))
    ]
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_parsing_receiver_serves_tf_examples(tmp_path):
    estimator = _estimator(tmp_path)
    estimator.train(TRAIN_FN, steps=1)
    feature_spec = {"x": tf.io.FixedLenFeature([NUM_FEATURES], tf.float32)}
    receiver_fn = emg_estimator.export.build_parsing_serving_input_receiver_fn(
        feature_spec
    )
    path = estimator.export_saved_model(str(tmp_path / "export"), receiver_fn)
    example = tf.train.Example(
        features=tf.train.Features(
            feature={"x": tf.train.Feature(float_list=tf.train.FloatList(value=X[0]))}
        )
    )
    served = tf.saved_model.load(path.decode()).signatures["serving_default"]
    got = served(examples=tf.constant([example.SerializeToString()]))
    assert got["probabilities"].shape == (1, 3)


def test_assets_extra_are_copied(tmp_path):
    estimator = _estimator(tmp_path)
    estimator.train(TRAIN_FN, steps=1)
    (tmp_path / "vocab.txt").write_text("a\nb\n")
    path = estimator.export_saved_model(
        str(tmp_path / "export"),
        _serving_fn(),
        assets_extra={"sub/vocab.txt": str(tmp_path / "vocab.txt")},
    )
    assert (
        tmp_path / path.decode() / "assets.extra" / "sub" / "vocab.txt"
    ).read_text() == "a\nb\n"


def test_warm_start_copies_trainable_variables(tmp_path):
    source = _estimator(tmp_path / "source")
    source.train(TRAIN_FN, steps=2)
    config = emg_estimator.RunConfig(model_dir=str(tmp_path / "target"))
    target = emg_estimator.Estimator(
        model_fn, config=config, params={}, warm_start_from=source.model_dir
    )
    target.train(TRAIN_FN, steps=1)
    first_step = target.get_variable_value("dense/kernel")
    fresh = emg_estimator.Estimator(
        model_fn, model_dir=str(tmp_path / "fresh"), params={}
    )
    fresh.train(TRAIN_FN, steps=1)
    assert not np.allclose(first_step, fresh.get_variable_value("dense/kernel"))
    assert _step(target) == 1


class _Listener(tf.compat.v1.train.CheckpointSaverListener):
    def __init__(self):
        self.saved_steps = []

    def after_save(self, session, global_step_value):
        self.saved_steps.append(global_step_value)


def test_saving_listeners_hear_every_save(tmp_path):
    listener = _Listener()
    _estimator(tmp_path, save_checkpoints_steps=2).train(
        TRAIN_FN, steps=5, saving_listeners=[listener]
    )
    assert listener.saved_steps == [0, 2, 4, 5]


def test_keep_checkpoint_max(tmp_path):
    estimator = _estimator(tmp_path, save_checkpoints_steps=1, keep_checkpoint_max=2)
    estimator.train(TRAIN_FN, steps=5)
    assert len(glob.glob(os.path.join(estimator.model_dir, "model.ckpt-*.index"))) == 2


def _event_values(directory, tag):
    values = []
    for path in glob.glob(os.path.join(directory, "events.out.tfevents.*")):
        for event in tf.compat.v1.train.summary_iterator(path):
            values += [v.simple_value for v in event.summary.value if v.tag == tag]
    return values


@pytest.mark.parametrize("batch", [None, 8], ids=["dynamic_batch", "static_batch"])
def test_examples_per_sec_is_batch_times_step_rate(tmp_path, batch):
    def input_fn():
        dataset = tf.data.Dataset.from_tensor_slices(({"x": X[:16]}, Y[:16])).repeat()
        return dataset.batch(8, drop_remainder=batch is not None)

    estimator = _estimator(tmp_path, log_step_count_steps=2, log_examples_per_sec=True)
    estimator.train(input_fn, steps=7)
    steps_per_sec = _event_values(estimator.model_dir, "global_step/sec")
    examples_per_sec = _event_values(estimator.model_dir, "examples/sec")
    assert len(examples_per_sec) == len(steps_per_sec) >= 2
    np.testing.assert_allclose(
        examples_per_sec, np.multiply(steps_per_sec, 8), rtol=1e-3
    )


def test_logs_loss_step_and_rates(tmp_path, caplog):
    # Other code in the process (a CLI's main) may have quietened these loggers.
    for name in (None, "tensorflow", "absl"):
        caplog.set_level("INFO", logger=name)
    _estimator(tmp_path, log_step_count_steps=2).train(TRAIN_FN, steps=5)
    text = caplog.text
    assert "loss = " in text and "step = " in text
    assert "global_step/sec" in text and "examples/sec" not in text


def test_examples_per_sec_logged_when_asked(tmp_path, caplog):
    caplog.set_level("INFO", logger="tensorflow")
    estimator = _estimator(tmp_path, log_step_count_steps=2, log_examples_per_sec=True)
    estimator.train(TRAIN_FN, steps=5)
    assert "global_step/sec" in caplog.text and "examples/sec" in caplog.text


def test_user_scaffold_local_init_op_still_runs_input_initializers(tmp_path):
    """Initializers registered by PerDevice inputs run with a custom local_init_op."""
    from estimator_multigpu import per_device

    def input_fn():
        iterator = tf.compat.v1.data.make_initializable_iterator(
            tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(4).repeat()
        )
        per_device.register_initializer(iterator.initializer)
        return iterator.get_next()

    def fn(features, labels, mode):
        spec = model_fn(features, labels, mode, {})
        local_init = tf.group(tf.compat.v1.local_variables_initializer())
        scaffold = tf.compat.v1.train.Scaffold(local_init_op=local_init)
        return spec._replace(scaffold=scaffold)

    estimator = emg_estimator.Estimator(fn, model_dir=str(tmp_path))
    estimator.train(input_fn, steps=2)
    assert _step(estimator) == 2


def test_serialized_summary_metrics_reach_the_eval_events(tmp_path):
    def fn(features, labels, mode):
        spec = model_fn(features, labels, mode, {})
        if mode != ModeKeys.EVAL:
            return spec
        accuracy = spec.eval_metric_ops["accuracy"][0]  # Final ops read no input.
        summary = tf.compat.v1.summary.scalar("acc", accuracy)
        metrics = dict(spec.eval_metric_ops, summary=(summary, tf.no_op()))
        return spec._replace(eval_metric_ops=metrics)

    estimator = emg_estimator.Estimator(fn, model_dir=str(tmp_path))
    estimator.evaluate(dataset_input_fn(X, Y, 8))
    assert _event_values(estimator.eval_dir(), "summary/0")


@pytest.mark.parametrize("use_settings", [False, True], ids=["path", "settings"])
def test_warm_start_from_a_saved_model(tmp_path, use_settings):
    source = _estimator(tmp_path / "source")
    source.train(TRAIN_FN, steps=2)
    export = source.export_saved_model(str(tmp_path / "export"), _serving_fn())
    warm = os.fsdecode(export)
    if use_settings:
        warm = emg_estimator.WarmStartSettings(
            os.path.join(warm, "variables", "variables"), vars_to_warm_start="dense.*"
        )
    config = emg_estimator.RunConfig(model_dir=str(tmp_path / "target"))
    target = emg_estimator.Estimator(
        model_fn, config=config, params={}, warm_start_from=warm
    )
    source_eval = source.evaluate(dataset_input_fn(X, Y, 8))
    target_eval = target.evaluate(
        dataset_input_fn(X, Y, 8)
    )  # No checkpoint: warm-started.
    assert target_eval["loss"] == pytest.approx(source_eval["loss"], rel=1e-6)
    assert target_eval["global_step"] == 0
