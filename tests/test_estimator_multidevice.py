"""RunConfig(devices=...) replicates the model_fn: train, evaluate, predict, export.

Runs on logical CPU devices. With loss_reduction 'mean', a step over N
towers equals the single-device step on the same global batch, so every
result is checked against the numpy replay of single-device training.
"""

import numpy as np
import pytest
import tensorflow as tf
from conftest import ALL_DEVICES
from estimator_models import (
    NUM_FEATURES,
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
from placement_helpers import PlacementRecorder

from estimator_multigpu import estimator as emg_estimator
from estimator_multigpu import inputs

pytestmark = pytest.mark.tf_compat  # The runner must behave alike on TF 2.15.

BATCH = 8
X, Y = make_data(20)
X_EVAL, Y_EVAL = make_data(13, seed=5)


def _examples(x, y=None):
    def dataset_fn(ctx):
        del ctx
        return tf.data.Dataset.from_tensor_slices(
            {"x": x} if y is None else ({"x": x}, y)
        )

    return dataset_fn


def _input_fn(kind, devices, x, y=None, num_epochs=1):
    """An input_fn of one `kind`: a plain dataset or PerDevice shards."""
    if kind == "dataset":
        return dataset_input_fn(x, y, BATCH, repeat=num_epochs is None)
    return inputs.multi_device_input_fn(
        _examples(x, y), devices, global_batch_size=BATCH, num_epochs=num_epochs
    )


@pytest.fixture
def estimator(tmp_path, device_list):
    warm = write_checkpoint(str(tmp_path / "init" / "init"), *initial_weights())
    config = emg_estimator.RunConfig(
        model_dir=str(tmp_path / "model"),
        devices=device_list,
        save_checkpoints_steps=50,
    )
    return emg_estimator.Estimator(
        model_fn, config=config, params={"tower_optimizer": True}, warm_start_from=warm
    )


KINDS = ["dataset", "per_device"]


@pytest.mark.parametrize("kind", KINDS)
def test_train_matches_single_device_numpy(estimator, device_list, kind):
    recorder = LossRecorder()
    towers = PlacementRecorder([f"tower_{i}/" for i in range(1, len(device_list))])
    estimator.train(
        _input_fn(kind, device_list, X, Y, None), hooks=[recorder, towers], steps=4
    )
    # Each tower ran on its own device, not soft-placed on /cpu:0.
    expected = {f"tower_{i}/": {device_list[i]} for i in range(1, len(device_list))}
    assert towers.devices == expected
    train_batches = batches(X, Y, BATCH, 4, repeat_first=kind == "per_device")
    kernel, _, losses = numpy_train(*initial_weights(), train_batches)
    np.testing.assert_allclose(recorder.losses, losses, rtol=1e-5)
    np.testing.assert_allclose(
        estimator.get_variable_value("dense/kernel"), kernel, rtol=1e-4, atol=1e-6
    )
    assert "dense/kernel/Momentum" in estimator.get_variable_names()


TWO = ALL_DEVICES[:2]


@pytest.fixture(scope="module")
def trained(tmp_path_factory, request):
    """A 2-device Estimator trained 3 steps on input of `kind`, and numpy weights."""
    kind = request.param
    tmp_path = tmp_path_factory.mktemp(kind)
    warm = write_checkpoint(str(tmp_path / "init" / "init"), *initial_weights())
    config = emg_estimator.RunConfig(model_dir=str(tmp_path / "model"), devices=TWO)
    estimator = emg_estimator.Estimator(
        model_fn, config=config, params={"tower_optimizer": True}, warm_start_from=warm
    )
    estimator.train(_input_fn(kind, TWO, X, Y, None), steps=3)
    train_batches = batches(X, Y, BATCH, 3, repeat_first=kind == "per_device")
    kernel, bias, _ = numpy_train(*initial_weights(), train_batches)
    return kind, estimator, kernel, bias


@pytest.mark.parametrize("trained", KINDS, indirect=True)
@pytest.mark.slow
def test_evaluate_on_two_devices(trained):
    kind, estimator, kernel, bias = trained
    result = estimator.evaluate(_input_fn(kind, TWO, X_EVAL, Y_EVAL))
    eval_batches = batches(X_EVAL, Y_EVAL, BATCH, 2)
    expected = np.mean([numpy_loss(kernel, bias, x, y) for x, y in eval_batches])
    np.testing.assert_allclose(result["loss"], expected, rtol=1e-5)
    assert result["global_step"] == 3


@pytest.mark.parametrize("trained", KINDS, indirect=True)
def test_predict_on_two_devices_in_order(trained):
    kind, estimator, kernel, bias = trained
    predicted = list(estimator.predict(_input_fn(kind, TWO, X_EVAL)))
    logits = X_EVAL.astype(np.float64) @ kernel + bias
    assert [p["class"] for p in predicted] == list(np.argmax(logits, axis=1))


def _softmax(logits):
    exp = np.exp(logits - logits.max(axis=1, keepdims=True))
    return exp / exp.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("trained", ["per_device"], indirect=True)
def test_export_after_two_device_training_serves_on_cpu(trained, tmp_path):
    _, estimator, kernel, bias = trained
    receiver = emg_estimator.export.build_raw_serving_input_receiver_fn(
        {"x": tf.TensorSpec([None, NUM_FEATURES], tf.float32)}
    )
    path = estimator.export_saved_model(str(tmp_path / "export"), receiver)
    served = tf.saved_model.load(path.decode()).signatures["serving_default"]
    probabilities = served(x=tf.constant(X_EVAL))["probabilities"].numpy()
    expected = _softmax(X_EVAL.astype(np.float64) @ kernel + bias)
    np.testing.assert_allclose(probabilities, expected, rtol=1e-4, atol=1e-6)


def test_exported_graph_has_no_device_placements(tmp_path):
    config = emg_estimator.RunConfig(
        model_dir=str(tmp_path / "m"), devices=ALL_DEVICES[:2]
    )
    estimator = emg_estimator.Estimator(
        model_fn, config=config, params={"tower_optimizer": True}
    )
    estimator.train(dataset_input_fn(X, Y, BATCH), steps=1)
    receiver = emg_estimator.export.build_raw_serving_input_receiver_fn(
        {"x": tf.TensorSpec([None, NUM_FEATURES], tf.float32)}
    )
    path = estimator.export_saved_model(str(tmp_path / "export"), receiver)
    from tensorflow.core.protobuf import saved_model_pb2

    proto = saved_model_pb2.SavedModel()
    with open(path.decode() + "/saved_model.pb", "rb") as f:
        proto.ParseFromString(f.read())
    nodes = proto.meta_graphs[0].graph_def.node
    assert nodes and not [n.name for n in nodes if n.device]


def test_checkpoint_moves_from_two_devices_to_one(tmp_path):
    config = emg_estimator.RunConfig(model_dir=str(tmp_path), devices=ALL_DEVICES[:2])
    params = {"tower_optimizer": True}
    emg_estimator.Estimator(model_fn, config=config, params=params).train(
        dataset_input_fn(X, Y, BATCH, repeat=True), steps=2
    )
    single = emg_estimator.Estimator(model_fn, model_dir=str(tmp_path), params={})
    single.train(dataset_input_fn(X, Y, BATCH, repeat=True), steps=1)
    assert single.get_variable_value("global_step") == 3


def test_num_gpus_picks_the_first_devices(tmp_path):
    config = emg_estimator.RunConfig(model_dir=str(tmp_path), num_gpus=2)
    assert config.compute_devices == ALL_DEVICES[:2]


@pytest.mark.parametrize("trained", ["dataset"], indirect=True)
def test_sharded_input_fn_evaluate_and_predict(trained):
    """Per-device pipelines (sharded_input_fn) feed evaluate and predict."""
    _, estimator, kernel, bias = trained

    def sharded(x, y=None):
        return inputs.sharded_input_fn(
            _examples(x, y), TWO, global_batch_size=BATCH, remainder="uneven"
        )

    result = estimator.evaluate(sharded(X_EVAL, Y_EVAL))
    eval_batches = batches(X_EVAL, Y_EVAL, BATCH, 2)
    expected = np.mean([numpy_loss(kernel, bias, x, y) for x, y in eval_batches])
    np.testing.assert_allclose(result["loss"], expected, rtol=1e-5)
    predicted = list(estimator.predict(sharded(X_EVAL)))
    # Predictions come back in input order.
    logits = X_EVAL.astype(np.float64) @ kernel + bias
    assert [p["class"] for p in predicted] == list(np.argmax(logits, axis=1))


def _event_values(directory, tag):
    values = []
    for path in tf.io.gfile.glob(f"{directory}/events.out.tfevents.*"):
        for event in tf.compat.v1.train.summary_iterator(path):
            values += [v.simple_value for v in event.summary.value if v.tag == tag]
    return values


def test_examples_per_sec_counts_all_shards(tmp_path):
    config = emg_estimator.RunConfig(
        model_dir=str(tmp_path),
        devices=TWO,
        log_step_count_steps=2,
        log_examples_per_sec=True,
    )
    estimator = emg_estimator.Estimator(
        model_fn, config=config, params={"tower_optimizer": True}
    )
    input_fn = _input_fn("per_device", TWO, X[:16], Y[:16], None)
    estimator.train(input_fn, steps=7)
    steps_per_sec = _event_values(estimator.model_dir, "global_step/sec")
    examples_per_sec = _event_values(estimator.model_dir, "examples/sec")
    assert len(examples_per_sec) == len(steps_per_sec) >= 2
    np.testing.assert_allclose(
        examples_per_sec, np.multiply(steps_per_sec, BATCH), rtol=1e-3
    )
