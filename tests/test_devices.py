"""Tests for emg.devices: resolve() and simulate()."""

import subprocess
import sys

import pytest
import tensorflow as tf

from estimator_multigpu import devices

pytestmark = pytest.mark.tf_compat


def test_resolve_default_returns_simulated_devices():
    assert devices.resolve() == ["/cpu:0", "/cpu:1", "/cpu:2", "/cpu:3"]


@pytest.mark.parametrize("num", [1, 2, 4], ids=["one", "two", "four"])
def test_resolve_num_gpus_takes_first(num):
    assert devices.resolve(num_gpus=num) == [f"/cpu:{i}" for i in range(num)]


def test_resolve_zero_means_host_cpu():
    assert devices.resolve(num_gpus=0) == ["/cpu:0"]


@pytest.mark.parametrize(
    "given, expected",
    [
        (["/CPU:1", "/device:cpu:0"], ["/cpu:1", "/cpu:0"]),
        (["/job:worker/task:1/device:GPU:0"], ["/job:worker/task:1/gpu:0"]),
        ([" /cpu:2 "], ["/cpu:2"]),
    ],
    ids=["case_and_device_prefix", "remote_kept", "whitespace"],
)
def test_resolve_explicit_devices_are_canonical(given, expected):
    assert devices.resolve(devices=given) == expected


def test_explicit_devices_win_over_num_gpus():
    assert devices.resolve(num_gpus=4, devices=["/cpu:3"]) == ["/cpu:3"]


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (
            {"num_gpus": 5},
            ValueError,
            r"`num_gpus` \(5\) is more than the 4 device\(s\).*'/cpu:3'",
        ),
        ({"num_gpus": -1}, ValueError, r"`num_gpus` must be >= 0; received -1"),
        ({"num_gpus": 1.5}, TypeError, r"`num_gpus` must be an int; received 1.5"),
        ({"devices": []}, ValueError, r"`devices` is empty"),
        (
            {"devices": ["/cpu:0", "/CPU:0"]},
            ValueError,
            r"names \['/cpu:0'\] more than once",
        ),
        ({"devices": ["gpu0"]}, ValueError, r"Malformed device name 'gpu0'"),
        ({"devices": ["/cpu:x"]}, ValueError, r"Malformed device name '/cpu:x'"),
        (
            {"devices": ["/cpu:9"]},
            ValueError,
            r"'/cpu:9', which does not exist here.*4 CPU",
        ),
        (
            {"devices": ["/gpu:0"]},
            ValueError,
            r"'/gpu:0', which does not exist here; this process has 0 GPU",
        ),
        (
            {"devices": "/cpu:0"},
            TypeError,
            r"not the string '/cpu:0'; pass \['/cpu:0'\]",
        ),
        (
            {"devices": [0]},
            TypeError,
            r"A device must be a string.*received 0 of type int",
        ),
    ],
    ids=[
        "too_many",
        "negative",
        "float",
        "empty",
        "duplicate",
        "malformed",
        "bad_index",
        "missing_cpu",
        "missing_gpu",
        "bare_string",
        "not_string",
    ],
)
def test_resolve_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        devices.resolve(**kwargs)


def test_simulate_is_idempotent_for_same_n():
    assert devices.simulate(4) == ["/cpu:0", "/cpu:1", "/cpu:2", "/cpu:3"]
    assert len(tf.config.list_logical_devices("CPU")) == 4


def test_simulate_other_n_after_split_is_refused():
    with pytest.raises(RuntimeError, match=r"simulate\(2\) called after simulate\(4\)"):
        devices.simulate(2)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n": 0}, r"`n` must be an int >= 1; received 0"),
        (
            {"n": 2, "device_type": "TPU"},
            r"`device_type` must be 'CPU' or 'GPU'; received 'TPU'",
        ),
        ({"n": 2, "device_type": "GPU"}, r"no physical GPU device"),
    ],
    ids=["zero", "bad_type", "no_gpu"],
)
def test_simulate_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        devices.simulate(**kwargs)


def test_simulate_after_tf_initialised_is_a_clear_error():
    code = (
        "import tensorflow as tf\n"
        "tf.constant(1.0) + 1\n"
        "from estimator_multigpu import devices\n"
        "try:\n"
        "    devices.simulate(3)\n"
        "except RuntimeError as e:\n"
        "    print('ERR', e)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert "ERR emg.devices.simulate(3) came too late" in out.stdout
    assert "before any TensorFlow op" in out.stdout


def test_resolve_does_not_initialise_runtime():
    code = (
        "from estimator_multigpu import devices\n"
        "print(devices.resolve())\n"
        "print(devices.simulate(3))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == [
        "['/cpu:0']",
        "['/cpu:0', '/cpu:1', '/cpu:2']",
    ]


@pytest.mark.parametrize(
    "a, b, same",
    [
        ("/cpu:1", "/job:localhost/replica:0/task:0/device:CPU:1", True),
        ("/cpu:1", "/cpu:2", False),
    ],
    ids=["same", "different"],
)
def test_same_device(a, b, same):
    assert devices.same_device(a, b) is same


@pytest.mark.parametrize(
    "n", [devices.MAX_SIMULATED_DEVICES + 1, 1000], ids=["just-over", "thousand"]
)
def test_simulate_refuses_more_than_the_ceiling(n):
    with pytest.raises(
        ValueError,
        match=rf"`n` \({n}\) is more than {devices.MAX_SIMULATED_DEVICES} logical "
        rf"devices.*Pass n <= {devices.MAX_SIMULATED_DEVICES}",
    ):
        devices.simulate(n)


def test_max_simulated_devices_scales_with_cores():
    cores = devices.cpu_cores()
    expected = min(
        devices.MAX_SIMULATED_DEVICES, devices.SIMULATED_DEVICES_PER_CORE * cores
    )
    assert devices.max_simulated_devices() == expected >= 1


def test_simulate_warns_past_the_per_core_bound():
    n = devices.max_simulated_devices() + 1
    if n > devices.MAX_SIMULATED_DEVICES:
        pytest.skip("this machine's cores allow every n up to the ceiling")
    code = (
        "import tensorflow as tf\n"
        "tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.WARN)\n"
        "from estimator_multigpu import devices\n"
        f"devices.simulate({n})\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert f"Splitting the CPU into {n} logical devices" in out.stderr


def test_simulate_logs_through_tensorflow_without_a_root_handler():
    """absl's first log call would install a root handler (every TF line twice)."""
    code = (
        "import logging\n"
        "import tensorflow as tf\n"
        "tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)\n"
        "from estimator_multigpu import devices\n"
        "devices.simulate(2)\n"
        "print('root handlers:', len(logging.getLogger().handlers))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300
    )
    assert "root handlers: 0" in result.stdout, result.stderr[-2000:]
    assert result.stderr.count("into 2 logical devices") == 1
