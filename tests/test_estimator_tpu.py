"""emg.estimator.tpu on several devices, and the errors only emg raises."""

import glob
import os

import numpy as np
import pytest
import tensorflow as tf
from conftest import ALL_DEVICES
from estimator_models import (
    LossRecorder,
    initial_weights,
    make_data,
    write_checkpoint,
)
from tpu_models import make_input_fn, make_model_fn

from estimator_multigpu.estimator import tpu

BATCH = 12  # Divides by 1, 2 and 3 devices.
X, Y = make_data(24)
X_EVAL, Y_EVAL = make_data(13, seed=5)


def _estimator(tmp_path, devices, seen, **options):
    warm = write_checkpoint(str(tmp_path / "init" / "init"), *initial_weights())
    config = tpu.RunConfig(
        model_dir=str(tmp_path / f"model{len(devices)}"),
        devices=devices,
        save_summary_steps=1,
        tpu_config=tpu.TPUConfig(iterations_per_loop=1, num_shards=8),
    )
    return tpu.TPUEstimator(
        make_model_fn(tpu.TPUEstimatorSpec, seen, init_checkpoint=warm, **options),
        config=config,
        use_tpu=False,
        train_batch_size=BATCH,
        eval_batch_size=BATCH,
        predict_batch_size=BATCH,
    )


def _first_step(tmp_path, devices):
    seen = []
    estimator = _estimator(tmp_path, devices, seen)
    recorder = LossRecorder()
    estimator.train(make_input_fn(X, Y, seen, repeat=True), hooks=[recorder], steps=1)
    kernel = estimator.get_variable_value("dense/kernel")
    metrics = estimator.evaluate(make_input_fn(X_EVAL, Y_EVAL, seen))
    predictions = [
        p["logits"] for p in estimator.predict(make_input_fn(X_EVAL, None, seen))
    ]
    return recorder.losses, kernel, metrics, np.stack(predictions), seen


@pytest.mark.parametrize("count", [2, 3], ids=["2dev", "3dev"])
def test_n_devices_take_the_one_device_first_step(tmp_path, count):
    one = _first_step(tmp_path / "one", ALL_DEVICES[:1])
    many = _first_step(tmp_path / "many", ALL_DEVICES[:count])
    np.testing.assert_allclose(many[0], one[0], rtol=1e-6)
    np.testing.assert_allclose(many[1], one[1], rtol=1e-5, atol=1e-7)
    assert sorted(many[2]) == sorted(one[2])
    for key in ("accuracy", "mean_label", "loss"):
        np.testing.assert_allclose(many[2][key], one[2][key], rtol=1e-6)
    np.testing.assert_allclose(many[3], one[3], rtol=1e-5, atol=1e-6)


def test_each_tower_model_fn_gets_its_share_of_the_batch(tmp_path):
    seen = _first_step(tmp_path, ALL_DEVICES[:3])[4]
    assert ("input_fn", "train", BATCH) in seen
    assert seen.count(("model_fn", "train", BATCH // 3, False)) == 3


def _host_values(directory, tag):
    values = []
    for path in sorted(glob.glob(os.path.join(directory, "events.out.tfevents.*"))):
        for event in tf.compat.v1.train.summary_iterator(path):
            for value in event.summary.value:
                if value.tag == tag:
                    values.append(float(tf.make_ndarray(value.tensor)))
    return values


@pytest.mark.parametrize("count", [1, 2], ids=["1dev", "2dev"])
def test_host_call_runs_once_on_the_towers_concatenated_tensors(tmp_path, count):
    seen, host_dir = [], str(tmp_path / "host")
    estimator = _estimator(tmp_path, ALL_DEVICES[:count], seen, host_dir=host_dir)
    estimator.train(make_input_fn(X, Y, seen, repeat=True), steps=2)
    # One loss per tower, as TPUEstimator concatenates one per core.
    assert _host_values(host_dir, "host_examples") == [float(count)] * 2


def test_scalar_host_call_tensor_on_several_devices_says_to_reshape(tmp_path):
    def model_fn(features, labels, mode, params):
        loss = tf.reduce_mean(tf.compat.v1.get_variable("w", []) * features["x"])
        step = tf.compat.v1.train.get_global_step()
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, step)
        host_call = (lambda loss: [tf.identity(loss)], [loss])
        return tpu.TPUEstimatorSpec(
            mode, loss=loss, train_op=train_op, host_call=host_call
        )

    config = tpu.RunConfig(model_dir=str(tmp_path), devices=ALL_DEVICES[:2])
    estimator = tpu.TPUEstimator(
        model_fn, config=config, use_tpu=False, train_batch_size=4
    )
    with pytest.raises(
        ValueError, match=r"host_call\[1\]\[0\] is a scalar .*tf.reshape"
    ):
        estimator.train(make_input_fn(X, None, []), steps=1)


def test_use_tpu_true_says_what_to_use_on_gpus():
    with pytest.raises(
        ValueError, match=r"use_tpu=False.*num_gpus=N.*received use_tpu=True"
    ):
        tpu.TPUEstimator(
            lambda features, labels, mode, params: None, config=tpu.RunConfig()
        )


def test_input_fn_without_params_raises(tmp_path):
    estimator = _estimator(tmp_path, ALL_DEVICES[:1], [])
    with pytest.raises(
        ValueError, match=r"input_fn .* does not include params argument"
    ):
        estimator.train(lambda: tf.data.Dataset.range(3), steps=1)


def test_model_fn_without_params_raises():
    with pytest.raises(
        ValueError, match=r"model_fn .* does not include params argument"
    ):
        tpu.TPUEstimator(
            lambda features, labels, mode: None, config=tpu.RunConfig(), use_tpu=False
        )


def test_embedding_config_spec_is_refused():
    with pytest.raises(ValueError, match="embedding_config_spec.*need a TPU"):
        tpu.TPUEstimator(
            lambda features, labels, mode, params: None,
            config=tpu.RunConfig(),
            use_tpu=False,
            embedding_config_spec=object(),
        )


def test_subclass_may_not_override_what_tpu_estimator_wraps():
    class Mine(tpu.TPUEstimator):
        def train(self, *args, **kwargs):
            return None

    with pytest.raises(
        ValueError, match=r"Subclasses of TPUEstimator cannot override.*\['train'\]"
    ):
        Mine(
            lambda features, labels, mode, params: None,
            config=tpu.RunConfig(),
            use_tpu=False,
        )


@pytest.mark.parametrize(
    "value, unit",
    [
        (100, ("count", 100)),
        ("60s", ("seconds", 60)),
        ("2m", ("seconds", 120)),
        ("1h", ("seconds", 3600)),
    ],
    ids=["count", "seconds", "minutes", "hours"],
)
def test_iterations_per_loop_forms(value, unit):
    counter = tpu._config.parse_iterations_per_loop(value)
    assert (counter.unit, counter.value) == unit


def test_bad_iterations_per_loop_raises():
    with pytest.raises(
        ValueError, match=r"Invalid TPUConfig `iterations_per_loop` value.*'0'"
    ):
        tpu.TPUConfig(iterations_per_loop="0")


def test_cross_shard_optimizer_trains_as_the_optimizer_it_wraps():
    with tf.Graph().as_default():
        w = tf.compat.v1.get_variable("w", initializer=1.0)
        loss = tf.square(w)
        train = tpu.CrossShardOptimizer(
            tf.compat.v1.train.GradientDescentOptimizer(0.25)
        ).minimize(loss)
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            session.run(train)
            assert session.run(w) == pytest.approx(0.5)


def test_cross_shard_optimizer_refuses_a_keras_optimizer():
    with pytest.raises(TypeError, match="only works with tf.compat.v1.train.Optimizer"):
        tpu.CrossShardOptimizer(object())


@pytest.mark.parametrize("count", [1, 2], ids=["1dev", "2dev"])
def test_checkpoints_are_one_shard_as_tpu_estimator_writes_them(tmp_path, count):
    # ALBERT's run_classifier renames model.ckpt-N.data-00000-of-00001 itself.
    estimator = _estimator(tmp_path, ALL_DEVICES[:count], [])
    estimator.train(make_input_fn(X, Y, [], repeat=True), steps=1)
    shards = glob.glob(os.path.join(estimator.model_dir, "model.ckpt-1.data-*"))
    assert [os.path.basename(s) for s in shards] == ["model.ckpt-1.data-00000-of-00001"]
