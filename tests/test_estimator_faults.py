"""Faults and misuse of emg.estimator: damaged checkpoints, empty input, bad returns."""

import glob
import os
import re

import pytest
import tensorflow as tf
from conftest import ALL_DEVICES
from estimator_models import dataset_input_fn, make_data, model_fn

import estimator_multigpu as emg
from estimator_multigpu import estimator as emg_estimator
from estimator_multigpu.estimator import _input_fn as input_fn_lib

pytestmark = pytest.mark.tf_compat  # The runner must behave alike on TF 2.15.

X, Y = make_data(16)
TRAIN_FN = dataset_input_fn(X, Y, 8, repeat=True)
EVAL_FN = dataset_input_fn(X, Y, 8)
PREDICT_FN = dataset_input_fn(X, None, 8)
RECEIVER_FN = emg_estimator.export.build_raw_serving_input_receiver_fn(
    {"x": tf.TensorSpec([None, 4], tf.float32)}
)


def _log_levels(caplog, level="WARNING"):
    for name in (None, "tensorflow", "absl"):
        caplog.set_level(level, logger=name)


def _estimator(model_dir, fn=model_fn, params=None, **config):
    config = emg_estimator.RunConfig(model_dir=str(model_dir), **config)
    params = {} if params is None and fn is model_fn else params
    return emg_estimator.Estimator(fn, config=config, params=params)


# --- Row 14: a damaged checkpoint is named, with the earlier ones. ---


def _cut_in_half(path):
    size = os.path.getsize(path)
    with open(path, "r+b") as f:
        f.truncate(size // 2)


@pytest.fixture(scope="module")
def damaged_model_dir(tmp_path_factory):
    """A model_dir with checkpoints 0, 2 and 4, whose newest `.data` is cut short."""
    model_dir = tmp_path_factory.mktemp("damaged") / "model"
    estimator = _estimator(model_dir, save_checkpoints_steps=2)
    estimator.train(TRAIN_FN, steps=4)
    (data,) = glob.glob(estimator.latest_checkpoint() + ".data-*")
    _cut_in_half(data)
    return str(model_dir)


_OPERATIONS = {
    "train": lambda e: e.train(TRAIN_FN, steps=1),
    "train_max_steps": lambda e: e.train(TRAIN_FN, max_steps=10),
    "evaluate": lambda e: e.evaluate(EVAL_FN),
    "predict": lambda e: next(e.predict(PREDICT_FN)),
    "export": lambda e: e.export_saved_model(e.model_dir + "-export", RECEIVER_FN),
    "get_variable_value": lambda e: e.get_variable_value("dense/kernel"),
}


@pytest.mark.parametrize("operation", list(_OPERATIONS))
def test_truncated_checkpoint_names_itself_and_the_earlier_ones(
    damaged_model_dir, operation
):
    estimator = _estimator(damaged_model_dir)
    damaged = os.path.join(damaged_model_dir, "model.ckpt-4")
    previous = os.path.join(damaged_model_dir, "model.ckpt-2")
    pattern = (
        rf"Checkpoint {re.escape(damaged)} cannot be read .*truncated.* Earlier "
        r"checkpoints in .* \(newest first\): model.ckpt-2, model.ckpt-0\. .*"
        rf"checkpoint_path={re.escape(repr(previous))}.*update_checkpoint_state"
    )
    with pytest.raises(tf.errors.DataLossError, match=pattern):
        _OPERATIONS[operation](estimator)
    assert not os.path.exists(damaged_model_dir + "-export")


def test_following_the_advice_uses_the_previous_checkpoint(tmp_path):
    model_dir = str(tmp_path / "model")
    estimator = _estimator(model_dir, save_checkpoints_steps=2)
    estimator.train(TRAIN_FN, steps=4)
    (data,) = glob.glob(estimator.latest_checkpoint() + ".data-*")
    _cut_in_half(data)
    previous = os.path.join(model_dir, "model.ckpt-2")
    assert estimator.evaluate(EVAL_FN, checkpoint_path=previous)["global_step"] == 2
    tf.compat.v1.train.update_checkpoint_state(model_dir, previous)
    estimator.train(TRAIN_FN, steps=1)
    assert estimator.get_variable_value("global_step") == 3


def test_checkpoint_file_naming_missing_files_is_not_evaluated_from_scratch(
    tmp_path,
):
    """`tf.train.latest_checkpoint` returns None here: evaluate used to run on
    the initial weights, silently."""
    estimator = _estimator(tmp_path / "model", save_checkpoints_steps=2)
    estimator.train(TRAIN_FN, steps=2)
    os.remove(estimator.latest_checkpoint() + ".index")
    with pytest.raises(
        tf.errors.DataLossError,
        match=r"model.ckpt-2 cannot be read .* Earlier checkpoints .*: model.ckpt-0",
    ):
        estimator.evaluate(EVAL_FN)


def _model_fn_with_extra_variable(features, labels, mode, params):
    tf.compat.v1.get_variable("extra", [2])
    return model_fn(features, labels, mode, params)


def test_checkpoint_lacking_a_variable_keeps_its_own_error(tmp_path):
    """A sound checkpoint that lacks a variable is not reported as damaged."""
    _estimator(tmp_path / "model").train(TRAIN_FN, steps=1)
    other = _estimator(tmp_path / "model", _model_fn_with_extra_variable, params={})
    with pytest.raises(tf.errors.NotFoundError, match="extra"):
        other.train(TRAIN_FN, steps=1)
    with pytest.raises(ValueError, match="Could not load all requested variables"):
        other.export_saved_model(str(tmp_path / "export"), RECEIVER_FN)
    assert not os.path.exists(tmp_path / "export")


# --- Row 19: the tower wrapper does not trigger the params warning. ---


def _no_params_model_fn(features, labels, mode):
    return model_fn(features, labels, mode, {"tower_optimizer": True})


def _params_model_fn(features, labels, mode, params):
    return model_fn(features, labels, mode, dict(params, tower_optimizer=True))


_PARAMS_WARNING = "includes params argument, but params are not passed"


@pytest.mark.parametrize("num_devices", [1, 2], ids=["1dev", "2dev"])
def test_replicated_model_fn_without_params_is_not_warned(
    tmp_path, caplog, num_devices
):
    _log_levels(caplog)
    replicated = emg.replicate_model_fn(
        _no_params_model_fn, devices=ALL_DEVICES[:num_devices]
    )
    estimator = emg_estimator.Estimator(replicated, model_dir=str(tmp_path))
    estimator.train(TRAIN_FN, steps=1)
    assert _PARAMS_WARNING not in caplog.text


@pytest.mark.parametrize("wrapped", [False, True], ids=["plain", "replicated"])
def test_user_model_fn_taking_params_is_warned_as_tf_estimator_does(
    tmp_path, caplog, wrapped
):
    _log_levels(caplog)
    fn = _params_model_fn
    if wrapped:
        fn = emg.replicate_model_fn(fn, devices=ALL_DEVICES[:2])
    emg_estimator.Estimator(fn, model_dir=str(tmp_path))
    assert _PARAMS_WARNING in caplog.text
    assert "_params_model_fn" in caplog.text


# --- Row 20: an input_fn returning per-device lists. ---


def _list_of_tensors():
    return [tf.constant(X[:8]), tf.constant(X[8:])]


def _list_of_pairs():
    return [
        ({"x": tf.constant(X[:8])}, tf.constant(Y[:8])),
        ({"x": tf.constant(X[8:])}, tf.constant(Y[8:])),
    ]


@pytest.mark.parametrize(
    "input_fn, match",
    [
        (
            _list_of_tensors,
            r"input_fn .*_list_of_tensors returned a list of 2 values of one kind: "
            r"\[Tensor float32 \[8, 4\], Tensor float32 \[8, 4\]\]\. A list or "
            r"tuple of 2 is read as \(features, labels\)",
        ),
        (
            _list_of_pairs,
            r"input_fn .*_list_of_pairs returned a list of 2 \(features, labels\) "
            r"pairs: \[\(\{'x': Tensor float32 \[8, 4\]\}, Tensor int32 \[8\]\), .*"
            r"emg.inputs.sharded_input_fn",
        ),
    ],
    ids=["list_of_tensors", "list_of_pairs"],
)
@pytest.mark.parametrize("mode", ["train", "evaluate", "predict"])
def test_per_device_lists_are_named(tmp_path, input_fn, match, mode):
    estimator = _estimator(tmp_path / "model")
    run = {
        "train": lambda: estimator.train(input_fn, steps=1),
        "evaluate": lambda: estimator.evaluate(input_fn),
        "predict": lambda: next(estimator.predict(input_fn)),
    }[mode]
    with pytest.raises(ValueError, match=match):
        run()


def test_a_tuple_of_look_alike_tensors_stays_features_and_labels():
    """tf.estimator's contract: a 2-tuple is (features, labels), whatever it holds."""
    with tf.Graph().as_default():
        x0, x1 = tf.zeros([8, 1]), tf.ones([8, 1])
        features, labels, _ = input_fn_lib.parse_input_fn_result((x0, x1))
        assert features is x0 and labels is x1
        features, labels, _ = input_fn_lib.parse_input_fn_result([x0, tf.ones([8])])
        assert features is x0 and labels.shape == [8]


# --- Row 21: empty input is warned about, naming the input_fn. ---


def _empty_input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X[:0]}, Y[:0])).batch(8)


def test_training_on_empty_input_warns(tmp_path, caplog):
    _log_levels(caplog)
    estimator = _estimator(tmp_path / "model")
    estimator.train(_empty_input_fn, steps=5)
    assert estimator.get_variable_value("global_step") == 0
    assert re.search(
        r"Training with estimator made no steps\. Perhaps input is empty or "
        r"misspecified: input_fn .*_empty_input_fn gave no batch",
        caplog.text,
    )


def test_training_with_data_does_not_warn(tmp_path, caplog):
    _log_levels(caplog)
    _estimator(tmp_path / "model").train(EVAL_FN)  # Two batches, then the end.
    assert "made no steps" not in caplog.text


def _zero_example_input_fn():
    """One batch, of no examples."""
    return tf.data.Dataset.from_tensors(({"x": X[:0]}, Y[:0]))


def _empty_sharded_input_fn():
    """No examples, sharded over 2 devices."""
    return emg.inputs.sharded_input_fn(
        lambda ctx: tf.data.Dataset.from_tensor_slices(({"x": X[:0]}, Y[:0])),
        devices=ALL_DEVICES[:2],
        global_batch_size=8,
    )()


_EMPTY_EVALS = {
    "no-batch": (_empty_input_fn, {}, "0 examples in 0 batches"),
    "empty-batch": (_zero_example_input_fn, {}, "0 examples in 1 batch"),
    "empty-shards": (
        _empty_sharded_input_fn,
        {"devices": ALL_DEVICES[:2]},
        "0 examples in 0 batches",
    ),
}


@pytest.mark.parametrize("case", sorted(_EMPTY_EVALS))
@pytest.mark.slow
def test_evaluating_no_examples_warns(tmp_path, caplog, case):
    input_fn, config, counted = _EMPTY_EVALS[case]
    _log_levels(caplog)
    params = {"tower_optimizer": True} if config else None
    estimator = _estimator(tmp_path / "model", params=params, **config)
    estimator.train(TRAIN_FN, steps=1)
    metrics = estimator.evaluate(input_fn)
    assert metrics["loss"] == 0.0  # What tf.estimator returns, now with a warning.
    assert re.search(
        rf"Evaluation ran on no data: evaluated {counted} of input_fn "
        rf".*{input_fn.__name__}, so the metrics \(accuracy = 0\.0, global_step = "
        r"1, loss = 0\.0\) are meaningless\. Check the eval input_fn",
        caplog.text,
    )
    caplog.clear()
    estimator.evaluate(EVAL_FN)
    assert "Evaluation ran on no data" not in caplog.text


@pytest.mark.parametrize("input_fn", [_empty_input_fn, _zero_example_input_fn])
def test_evaluating_no_examples_gives_tf_estimator_results(tmp_path, input_fn):
    if not emg_estimator.HAS_TF_ESTIMATOR:
        pytest.skip("tf.estimator (the reference) exists on TF <= 2.15 only")
    results = []
    for cls in (emg_estimator.Estimator, tf.estimator.Estimator):
        estimator = cls(model_fn, model_dir=str(tmp_path / cls.__module__), params={})
        estimator.train(TRAIN_FN, steps=1)
        results.append(estimator.evaluate(input_fn))
    assert results[0] == results[1]


# --- Row 22: PerDevice input to a model_fn that is not replicated. ---


def _per_device_input_fn():
    return emg.inputs.sharded_input_fn(
        lambda ctx: tf.data.Dataset.from_tensor_slices(({"x": X}, Y)),
        devices=ALL_DEVICES[:2],
        global_batch_size=8,
    )


def test_per_device_input_needs_devices(tmp_path):
    estimator = _estimator(tmp_path / "model")
    with pytest.raises(
        TypeError,
        match=r"model_fn \(.*model_fn.*\) failed \(TypeError: .*\) on features and "
        r"labels given as emg.PerDevice shards, one per device of \['/cpu:0', "
        r"'/cpu:1'\].* pass RunConfig\(devices=\[...\]\) .* or wrap the model_fn "
        r"in emg.replicate_model_fn",
    ):
        estimator.train(_per_device_input_fn(), steps=1)


def test_per_device_input_with_devices_trains(tmp_path):
    estimator = _estimator(
        tmp_path / "model",
        params={"tower_optimizer": True},
        devices=ALL_DEVICES[:2],
    )
    estimator.train(_per_device_input_fn(), steps=1)
    assert estimator.get_variable_value("global_step") == 1


# --- Row 23: bad serving receivers; failed exports leave nothing. ---


@pytest.fixture(scope="module")
def trained_model_dir(tmp_path_factory):
    model_dir = tmp_path_factory.mktemp("trained") / "model"
    _estimator(model_dir).train(TRAIN_FN, steps=1)
    return str(model_dir)


def _dict_receiver():
    return {"x": tf.compat.v1.placeholder(tf.float32, [None, 4])}


@pytest.mark.parametrize(
    "receiver_fn, returned",
    [
        (_dict_receiver, r"\{'x': Tensor float32 \[None, 4\]\}"),
        (lambda: None, "None"),
    ],
    ids=["dict", "none"],
)
def test_receiver_fn_must_return_a_receiver(
    trained_model_dir, tmp_path, receiver_fn, returned
):
    estimator = _estimator(trained_model_dir)
    with pytest.raises(
        TypeError,
        match=rf"serving_input_receiver_fn .* returned {returned}; it must return "
        r"an export.ServingInputReceiver \(or export.TensorServingInputReceiver\)",
    ):
        estimator.export_saved_model(str(tmp_path / "export"), receiver_fn)
    assert not os.path.exists(tmp_path / "export")


def test_export_failing_late_removes_its_temporary_directory(
    trained_model_dir, tmp_path
):
    estimator = _estimator(trained_model_dir)
    export_base = str(tmp_path / "export")
    missing = {"vocab.txt": str(tmp_path / "no-such-file.txt")}
    with pytest.raises(tf.errors.NotFoundError):
        estimator.export_saved_model(export_base, RECEIVER_FN, assets_extra=missing)
    assert os.listdir(export_base) == []
    path = estimator.export_saved_model(export_base, RECEIVER_FN)
    assert os.listdir(export_base) == [os.path.basename(path.decode())]


# --- Wrongly typed arguments: a TypeError naming the argument. ---


_BAD_CALLS = {
    "train_hooks_single": (
        lambda e: e.train(
            TRAIN_FN, steps=1, hooks=tf.compat.v1.train.StepCounterHook()
        ),
        r"`hooks` must be a list of SessionRunHook; received a single "
        r"StepCounterHook\. Pass it in a list",
    ),
    "train_listeners_object": (
        lambda e: e.train(TRAIN_FN, steps=1, saving_listeners=3),
        r"`saving_listeners` must be a list of CheckpointSaverListener; received 3",
    ),
    "evaluate_steps_str": (
        lambda e: e.evaluate(EVAL_FN, steps="3"),
        r"`steps` must be an int .*; received '3'",
    ),
    "evaluate_name_int": (
        lambda e: e.evaluate(EVAL_FN, name=5),
        r"`name` must be a string .*received 5",
    ),
    "evaluate_checkpoint_int": (
        lambda e: e.evaluate(EVAL_FN, checkpoint_path=5),
        r"`checkpoint_path` must be a path \(a str or os.PathLike\); received 5",
    ),
    "predict_keys_int": (
        lambda e: next(e.predict(PREDICT_FN, predict_keys=5)),
        r"`predict_keys` must be a list of prediction names .*received 5",
    ),
    "predict_single_examples_str": (
        lambda e: next(e.predict(PREDICT_FN, yield_single_examples="no")),
        r"`yield_single_examples` must be True .* or False .*received 'no'",
    ),
    "estimator_model_dir_int": (
        lambda e: emg_estimator.Estimator(model_fn, model_dir=5, params={}),
        r"`model_dir` must be a path \(a str or os.PathLike\); received 5",
    ),
    "run_config_model_dir_int": (
        lambda e: emg_estimator.RunConfig(model_dir=5),
        r"RunConfig `model_dir` must be a path .*received 5",
    ),
}


@pytest.mark.parametrize("call", list(_BAD_CALLS))
def test_wrongly_typed_arguments(trained_model_dir, call):
    run, match = _BAD_CALLS[call]
    with pytest.raises(TypeError, match=match):
        run(_estimator(trained_model_dir))


@pytest.mark.parametrize("operation", ["evaluate", "predict", "export"])
def test_checkpoint_path_that_is_no_checkpoint(trained_model_dir, tmp_path, operation):
    estimator = _estimator(trained_model_dir)
    typo = os.path.join(trained_model_dir, "model.ckpt-99")
    run = {
        "evaluate": lambda: estimator.evaluate(EVAL_FN, checkpoint_path=typo),
        "predict": lambda: next(estimator.predict(PREDICT_FN, checkpoint_path=typo)),
        "export": lambda: estimator.export_saved_model(
            str(tmp_path / "export"), RECEIVER_FN, checkpoint_path=typo
        ),
    }[operation]
    with pytest.raises(
        ValueError,
        match=rf"`checkpoint_path` \('{re.escape(typo)}'\) is not a checkpoint: "
        r".*model.ckpt-99.index does not exist; checkpoints there: .*model.ckpt-1",
    ):
        run()


def test_export_dir_base_is_required(trained_model_dir):
    with pytest.raises(ValueError, match="`export_dir_base` must name the directory"):
        _estimator(trained_model_dir).export_saved_model("", RECEIVER_FN)


# --- A loss of one value per example ([batch, 1]) is named before training. ---


def batch_loss_model_fn(features, labels, mode):
    w = tf.compat.v1.get_variable("w", [4, 1])
    loss = tf.square(tf.matmul(features["x"], w))  # [batch, 1], batch unknown.
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    train_op = optimizer.minimize(loss, tf.compat.v1.train.get_global_step())
    return emg_estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def test_non_scalar_loss_is_named_before_training(tmp_path):
    estimator = emg_estimator.Estimator(batch_loss_model_fn, model_dir=str(tmp_path))
    with pytest.raises(ValueError, match=r"Loss must be scalar") as error:
        estimator.train(TRAIN_FN, steps=1)
    assert "[None, 1]" in str(error.value)
    assert "tf.reduce_mean" in str(error.value)
    assert not tf.train.latest_checkpoint(str(tmp_path))
