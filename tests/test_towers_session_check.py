"""replicate_model_fn warns when its RunConfig's sessions cannot see the towers' CPUs."""

import logging
import types

import pytest
import tensorflow as tf

import estimator_multigpu as emg
from estimator_multigpu.towers import _session_check

DEVICES = ["/cpu:0", "/cpu:1"]


def model_fn(features, labels, mode, params=None, config=None):
    w = tf.compat.v1.get_variable("w", [2, 1], initializer=tf.zeros_initializer())
    loss = tf.reduce_mean(tf.square(tf.matmul(features, w) - labels))
    opt = emg.TowerOptimizer(tf.compat.v1.train.GradientDescentOptimizer(0.1))
    step = tf.compat.v1.train.get_or_create_global_step()
    return emg.estimator.EstimatorSpec(
        mode, loss=loss, train_op=opt.minimize(loss, step)
    )


def _warnings(caplog, config, calls=2):
    replicated = emg.replicate_model_fn(model_fn, devices=DEVICES)
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        for _ in range(calls):
            with tf.Graph().as_default():
                features = tf.ones([4, 2])
                replicated(features, tf.ones([4, 1]), "train", config=config)
    return [
        r.getMessage()
        for r in caplog.records
        if "session_config sees" in r.getMessage()
    ]


def test_a_config_whose_sessions_see_one_cpu_warns_once(caplog):
    config = types.SimpleNamespace(session_config=tf.compat.v1.ConfigProto())
    (message,) = _warnings(caplog, config)
    assert "['/cpu:1'] are soft-placed on /cpu:0" in message
    assert "sees 1 CPU(s)" in message
    assert "session_config=emg.devices.session_config(...)" in message


def test_a_wrapped_config_or_none_does_not_warn(caplog):
    wrapped = emg.devices.session_config(tf.compat.v1.ConfigProto())
    assert not _warnings(caplog, types.SimpleNamespace(session_config=wrapped))
    assert not _warnings(caplog, None)


def test_emg_estimator_run_config_does_not_warn(caplog):
    assert not _warnings(caplog, emg.estimator.RunConfig())


@pytest.mark.tf_compat
def test_tf_estimator_default_run_config_warns():
    estimator = pytest.importorskip("tensorflow_estimator")
    del estimator
    config = tf.estimator.RunConfig()
    message = _session_check.hidden_devices(config, DEVICES)
    assert message and "sees 1 CPU(s)" in message
    wrapped = tf.estimator.RunConfig(
        session_config=emg.devices.session_config(tf.compat.v1.ConfigProto())
    )
    assert _session_check.hidden_devices(wrapped, DEVICES) is None
