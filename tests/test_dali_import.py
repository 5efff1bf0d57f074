"""emg.distribute.dali is optional: a clear ImportError without DALI, and no one
else imports it."""

import importlib
import json
import subprocess
import sys

import pytest

DALI_MODULES = ("nvidia.dali", "nvidia.dali.plugin", "nvidia.dali.plugin.tf")


def test_import_without_dali_names_the_extra(monkeypatch):
    for name in list(sys.modules):
        if name.startswith("estimator_multigpu.distribute.dali"):
            monkeypatch.delitem(sys.modules, name)
    for name in DALI_MODULES:
        monkeypatch.setitem(sys.modules, name, None)  # None: import fails
    with pytest.raises(
        ImportError,
        match=r"pip install 'estimator-multigpu\[dali\]'"
        r".*--no-build-isolation nvidia-dali-tf-plugin-cuda120",
    ):
        importlib.import_module("estimator_multigpu.distribute.dali")


CHILD = """
import importlib, json, pkgutil, sys
failed, imported = {}, []


def visit(package):
    # Not pkgutil.walk_packages: it imports every package, dali included.
    for module in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
        if module.name.endswith((".dali", "__main__")):
            continue
        try:
            loaded = importlib.import_module(module.name)
        except Exception as error:
            failed[module.name] = repr(error)
            continue
        imported.append(module.name)
        if module.ispkg:
            visit(loaded)


visit(importlib.import_module("estimator_multigpu"))
print(json.dumps({"dali": sorted(m for m in sys.modules if m.startswith("nvidia.dali")),
                  "failed": failed, "imported": imported}))
"""


@pytest.mark.slow
def test_the_rest_of_the_package_never_imports_dali():
    result = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-2000:]
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["dali"] == [], out
    assert "estimator_multigpu.distribute._dataset_fn" in out["imported"]


@pytest.mark.slow
def test_inputs_does_not_import_distribute():
    """`inputs` stays below `distribute`: importing it loads no part of it."""
    code = (
        "import sys, estimator_multigpu.inputs; "
        "print(sorted(m for m in sys.modules if m.startswith("
        "'estimator_multigpu.distribute')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip().splitlines()[-1] == "[]"


def test_the_old_inputs_dali_name_says_where_the_adapter_went():
    import estimator_multigpu as emg

    with pytest.raises(AttributeError, match=r"use `emg\.distribute\.dali`"):
        emg.inputs.dali  # noqa: B018
