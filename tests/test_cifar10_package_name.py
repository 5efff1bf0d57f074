"""The CIFAR reference never shadows a user's own `cifar10.py` (the TF tutorials').

The reference installs as `estimator_multigpu_cifar10`; a migrated tutorial
keeps importing its `cifar10.py` next to it, and `python -m
estimator_multigpu_cifar10` runs the trainer.
"""

import ast
import fnmatch
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest
import setuptools

ROOT = pathlib.Path(__file__).resolve().parent.parent
REFERENCE = "estimator_multigpu_cifar10"


def _setup_includes() -> list[str]:
    """The `include=` patterns of setup.py's `find_packages` call, read with ast."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == (
            "find_packages"
        ):
            for keyword in node.keywords:
                if keyword.arg == "include":
                    return ast.literal_eval(keyword.value)
    raise AssertionError("setup.py has no find_packages(include=[...]) call")


def test_setup_installs_no_top_level_cifar10():
    includes = _setup_includes()
    clashing = [
        p
        for p in includes
        for name in ("cifar10", "cifar10.x")
        if fnmatch.fnmatch(name, p)
    ]
    assert clashing == [], f"setup.py patterns would install `cifar10`: {clashing}"
    packages = setuptools.find_packages(where=str(ROOT), include=includes)
    assert {p.split(".")[0] for p in packages} == {"estimator_multigpu", REFERENCE}
    assert REFERENCE in packages and "estimator_multigpu" in packages


def test_no_cifar10_package_in_the_checkout():
    assert not (ROOT / "cifar10").exists()
    assert (ROOT / REFERENCE / "__init__.py").is_file()


def _run(code: str, cwd: pathlib.Path) -> subprocess.CompletedProcess:
    """Runs `code` in a fresh interpreter whose first sys.path entry is `cwd`."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES=""),
        timeout=300,
    )


def test_a_users_cifar10_py_and_the_reference_import_side_by_side(tmp_path):
    (tmp_path / "cifar10.py").write_text("TUTORIAL = 'the user file'\n")
    result = _run(
        f"""
        import sys
        from {REFERENCE} import config, data, input, model_fn, trainer
        assert "cifar10" not in sys.modules, "the reference loaded a `cifar10`"
        import cifar10
        print(cifar10.TUTORIAL, cifar10.__file__)
        print(trainer.__name__)
        """,
        tmp_path,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert f"the user file {tmp_path / 'cifar10.py'}" in result.stdout
    assert f"{REFERENCE}.trainer" in result.stdout


@pytest.mark.slow
def test_python_dash_m_trains_under_the_new_name(tmp_path):
    """The README's main command under the new name, 2 steps on generated data."""
    (tmp_path / "cifar10.py").write_text("raise ImportError('the user file')\n")
    flags = [
        f"--model_dir={tmp_path / 'model'}",
        f"--cache_dir={tmp_path / 'cache'}",
        "--synthetic_examples=40,12",
        "--global_batch_size=8",
        "--train_steps=2",
        "--log_every_steps=1",
    ]
    result = subprocess.run(
        [sys.executable, "-m", REFERENCE, *flags],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES=""),
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Test accuracy:" in result.stdout
