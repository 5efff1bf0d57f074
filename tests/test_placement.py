"""Towers run on their devices: the step's trace shows tower 1 on `/cpu:1`.

A session built with an explicit `ConfigProto` (tf.estimator always passes
one) sees one CPU unless the config keeps the logical devices; tower 1 is
then soft-placed on `/cpu:0`, or fails without `allow_soft_placement`. These
tests read where ops ran, not only what they computed.
"""

import pytest
import tensorflow as tf
from conftest import ALL_DEVICES
from estimator_models import dataset_input_fn, make_data, model_fn
from placement_helpers import PlacementRecorder, traced_devices

import estimator_multigpu as emg
from estimator_multigpu import estimator as emg_estimator
from estimator_multigpu.estimator import _distributed
from estimator_multigpu.estimator._spec import HAS_TF_ESTIMATOR

pytestmark = pytest.mark.tf_compat  # Every TF leg must place towers alike.

X, Y = make_data(16)
TOWERS = ("tower_1/",)


def _allow_growth():
    return tf.compat.v1.ConfigProto(
        allow_soft_placement=True,
        gpu_options=tf.compat.v1.GPUOptions(allow_growth=True),
    )


SESSION_CONFIGS = {
    "default": lambda: None,
    "allow_growth": _allow_growth,
    "no_gpus": lambda: tf.compat.v1.ConfigProto(
        allow_soft_placement=True, device_count={"GPU": 0}
    ),
    "cpu_1_no_gpus": lambda: tf.compat.v1.ConfigProto(
        allow_soft_placement=True, device_count={"CPU": 1, "GPU": 0}
    ),
    "no_soft_placement": tf.compat.v1.ConfigProto,
    # Horovod's `visible_device_list = str(local_rank)`, here without a GPU.
    "visible_device_list": lambda: tf.compat.v1.ConfigProto(
        gpu_options=tf.compat.v1.GPUOptions(visible_device_list="0")
    ),
}
RUN_CONFIGS = {
    "num_gpus": {"num_gpus": 2},
    "devices": {"devices": ALL_DEVICES[:2]},
}


def _estimator(tmp_path, devices_args, session_config):
    config = emg_estimator.RunConfig(
        model_dir=str(tmp_path), session_config=session_config, **devices_args
    )
    return emg_estimator.Estimator(
        model_fn, config=config, params={"tower_optimizer": True}
    )


@pytest.mark.parametrize("run_config", sorted(RUN_CONFIGS))
@pytest.mark.parametrize("session_config", sorted(SESSION_CONFIGS))
def test_training_runs_tower_1_on_cpu_1(tmp_path, run_config, session_config):
    estimator = _estimator(
        tmp_path, RUN_CONFIGS[run_config], SESSION_CONFIGS[session_config]()
    )
    recorder = PlacementRecorder(TOWERS)
    estimator.train(dataset_input_fn(X, Y, 8), hooks=[recorder], steps=1)
    assert recorder.devices == {"tower_1/": {"/cpu:1"}}


@pytest.mark.parametrize("session_config", ["default", "no_soft_placement"])
def test_evaluation_and_prediction_run_tower_1_on_cpu_1(tmp_path, session_config):
    estimator = _estimator(
        tmp_path, RUN_CONFIGS["devices"], SESSION_CONFIGS[session_config]()
    )
    estimator.train(dataset_input_fn(X, Y, 8), steps=1)
    evaluated, predicted = PlacementRecorder(TOWERS), PlacementRecorder(TOWERS)
    estimator.evaluate(dataset_input_fn(X, Y, 8), hooks=[evaluated], steps=1)
    next(estimator.predict(dataset_input_fn(X, None, 8), hooks=[predicted]))
    assert evaluated.devices == predicted.devices == {"tower_1/": {"/cpu:1"}}


def test_an_explicit_session_config_alone_sees_one_cpu():
    """Why the configs are kept: TensorFlow's behaviour the helper detects."""
    with tf.Graph().as_default():
        with tf.device("/cpu:1"), tf.name_scope("tower_1"):
            total = tf.reduce_sum(tf.random.normal([3]))
        config = tf.compat.v1.ConfigProto(allow_soft_placement=True)
        with tf.compat.v1.Session(config=config) as session:
            assert traced_devices(session, total, "tower_1/") == {"/cpu:0"}


def test_the_user_session_config_is_not_changed():
    given = tf.compat.v1.ConfigProto(allow_soft_placement=True)
    config = emg_estimator.RunConfig(session_config=given, num_gpus=2)
    assert config.session_config.device_count["CPU"] == len(ALL_DEVICES)
    assert "CPU" not in given.device_count


def test_a_cluster_server_makes_the_logical_devices():
    """A task's server builds the devices its sessions see, from its config."""
    server_config = _distributed._server_config(tf.compat.v1.ConfigProto())
    server = tf.distribute.Server.create_local_server(config=server_config)
    with tf.Graph().as_default():
        with tf.device("/cpu:1"), tf.name_scope("tower_1"):
            total = tf.reduce_sum(tf.random.normal([3]))
        with tf.compat.v1.Session(server.target) as session:
            assert traced_devices(session, total, "tower_1/") == {"/cpu:1"}


@pytest.mark.parametrize("session_config", sorted(SESSION_CONFIGS))
def test_a_script_session_keeps_the_devices_with_session_config(session_config):
    """A TF1 tower loop's own Session: `emg.devices.session_config(config)`."""
    with tf.Graph().as_default():
        loss, train_op = emg.towers.minimize(
            lambda x, y: tf.reduce_mean(
                tf.square(x @ tf.compat.v1.get_variable("w", [4, 1]) - y)
            ),
            (tf.constant(X), tf.constant(Y[:, None].astype("float32"))),
            tf.compat.v1.train.GradientDescentOptimizer(0.1),
            devices=ALL_DEVICES[:2],
        )
        config = emg.devices.session_config(SESSION_CONFIGS[session_config]())
        with tf.compat.v1.Session(config=config) as session:
            session.run(tf.compat.v1.global_variables_initializer())
            assert traced_devices(session, [loss, train_op], "tower_1/") == {"/cpu:1"}


needs_tf_estimator = pytest.mark.skipif(
    not HAS_TF_ESTIMATOR, reason="tf.estimator was removed in TF 2.16"
)


@needs_tf_estimator
def test_real_tf_estimator_runs_tower_1_on_cpu_1_with_session_config(tmp_path):
    config = tf.estimator.RunConfig(
        model_dir=str(tmp_path), session_config=emg.devices.session_config()
    )
    estimator = tf.estimator.Estimator(
        emg.replicate_model_fn(model_fn, devices=ALL_DEVICES[:2]),
        config=config,
        params={"tower_optimizer": True},
    )
    recorder = PlacementRecorder(TOWERS)
    estimator.train(dataset_input_fn(X, Y, 8), hooks=[recorder], steps=1)
    assert recorder.devices == {"tower_1/": {"/cpu:1"}}
