"""A GPU-name list rewritten to emg.devices.resolve() carries the script's guard count."""

import ast
import textwrap

import pytest
from migrate_helpers import CORPUS, rewrite, run_script

from estimator_multigpu.migrate import _runner

_SCRIPT = "device_list_guard.py"


def test_the_fixed_guard_passes_on_simulated_devices(tmp_path):
    original = run_script(CORPUS / _SCRIPT, "--num_gpus=2")
    assert "fewer GPUs (0) than --num_gpus=2" in original.stderr  # No GPU here.
    path = rewrite(_SCRIPT, tmp_path)
    assert "return emg.devices.resolve(num_gpus=FLAGS.num_gpus)\n" in open(path).read()
    proc = run_script(path, "--num_gpus=2")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "devices 2" in proc.stdout


def _fixed(tmp_path, source: str) -> str:
    path = tmp_path / "script.py"
    path.write_text(textwrap.dedent(source))
    result = _runner.process(str(path))
    ast.parse(result.rewritten)
    return result.rewritten


_LIST = "[d.name for d in device_lib.list_local_devices() if d.device_type == 'GPU']"


@pytest.mark.parametrize(
    "guard, written",
    [
        ("if len(gpus) < num_gpus:", "resolve(num_gpus=num_gpus)"),
        ("if num_gpus > len(gpus):", "resolve(num_gpus=num_gpus)"),
        ("if len(gpus) < 4:", "resolve(num_gpus=4)"),
        ("if len(gpus) != num_gpus:", "resolve()"),  # Not a 'fewer than' guard.
    ],
    ids=["less_than", "greater_than", "constant", "other_test"],
)
def test_a_guard_in_the_same_function(tmp_path, guard, written):
    source = f"""
    from tensorflow.python.client import device_lib

    def main(num_gpus):
        gpus = {_LIST}
        {guard}
            raise ValueError("fewer GPUs than asked for")
    """
    assert f"gpus = emg.devices.{written}\n" in _fixed(tmp_path, source)


def test_a_count_local_to_another_function_is_not_written(tmp_path):
    source = f"""
    from tensorflow.python.client import device_lib

    def gpus():
        return {_LIST}

    def main(num_gpus):
        if len(gpus()) < num_gpus:
            raise ValueError("fewer GPUs than asked for")
    """
    assert "return emg.devices.resolve()\n" in _fixed(tmp_path, source)
