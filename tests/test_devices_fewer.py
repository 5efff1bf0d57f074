"""emg.devices.resolve(num_gpus=n) on a machine with fewer than n devices.

A TF1 tower loop over `/gpu:0..n-1` ran on a smaller machine thanks to
`allow_soft_placement`; the migrated script calls `resolve(num_gpus=n)`, which
simulates the missing devices on the CPU (before TensorFlow starts) instead of
refusing. Each case runs in a fresh process: a process splits its CPU once.
"""

import os
import subprocess
import sys

import pytest

from estimator_multigpu import devices

pytestmark = pytest.mark.tf_compat

_WARNING = "simulating"

_SCRIPT = """
import sys
import tensorflow as tf
import estimator_multigpu as emg

n = int(sys.argv[1])
names = emg.devices.resolve(num_gpus=n)
assert emg.devices.resolve(num_gpus=n) == names, "a second call differs"
for name in names:
    with tf.device(name):
        value = tf.identity(tf.constant(1.0))
    assert value.device.endswith("CPU:" + name.split(":")[-1]), value.device
print("NAMES", names)
"""

_LATE_SCRIPT = """
import tensorflow as tf
import estimator_multigpu as emg

tf.constant(1.0)  # The runtime starts here.
emg.devices.resolve(num_gpus=2)
"""


def _run(script: str, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", TF_CPP_MIN_LOG_LEVEL="2")
    return subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.mark.parametrize("n", [1, 2, 4], ids=["one", "two", "four"])
def test_resolve_simulates_missing_devices_before_the_runtime_starts(n):
    out = _run(_SCRIPT, str(n))
    assert out.returncode == 0, out.stderr[-3000:]
    expected = [f"/cpu:{i}" for i in range(n)]
    assert f"NAMES {expected}" in out.stdout
    # One warning when devices were simulated (none when they existed).
    warnings = [line for line in out.stderr.splitlines() if _WARNING in line]
    assert len(warnings) == (0 if n == 1 else 1), out.stderr[-3000:]
    if n > 1:
        assert f"num_gpus={n}" in warnings[0]
        assert "allow_soft_placement" in warnings[0]


@pytest.mark.slow
def test_resolve_after_the_runtime_started_says_what_to_do():
    out = _run(_LATE_SCRIPT)
    assert out.returncode != 0
    assert "ValueError" in out.stderr
    last = out.stderr.strip().splitlines()[-1]
    assert "`num_gpus` (2) is more than the 1 device(s)" in last
    assert "TensorFlow has already started" in last
    assert "before any TensorFlow op" in last
    assert "num_gpus <= 1" in last


def test_resolve_after_another_simulate_count_says_what_to_do():
    # conftest split the CPU into 4 before these tests; 5 cannot be added.
    with pytest.raises(
        ValueError,
        match=r"`num_gpus` \(5\) is more than the 4 device\(s\).*"
        r"already split into 4.*num_gpus <= 4",
    ):
        devices.resolve(num_gpus=5)


_ESTIMATOR_SCRIPT = """
import sys, tempfile
sys.path.insert(0, sys.argv[1])  # The tests' helper modules.
import tensorflow as tf
import estimator_multigpu as emg
from estimator_models import dataset_input_fn, make_data, model_fn
from placement_helpers import PlacementRecorder

emg.devices.resolve(num_gpus=2)  # Simulates 2 CPUs: there is no GPU.
growth = tf.compat.v1.ConfigProto(
    gpu_options=tf.compat.v1.GPUOptions(allow_growth=True)
)
config = emg.estimator.RunConfig(
    model_dir=tempfile.mkdtemp(), num_gpus=2, session_config=growth
)
estimator = emg.estimator.Estimator(
    model_fn, config=config, params={"tower_optimizer": True}
)
recorder = PlacementRecorder(("tower_1/",))
x, y = make_data(16)
estimator.train(dataset_input_fn(x, y, 8), hooks=[recorder], steps=1)
print("TOWER_1", sorted(recorder.devices["tower_1/"]))
"""


@pytest.mark.slow
def test_devices_resolve_simulated_are_kept_by_an_explicit_session_config():
    """After resolve(num_gpus=2) simulates, allow_growth still sees /cpu:1."""
    out = _run(_ESTIMATOR_SCRIPT, os.path.dirname(os.path.abspath(__file__)))
    assert out.returncode == 0, out.stderr[-3000:]
    assert "TOWER_1 ['/cpu:1']" in out.stdout, out.stdout[-3000:]
