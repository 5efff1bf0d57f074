"""Tests for emg.devices.tune_gpu_runtime: env vars, thread pool, timing."""

import json
import os
import subprocess
import sys
import textwrap

import pytest
import tensorflow as tf

from estimator_multigpu import _gpu_runtime, devices

pytestmark = pytest.mark.tf_compat


def _run_child(body):
    """Runs `body` in a fresh Python (TF not yet initialised); returns it."""
    script = textwrap.dedent(
        """
        import json, os
        import tensorflow as tf  # Importing does not start the runtime.
        tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)
        from estimator_multigpu import devices
        """
    ) + textwrap.dedent(body)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TF_GPU_THREAD")}
    env.update(TF_CPP_MIN_LOG_LEVEL="2", CUDA_VISIBLE_DEVICES="")
    return subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=True,
    )


@pytest.fixture(scope="module")
def child():
    """One fresh process: each call in the order a program would make them."""
    result = _run_child(
        """
        out = {}
        options = devices.tune_gpu_runtime()
        out["no_gpu"] = [os.environ.get("TF_GPU_THREAD_MODE"),
                         options.threading.private_threadpool_size]
        options = devices.tune_gpu_runtime(num_gpus=1, gpu_thread_mode="gpu_shared")
        out["default_pool"] = [os.environ["TF_GPU_THREAD_MODE"],
                               options.threading.private_threadpool_size]
        options = devices.tune_gpu_runtime(
            num_gpus=2, gpu_thread_count=3, private_threadpool_size=5)
        import tensorflow as tf
        values = tf.data.Dataset.range(3).with_options(options).as_numpy_iterator()
        out["explicit"] = [os.environ["TF_GPU_THREAD_MODE"],
                           os.environ["TF_GPU_THREAD_COUNT"],
                           options.threading.private_threadpool_size,
                           [int(v) for v in values]]
        try:
            devices.tune_gpu_runtime(num_gpus=1, gpu_thread_count=7)
        except RuntimeError as error:
            out["too_late"] = [str(error), os.environ["TF_GPU_THREAD_COUNT"]]
        print(json.dumps(out))
        """
    )
    return json.loads(result.stdout.strip().splitlines()[-1]), result.stderr


@pytest.mark.slow  # a fresh TensorFlow process
def test_env_vars_and_thread_pool_set_before_tf_starts(child):
    assert child[0]["explicit"] == ["gpu_private", "3", 5, [0, 1, 2]]


@pytest.mark.slow  # a fresh TensorFlow process
def test_default_thread_pool_is_sized_from_cpus_and_gpus(child):
    expected = _gpu_runtime.default_private_threadpool_size(1, 2, os.cpu_count())
    assert child[0]["default_pool"] == ["gpu_shared", expected]


@pytest.mark.slow  # a fresh TensorFlow process
def test_without_gpus_it_changes_nothing_and_says_so(child):
    assert child[0]["no_gpu"] == [None, None]
    assert "no GPU here, so the runtime is left as it is" in child[1]


@pytest.mark.slow  # a fresh TensorFlow process
def test_too_late_in_a_fresh_process_changes_nothing(child):
    message, count = child[0]["too_late"]
    assert "came too late" in message and count == "3"


def test_too_late_once_tensorflow_runs():
    tf.constant(1.0).numpy()
    with pytest.raises(
        RuntimeError,
        match=r"tune_gpu_runtime\(\) came too late: "
        r"TensorFlow has already created its devices",
    ):
        devices.tune_gpu_runtime()


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (
            {"gpu_thread_mode": "private"},
            r"`gpu_thread_mode` must be one of "
            r"\('global', 'gpu_private', 'gpu_shared'\); received 'private'",
        ),
        (
            {"gpu_thread_count": 0},
            r"`gpu_thread_count` must be an int >= 1; received 0",
        ),
        (
            {"private_threadpool_size": 0},
            r"`private_threadpool_size` must be an int >= 1; received 0",
        ),
        ({"num_gpus": -1}, r"`num_gpus` must be an int >= 0; received -1"),
        ({"gpu_thread_count": 2.0}, r"`gpu_thread_count` must be an int >= 1"),
    ],
    ids=["mode", "thread_count", "pool_size", "num_gpus", "float_count"],
)
def test_argument_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        devices.tune_gpu_runtime(**kwargs)


@pytest.mark.parametrize(
    "num_gpus,threads,cpus,expected",
    [(2, 2, 16, 10), (8, 2, 96, 64), (2, 2, 4, 1), (1, 1, 64, 8)],
    ids=["spare_cpus", "capped_per_gpu", "too_few_cpus", "one_gpu"],
)
def test_default_private_threadpool_size(num_gpus, threads, cpus, expected):
    assert (
        _gpu_runtime.default_private_threadpool_size(num_gpus, threads, cpus)
        == expected
    )
