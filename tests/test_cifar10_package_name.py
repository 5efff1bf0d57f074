"""The CIFAR reference is the checkout's `cifar10/`, and nothing named `cifar10` installs.

It runs from the checkout (`python -m cifar10`); `pip install .` installs the
library only, so a TF tutorial's own `cifar10.py` is never shadowed by one in
site-packages.
"""

import ast
import fnmatch
import os
import pathlib
import shutil
import subprocess
import sys
import textwrap

import pytest
import setuptools

ROOT = pathlib.Path(__file__).resolve().parent.parent
# What a wheel is built from: setup.py reads README.md; the rest is the tree.
SOURCES = ("setup.py", "pyproject.toml", "README.md", "estimator_multigpu", "cifar10")
TUTORIAL = "TUTORIAL = 'the tutorial file'\n"


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


def _env(**extra) -> dict:
    """The environment of a child interpreter, without the caller's PYTHONPATH."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return dict(env, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="", **extra)


def _python(args, cwd, timeout=300, **env) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=_env(**env),
        timeout=timeout,
    )


def test_setup_installs_the_library_only():
    includes = _setup_includes()
    clashing = [
        p
        for p in includes
        for name in ("cifar10", "cifar10.main")
        if fnmatch.fnmatch(name, p)
    ]
    assert clashing == [], f"setup.py patterns would install `cifar10`: {clashing}"
    packages = setuptools.find_packages(where=str(ROOT), include=includes)
    assert {p.split(".")[0] for p in packages} == {"estimator_multigpu"}


def test_the_reference_is_the_checkouts_cifar10():
    assert (ROOT / "cifar10" / "__init__.py").is_file()
    assert (ROOT / "cifar10" / "__main__.py").is_file()
    assert not (ROOT / "estimator_multigpu_cifar10").exists()


def _built_site(tmp_path: pathlib.Path) -> pathlib.Path:
    """`pip install .` of a copy of the checkout into a folder; returns it."""
    source = tmp_path / "checkout"
    source.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
            shutil.copytree(ROOT / name, source / name, ignore=ignore)
        else:
            shutil.copy2(ROOT / name, source / name)
    site = tmp_path / "site-packages"
    result = _python(
        ["-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation"]
        + ["--no-index", "--target", str(site), str(source)],
        cwd=tmp_path,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return site


@pytest.mark.slow
def test_pip_install_puts_nothing_named_cifar10_in_site_packages(tmp_path):
    """The README's `pip install .`; a tutorial's cifar10.py on a later path wins."""
    site = _built_site(tmp_path)
    installed = sorted(p.name for p in site.iterdir())
    assert "estimator_multigpu" in installed, installed
    assert [n for n in installed if n.startswith("cifar10")] == [], installed
    tutorial = tmp_path / "tutorial"
    tutorial.mkdir()
    (tutorial / "cifar10.py").write_text(TUTORIAL)
    path = os.pathsep.join([str(site), str(tutorial)])  # site-packages first.
    result = _python(
        ["-c", "import cifar10, estimator_multigpu; print(cifar10.__file__)"],
        cwd=tmp_path,
        PYTHONPATH=path,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip() == str(tutorial / "cifar10.py")


def test_this_install_exposes_no_cifar10_outside_the_checkout(tmp_path):
    """The test install (`pip install -e ".[test]"`): only the library is mapped."""
    result = _python(
        [
            "-c",
            "import estimator_multigpu, importlib.util as u; "
            "print(u.find_spec('cifar10'))",
        ],
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip() == "None"


def test_a_tutorials_cifar10_py_imports_its_own_file(tmp_path):
    """The tutorial's trainer next to its cifar10.py, run from another folder."""
    (tmp_path / "tutorial").mkdir()
    (tmp_path / "tutorial" / "cifar10.py").write_text(TUTORIAL)
    (tmp_path / "tutorial" / "cifar10_train.py").write_text(
        textwrap.dedent(
            """
            import cifar10
            import estimator_multigpu
            print(cifar10.TUTORIAL, cifar10.__file__)
            """
        )
    )
    result = _python([str(tmp_path / "tutorial" / "cifar10_train.py")], tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    expected = f"the tutorial file {tmp_path / 'tutorial' / 'cifar10.py'}"
    assert result.stdout.strip() == expected


@pytest.mark.slow
def test_python_dash_m_cifar10_trains_from_the_checkout(tmp_path):
    """The README's first command, from the checkout root: 2 steps on generated data."""
    flags = [
        f"--model_dir={tmp_path / 'model'}",
        f"--cache_dir={tmp_path / 'cache'}",
        "--synthetic_examples=40,12",
        "--global_batch_size=8",
        "--train_steps=2",
        "--log_every_steps=1",
    ]
    result = _python(["-m", "cifar10", *flags], cwd=ROOT, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Test accuracy:" in result.stdout
