"""RunConfig: tf.estimator's defaults, replace() rules and validation."""

import pytest
import tensorflow as tf

from estimator_multigpu import estimator as emg_estimator

pytestmark = pytest.mark.tf_compat  # The runner must behave alike on TF 2.15.

RunConfig = emg_estimator.RunConfig

DEFAULTS = {
    "model_dir": None,
    "tf_random_seed": None,
    "save_summary_steps": 100,
    "save_checkpoints_steps": None,
    "save_checkpoints_secs": 600,
    "session_config": None,
    "keep_checkpoint_max": 5,
    "keep_checkpoint_every_n_hours": 10000,
    "log_step_count_steps": 100,
    "session_creation_timeout_secs": 7200,
    "checkpoint_save_graph_def": True,
}


@pytest.mark.parametrize("name", sorted(DEFAULTS))
def test_defaults(name):
    assert getattr(RunConfig(), name) == DEFAULTS[name]


@pytest.mark.skipif(
    not emg_estimator.HAS_TF_ESTIMATOR, reason="needs tf.estimator (TF <= 2.15)"
)
@pytest.mark.parametrize("name", sorted(DEFAULTS))
def test_defaults_equal_tf_estimator(name):
    assert getattr(RunConfig(), name) == getattr(tf.estimator.RunConfig(), name)


def test_setting_checkpoint_steps_clears_default_secs():
    config = RunConfig(save_checkpoints_steps=10)
    assert (config.save_checkpoints_steps, config.save_checkpoints_secs) == (10, None)


def test_replace_steps_clears_secs():
    config = RunConfig().replace(save_checkpoints_steps=7)
    assert (config.save_checkpoints_steps, config.save_checkpoints_secs) == (7, None)


def test_replace_returns_a_copy():
    config = RunConfig(model_dir="/tmp/a")
    assert (config.replace(model_dir="/tmp/b").model_dir, config.model_dir) == (
        "/tmp/b",
        "/tmp/a",
    )


def test_local_cluster_properties():
    config = RunConfig()
    assert (config.is_chief, config.num_worker_replicas, config.num_ps_replicas) == (
        True,
        1,
        0,
    )
    assert (config.master, config.task_id, config.cluster_spec.as_dict()) == ("", 0, {})


def test_devices_are_resolved():
    assert RunConfig(devices=["/CPU:1", "/device:CPU:0"]).compute_devices == [
        "/cpu:1",
        "/cpu:0",
    ]


def test_no_devices_means_no_replication():
    assert RunConfig().compute_devices is None


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (
            {"save_checkpoints_steps": 5, "save_checkpoints_secs": 5},
            ValueError,
            "cannot be both set",
        ),
        (
            {"save_summary_steps": -1},
            ValueError,
            r"`save_summary_steps` must be >= 0; received -1",
        ),
        (
            {"keep_checkpoint_max": -1},
            ValueError,
            r"`keep_checkpoint_max` must be >= 0; received -1",
        ),
        (
            {"log_step_count_steps": 0},
            ValueError,
            r"`log_step_count_steps` must be > 0; received 0",
        ),
        (
            {"tf_random_seed": 1.5},
            ValueError,
            r"`tf_random_seed` must be an int; received 1.5",
        ),
        (
            {"session_config": {}},
            ValueError,
            r"`session_config` must be a ConfigProto; received \{\}",
        ),
        ({"model_dir": ""}, ValueError, "`model_dir` must be a non-empty path"),
        (
            {"devices": ["/cpu:0"], "num_gpus": 1},
            ValueError,
            "got both `devices`.*pass only one of them",
        ),
        (
            {"devices": ["/cpu:99"]},
            ValueError,
            "names '/cpu:99', which does not exist here",
        ),
        ({"num_gpus": 99}, ValueError, r"`num_gpus` \(99\) is more than"),
    ],
    ids=[
        "both_frequencies",
        "negative_summary_steps",
        "negative_keep_max",
        "zero_log_steps",
        "float_seed",
        "bad_session_config",
        "empty_model_dir",
        "devices_and_num_gpus",
        "unknown_device",
        "too_many_gpus",
    ],
)
def test_invalid_values(kwargs, error, match):
    with pytest.raises(error, match=match):
        RunConfig(**kwargs)


def test_replace_unknown_property():
    with pytest.raises(ValueError, match="Replacing master is not supported"):
        RunConfig().replace(master="grpc://x")


def test_replace_both_frequencies():
    with pytest.raises(ValueError, match="cannot be both set"):
        RunConfig().replace(save_checkpoints_steps=1, save_checkpoints_secs=1)
