"""cifar10.main, unchanged, as every task of a launcher's TF_CONFIG cluster."""

import json
import os
import subprocess
import sys

import pytest
from cifar10_helpers import tiny_config

from cifar10 import main, trainer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_malformed_tf_config_ends_main_before_anything_runs(monkeypatch):
    config = {"cluster": {"worker": ["127.0.0.1:2000"]}, "task": {"type": "ps"}}
    monkeypatch.setenv("TF_CONFIG", json.dumps(config))
    with pytest.raises(SystemExit, match=r"^Error: TF_CONFIG field `task.index`"):
        main._cluster_task()


def test_no_cluster_is_the_one_process_run(monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    assert main._cluster_task() is None


def test_cluster_task_is_named(monkeypatch):
    jobs = {"worker": ["127.0.0.1:2000", "127.0.0.1:2001"], "ps": ["127.0.0.1:2002"]}
    config = {"cluster": jobs, "task": {"type": "worker", "index": 1}}
    monkeypatch.setenv("TF_CONFIG", json.dumps(config))
    assert main._cluster_task() == "worker:1"


@pytest.mark.slow
def test_cifar10_main_trains_under_the_launcher(tmp_path):
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
    ]
    launch = [sys.executable, "-m", "estimator_multigpu.launch", "--ps=1"]
    launch += ["--workers=2", "--", sys.executable, "-m", "cifar10.main", *args]
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    result = subprocess.run(
        launch, capture_output=True, text=True, timeout=240, cwd=ROOT, env=env
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    for task in ("ps:0", "worker:0", "worker:1"):
        assert f"[{task}] ResNet-20 on cifar10" in result.stdout
    assert "[worker:0] worker:0 finished" in result.stdout
    assert os.path.exists(os.path.join(config.model_dir, "model.ckpt-4.index"))
