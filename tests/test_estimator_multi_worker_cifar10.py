"""cifar10.main, unchanged, as every task of a launcher's TF_CONFIG cluster."""

import json
import os
import subprocess
import sys

import pytest
import tensorflow as tf
from cifar10_helpers import tiny_config

import estimator_multigpu as emg
from cifar10 import main, model_fn, trainer
from estimator_multigpu import estimator
from estimator_multigpu.estimator import _distributed

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_malformed_tf_config_ends_main_before_anything_runs(monkeypatch):
    config = {"cluster": {"worker": ["127.0.0.1:2000"]}, "task": {"type": "ps"}}
    monkeypatch.setenv("TF_CONFIG", json.dumps(config))
    with pytest.raises(
        SystemExit,
        match=r"^Error: If \"cluster\" is set in TF_CONFIG, task index must be set\. "
        r"\(TF_CONFIG field `task.index` is missing",
    ):
        main._cluster_task()


def test_no_cluster_is_the_one_process_run(monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    assert main._cluster_task() is None


def test_cluster_task_is_named(monkeypatch):
    jobs = {"worker": ["127.0.0.1:2000", "127.0.0.1:2001"], "ps": ["127.0.0.1:2002"]}
    config = {"cluster": jobs, "task": {"type": "worker", "index": 1}}
    monkeypatch.setenv("TF_CONFIG", json.dumps(config))
    assert main._cluster_task() == "worker:1"


def _launch_cifar10(tmp_path, *flags):
    """cifar10.main for 4 steps under the launcher (1 ps, 2 workers); it must succeed.

    Returns the finished process and the trainer's config.
    """
    config = tiny_config(tmp_path, train_steps=4)
    trainer.prepare(config)  # Generated once, before the tasks read it.
    args = [
        f"--model_dir={config.model_dir}",
        f"--cache_dir={config.cache_dir}",
        "--synthetic_examples=40,12",
        "--global_batch_size=8",
        "--train_steps=4",
        "--log_every_steps=1",
        "--simulate_devices=2",
        *flags,
    ]
    launch = [sys.executable, "-m", "estimator_multigpu.launch", "--ps=1"]
    launch += [
        "--workers=2",
        "--",
        sys.executable,
        "-m",
        "cifar10.main",
        *args,
    ]
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    result = subprocess.run(
        launch, capture_output=True, text=True, timeout=240, cwd=ROOT, env=env
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    return result, config


@pytest.mark.slow
def test_cifar10_main_trains_under_the_launcher(tmp_path):
    result, config = _launch_cifar10(tmp_path)
    for task in ("ps:0", "worker:0", "worker:1"):
        assert f"[{task}] ResNet-20 on cifar10" in result.stdout
    assert "[worker:0] worker:0 finished" in result.stdout
    assert os.path.exists(os.path.join(config.model_dir, "model.ckpt-4.index"))


def test_sync_replicas_must_be_a_bool(tmp_path):
    with pytest.raises(
        ValueError, match=r"`sync_replicas` must be a bool; received 'yes'"
    ):
        tiny_config(tmp_path, sync_replicas="yes")


def _cifar10_train_graph(config):
    """The replicated cifar10 model_fn in TRAIN mode, as a cluster worker builds it."""
    run_config = estimator.RunConfig()
    replicated = emg.replicate_model_fn(
        model_fn.make_model_fn(config), list(config.devices)
    )
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.train.create_global_step()
        images = tf.zeros([8, 32, 32, 3])
        labels = tf.zeros([8], tf.int32)
        replicated(images, labels, estimator.ModeKeys.TRAIN, None, run_config)
    return graph


@pytest.mark.parametrize("sync", [True, False], ids=["sync", "async"])
@pytest.mark.slow
def test_sync_replicas_wraps_the_momentum_optimizer_on_a_cluster(
    monkeypatch, tmp_path, sync
):
    jobs = {"worker": ["127.0.0.1:2000", "127.0.0.1:2001"], "ps": ["127.0.0.1:2002"]}
    config = {"cluster": jobs, "task": {"type": "worker", "index": 1}}
    monkeypatch.setenv("TF_CONFIG", json.dumps(config))
    graph = _cifar10_train_graph(tiny_config(tmp_path, sync_replicas=sync))
    with graph.as_default():
        hooks = _distributed.sync_hooks(is_chief=True)
    assert len(hooks) == int(sync)
    if sync:
        wrapped = hooks[0]._sync_optimizer._opt
        assert isinstance(wrapped, tf.compat.v1.train.MomentumOptimizer)


@pytest.mark.slow
def test_cifar10_main_trains_synchronously_under_the_launcher(tmp_path):
    result, config = _launch_cifar10(tmp_path, "--sync_replicas")
    announced = "Synchronous training: the gradients of 2 workers are averaged"
    for task in ("worker:0", "worker:1"):
        assert f"[{task}] {announced}" in result.stdout
    assert "[launch] worker:0 exited with status 0" in result.stdout
    # The global step advanced once per aggregated step, to max_steps exactly.
    latest = tf.train.latest_checkpoint(config.model_dir)
    assert latest.endswith("model.ckpt-4"), latest


def test_sync_replicas_without_a_cluster_warns_it_has_no_effect(tmp_path, caplog):
    config = tiny_config(tmp_path, sync_replicas=True)
    with caplog.at_level("WARNING"):
        main._report_sync_replicas(config, workers=0)
    assert "--sync_replicas has no effect without a TF_CONFIG cluster" in caplog.text


def test_sync_replicas_on_a_cluster_says_so(tmp_path, capsys):
    main._report_sync_replicas(tiny_config(tmp_path, sync_replicas=True), workers=2)
    assert "the gradients of 2 workers are averaged" in capsys.readouterr().out
