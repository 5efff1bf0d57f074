"""docs/devices.md's account of the `cuInit` line on a machine without a GPU driver.

The CUDA build of TensorFlow logs "failed call to cuInit" once per process
when it first lists its devices on a machine without the driver, and
`CUDA_VISIBLE_DEVICES=''` does not remove it; a build without CUDA never
logs it. The page says so and says why emg leaves it; if TensorFlow changes,
these tests fail and the page must change with it.
"""

import ctypes.util
import os
import pathlib
import subprocess
import sys

import pytest
import tensorflow as tf

pytestmark = pytest.mark.tf_compat  # 2.15 leg: tensorflow-cpu, no line.

ROOT = pathlib.Path(__file__).resolve().parents[1]
LINE = "failed call to cuInit"
NO_DRIVER = not list(pathlib.Path("/dev").glob("nvidia*")) and not (
    ctypes.util.find_library("cuda")
)
CUDA_BUILD = bool(tf.sysconfig.get_build_info().get("is_cuda_build"))


def _stderr_of_simulate(**env) -> str:
    """stderr of a fresh process that imports emg and splits the CPU in two."""
    code = "import estimator_multigpu as emg\nprint(emg.devices.simulate(2))\n"
    environ = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="0", **env)
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=environ,
        timeout=300,
        check=True,
    )
    return result.stderr


@pytest.mark.skipif(not NO_DRIVER, reason="needs a machine without an NVIDIA driver")
@pytest.mark.parametrize(
    "env",
    [
        pytest.param({}, id="default"),
        pytest.param({"CUDA_VISIBLE_DEVICES": ""}, id="no-visible-gpu"),
    ],
)
@pytest.mark.slow
def test_the_line_comes_from_the_cuda_build_only(env):
    assert (LINE in _stderr_of_simulate(**env)) == CUDA_BUILD


def test_the_page_explains_the_line():
    page = (ROOT / "docs" / "devices.md").read_text(encoding="utf-8")
    assert LINE in page and "CUDA_VISIBLE_DEVICES=''" in page
