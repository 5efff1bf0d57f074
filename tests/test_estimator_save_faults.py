"""Checkpoints that must never become the latest: NaN variables, interrupted saves."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
import tensorflow as tf
from estimator_models import dataset_input_fn, make_data, model_fn

from cifar10 import model as cifar_model
from estimator_multigpu import estimator as emg_estimator
from estimator_multigpu.estimator import _checkpoints

pytestmark = pytest.mark.tf_compat  # The runner must behave alike on TF 2.15.

X, Y = make_data(16)
TRAIN_FN = dataset_input_fn(X, Y, 8, repeat=True)
_NAN_AT = 3  # The update of the step that starts at global step 3 is NaN.


def nan_gradients_model_fn(features, labels, mode):
    """A finite loss whose gradients are NaN in one step (sqrt at 0)."""
    w = tf.compat.v1.get_variable("w", [4, 1], initializer=tf.ones_initializer())
    step = tf.compat.v1.train.get_or_create_global_step()
    gate = tf.where(tf.equal(step, _NAN_AT), 0.0, 1.0)
    prediction = tf.matmul(features["x"], w)
    loss = tf.reduce_mean(tf.square(prediction)) + tf.sqrt(gate * tf.reduce_sum(w))
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.01)
    train_op = optimizer.minimize(loss, step)
    return emg_estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def test_nan_update_on_a_save_step_never_becomes_the_latest(tmp_path):
    config = emg_estimator.RunConfig(
        model_dir=str(tmp_path), save_checkpoints_steps=_NAN_AT + 1
    )
    estimator = emg_estimator.Estimator(nan_gradients_model_fn, config=config)
    with pytest.raises(tf.compat.v1.train.NanLossDuringTrainingError) as error:
        estimator.train(TRAIN_FN, steps=20)
    latest = tf.train.latest_checkpoint(str(tmp_path))
    assert latest.endswith("model.ckpt-0")
    assert np.isfinite(tf.train.load_checkpoint(latest).get_tensor("w")).all()
    message = str(error.value)
    assert f"step {_NAN_AT + 1}" in message
    assert "'w'" in message
    assert "model.ckpt-0" in message


def _nan_at_step(value):
    """`value`, or NaN in the step that starts at global step `_NAN_AT`."""
    step = tf.compat.v1.train.get_or_create_global_step()
    return tf.where(tf.equal(step, _NAN_AT), np.float32(np.nan), value)


def _moving_mean(loss):
    """A non-trainable moving average of the loss, fed NaN in one step."""
    mean = tf.compat.v1.get_variable(
        "loss_mean", [], initializer=tf.zeros_initializer(), trainable=False
    )
    return mean.assign(0.9 * mean + 0.1 * _nan_at_step(loss))


def _ema_shadow(loss):
    """An ExponentialMovingAverage shadow of a non-trainable variable."""
    seen = tf.compat.v1.get_variable(
        "seen_loss", [], initializer=tf.zeros_initializer(), trainable=False
    )
    with tf.control_dependencies([seen.assign(_nan_at_step(loss))]):
        return tf.compat.v1.train.ExponentialMovingAverage(0.9).apply([seen])


def _batch_norm_stats(loss):
    """Batch-norm moving statistics of a batch that is NaN in one step."""
    del loss
    batch = _nan_at_step(tf.ones([8, 1, 1, 2]))
    cifar_model.batch_norm(batch, training=True, name="norm", fmt="NHWC")
    return tf.group(tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS))


def _inf_later(loss):
    """A non-trainable running maximum that is finite at first and turns Inf."""
    del loss
    peak = tf.compat.v1.get_variable(
        "peak", [2], initializer=tf.zeros_initializer(), trainable=False
    )
    step = tf.compat.v1.train.get_or_create_global_step()
    value = tf.where(tf.equal(step, _NAN_AT), np.float32(np.inf), 1.0)
    return peak.assign(tf.maximum(peak, tf.stack([1.0, value])))


_NON_TRAINABLE = {
    "moving-mean": (_moving_mean, "loss_mean"),
    "ema-shadow": (_ema_shadow, "seen_loss/ExponentialMovingAverage"),
    "batch-norm": (_batch_norm_stats, "norm/moving_mean"),
    "inf-later": (_inf_later, "peak"),
}


def _non_trainable_model_fn(update):
    """The shared model, whose train_op also runs `update(loss)`."""

    def fn(features, labels, mode, params):
        spec = model_fn(features, labels, mode, params)
        with tf.control_dependencies([spec.train_op]):
            train_op = update(spec.loss)
        return spec._replace(train_op=train_op)

    return fn


@pytest.mark.parametrize("case", sorted(_NON_TRAINABLE))
def test_non_finite_non_trainable_variable_never_becomes_the_latest(tmp_path, case):
    update, name = _NON_TRAINABLE[case]
    config = emg_estimator.RunConfig(
        model_dir=str(tmp_path), save_checkpoints_steps=_NAN_AT + 1
    )
    fn = _non_trainable_model_fn(update)
    estimator = emg_estimator.Estimator(fn, config=config, params={})
    with pytest.raises(
        tf.compat.v1.train.NanLossDuringTrainingError,
        match=rf"checkpoint of step {_NAN_AT + 1}: variables \[.*'{name}'.*\] hold "
        r"NaN or Inf.*latest checkpoint stays .*model\.ckpt-0",
    ):
        estimator.train(TRAIN_FN, steps=20)
    latest = tf.train.latest_checkpoint(str(tmp_path))
    assert latest.endswith("model.ckpt-0")
    reader = tf.train.load_checkpoint(latest)
    assert np.isfinite(reader.get_tensor("dense/kernel")).all()


def best_loss_model_fn(features, labels, mode, params):
    """The shared model, plus a non-trainable "best loss" that starts at Inf."""
    best = tf.compat.v1.get_variable(
        "best_loss", [], initializer=tf.constant_initializer(np.inf), trainable=False
    )
    spec = model_fn(features, labels, mode, params)
    with tf.control_dependencies([spec.train_op]):
        train_op = best.assign(tf.minimum(best, np.inf))
    return spec._replace(train_op=train_op)


@pytest.mark.parametrize("fn", [model_fn, best_loss_model_fn], ids=["plain", "inf"])
def test_finite_training_saves_as_before(tmp_path, fn):
    config = emg_estimator.RunConfig(model_dir=str(tmp_path), save_checkpoints_steps=2)
    estimator = emg_estimator.Estimator(fn, config=config, params={})
    estimator.train(TRAIN_FN, steps=4)
    assert tf.train.latest_checkpoint(str(tmp_path)).endswith("model.ckpt-4")


# What a save killed mid-write leaves, as TensorFlow names it (tensor_bundle:
# `<file>.tempstate<random uint64>`; the sharded saver writes into
# `<prefix>_temp/part-*`).
_INTERRUPTED = [
    "model.ckpt-10_temp/part-00000-of-00001.data-00000-of-00001.tempstate18140643736177609995",
    "model.ckpt-12.data-00000-of-00001.tempstate6111094694528916976",
    "model.ckpt-12.index.tempstate1234567890123",
]
_USERS = [
    "notes.tempstate.txt",
    "data.tempstate42",
    "results_temp/part-00000-of-00001.data-00000-of-00001.tempstate1",
    "results_temp/summary.csv",
]


def _touch(root, relative):
    path = os.path.join(root, relative)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(b"x" * 16)


def test_start_up_removes_interrupted_tempstate_files_only(tmp_path):
    for relative in _INTERRUPTED + _USERS:
        _touch(str(tmp_path), relative)
    _checkpoints.remove_interrupted_saves(str(tmp_path))
    left = sorted(
        os.path.relpath(os.path.join(d, f), tmp_path)
        for d, _, files in os.walk(tmp_path)
        for f in files
    )
    assert left == sorted(_USERS)
    assert not os.path.exists(tmp_path / "model.ckpt-10_temp")


def test_training_after_an_interrupted_save_cleans_it(tmp_path):
    for relative in _INTERRUPTED:
        _touch(str(tmp_path), relative)
    config = emg_estimator.RunConfig(model_dir=str(tmp_path), save_checkpoints_steps=2)
    emg_estimator.Estimator(model_fn, config=config, params={}).train(TRAIN_FN, steps=1)
    names = os.listdir(tmp_path)
    assert not [n for n in names if "tempstate" in n or n.endswith("_temp")]


_SAVING_CHILD = textwrap.dedent(
    """
    import os, sys
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
    import tensorflow as tf
    tf.compat.v1.disable_eager_execution()
    sharded = sys.argv[2] == "sharded"
    big = tf.compat.v1.get_variable(
        "big", [1024, 1024, 64], initializer=tf.compat.v1.ones_initializer()
    )
    saver = tf.compat.v1.train.Saver(sharded=sharded, save_relative_paths=True)
    with tf.compat.v1.Session() as session:
        session.run(tf.compat.v1.global_variables_initializer())
        print("saving", flush=True)
        for step in range(1000):
            saver.save(session, os.path.join(sys.argv[1], "model.ckpt"), step)
    """
)


def _tempstate_files(root):
    return [
        os.path.join(d, f)
        for d, _, files in os.walk(root)
        for f in files
        if ".tempstate" in f
    ]


@pytest.mark.slow
@pytest.mark.parametrize("layout", ["sharded", "single"])
def test_save_killed_mid_write_leaves_what_the_cleanup_removes(tmp_path, layout):
    """Kills a real Saver while it writes; the names are this TF version's."""
    child = subprocess.Popen(
        [sys.executable, "-c", _SAVING_CHILD, str(tmp_path), layout],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert child.stdout.readline().strip() == b"saving"
        deadline = time.time() + 60
        while not _tempstate_files(tmp_path) and time.time() < deadline:
            time.sleep(0.01)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert _tempstate_files(tmp_path), os.listdir(tmp_path)
    _checkpoints.remove_interrupted_saves(str(tmp_path))
    assert not _tempstate_files(tmp_path), os.listdir(tmp_path)
    assert not [n for n in os.listdir(tmp_path) if n.endswith("_temp")]


# --- A save on a full disk: a clear error, nothing half-written left. ---


@pytest.fixture
def small_disk(mount_tmpfs):
    """A 1 MiB tmpfs (root only), unmounted afterwards."""
    return mount_tmpfs("1m")


def big_state_model_fn(features, labels, mode, params):
    """The shared model, plus 2 MiB of non-trainable state (zeros)."""
    tf.compat.v1.get_variable(
        "big", [512, 1024], initializer=tf.zeros_initializer(), trainable=False
    )
    return model_fn(features, labels, mode, params)


def test_save_on_a_full_disk_says_what_it_needs_and_leaves_nothing(small_disk):
    model_dir = small_disk / "model"
    config = emg_estimator.RunConfig(model_dir=str(model_dir), save_checkpoints_steps=2)
    estimator = emg_estimator.Estimator(big_state_model_fn, config=config, params={})
    with pytest.raises(
        tf.errors.ResourceExhaustedError,
        match=rf"No space left on device: checkpoint {model_dir}/model\.ckpt-0 "
        r"was not written\. It needs about 2\.\d MiB \(its variables and graph\); "
        rf"\d\.\d MiB is free in {model_dir}\. No checkpoint was written before\. "
        r"Free space there, or train into a model_dir on a larger disk\.",
    ):
        estimator.train(TRAIN_FN, steps=4)
    left = [n for n in os.listdir(model_dir) if "_temp" in n or "tempstate" in n]
    assert left == []
