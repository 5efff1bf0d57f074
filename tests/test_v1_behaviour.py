"""Inputs and towers under `tf.compat.v1.disable_v2_behavior()`, the usual TF1 port.

Each module runs in a fresh process that disables v2 behaviour before
anything else (static shapes then hold `Dimension`s, control flow is v1 and
variables are not resource variables).
"""

import os
import subprocess
import sys

import pytest

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_RUN = (
    "import sys, tensorflow as tf; tf.compat.v1.disable_v2_behavior(); "
    "import pytest; sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', sys.argv[1]]))"
)
MODULES = ["test_towers_empty.py", "test_inputs_order.py", "test_towers_split.py"]


@pytest.mark.slow
@pytest.mark.parametrize("module", MODULES)
def test_module_passes_with_v2_behaviour_disabled(module):
    result = subprocess.run(
        [sys.executable, "-c", _RUN, os.path.join("tests", module)],
        cwd=_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
