"""The migrate tests run subprocesses through one driver (tests/migrate_helpers.py)."""

import ast
import pathlib

import pytest

TESTS = pathlib.Path(__file__).parent
MIGRATE_TESTS = sorted(TESTS.glob("test_migrate_*.py"))


def subprocess_imports(source: str) -> list[int]:
    """Line numbers where `source` imports the subprocess module (or a name from it)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        else:
            continue
        if any(name.split(".")[0] == "subprocess" for name in names):
            lines.append(node.lineno)
    return lines


@pytest.mark.parametrize(
    "source",
    [
        "import subprocess\n",
        "import os, subprocess as sp\n",
        "from subprocess import run\n",
        "def f():\n    import subprocess\n",
    ],
)
def test_checker_rejects_a_subprocess_import(source):
    assert subprocess_imports(source)


def test_checker_passes_the_shared_driver_and_lookalikes():
    source = "from migrate_helpers import run\nimport subprocess_tools\n"
    assert subprocess_imports(source) == []


def test_there_are_migrate_tests_to_check():
    assert len(MIGRATE_TESTS) > 10


def test_no_migrate_test_imports_subprocess_itself():
    offenders = {
        path.name: subprocess_imports(path.read_text())
        for path in MIGRATE_TESTS
        if subprocess_imports(path.read_text())
    }
    assert offenders == {}, (
        f"these files import subprocess (file: lines) {offenders}; run commands "
        "with tests/migrate_helpers.py (run, run_cli, run_script, run_scripts, start)"
    )
