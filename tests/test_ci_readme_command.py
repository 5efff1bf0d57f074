"""`.ci/run` runs the README's test command exactly, so CI sees what a newcomer sees.

That command is the default run, which leaves out the tests marked `slow`;
CI runs those after it, in the same virtual environment.
"""

import pathlib
import re
import shlex

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _readme_test_command() -> str:
    """The README's test set-up command, after it creates and enters its venv."""
    blocks = re.findall(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    commands = [b.strip() for b in blocks if "pytest" in b]
    assert len(commands) == 1, f"expected one test command in the README: {commands}"
    steps = [s.strip() for s in commands[0].split("&&")]
    assert steps[0].startswith("python3 -m venv ") and steps[1].startswith(". ")
    return " && ".join(steps[2:])


def _ci_commands() -> list[str]:
    return [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]


def _addopts_markers() -> list[str]:
    """The `-m` expressions of pyproject's pytest addopts."""
    pyproject = (ROOT / "pyproject.toml").read_text()
    words = shlex.split(re.search(r'^addopts = "(.*)"$', pyproject, re.M)[1])
    return [words[i + 1] for i, word in enumerate(words) if word == "-m"]


def _venv_before(lines: list[str], index: int) -> str:
    """The virtual environment activated last before `lines[index]`."""
    activations = [line for line in lines[:index] if line.startswith(". ")]
    assert activations, f"no venv activated before {lines[index]!r}"
    return activations[-1]


def test_readme_test_command_is_the_default_run():
    command = _readme_test_command()
    assert command.endswith("python -m pytest"), command


def test_the_default_run_leaves_out_the_slow_tests():
    assert _addopts_markers() == ["not slow"]


def test_ci_runs_the_readme_test_command_verbatim():
    command = _readme_test_command()
    assert command in _ci_commands(), (
        f".ci/run must run the README's test command as written: {command!r}"
    )


def test_ci_does_not_leave_a_test_module_out_of_that_leg():
    leaving_out = [c for c in _ci_commands() if "pytest" in c and "--ignore" in c]
    assert leaving_out == []


def test_ci_runs_the_slow_tests_in_the_readme_commands_venv():
    """The default run leaves them out, so CI must run them itself."""
    lines = _ci_commands()
    readme = lines.index(_readme_test_command())
    slow_legs = [
        i for i, c in enumerate(lines) if c.startswith("python -m pytest -m slow")
    ]
    assert len(slow_legs) == 1, (
        ".ci/run must run the tests marked slow: python -m pytest -m slow"
    )
    [slow] = slow_legs
    assert _venv_before(lines, slow) == _venv_before(lines, readme)


def test_the_tf_2_15_leg_keeps_its_slow_tests():
    """Its `-m tf_compat` replaces addopts' `-m 'not slow'`."""
    legs = [line for line in _ci_commands() if "pytest -m tf_compat" in line]
    assert len(legs) == 1 and legs[0].endswith("pytest -m tf_compat -n auto"), legs


# What the TF 2.15 leg's venv has beyond what its pip line names: a Python 3.11
# venv's own setuptools, and what tensorflow-cpu 2.15 itself requires.
_TF215_BESIDES_ITS_PIP_LINE = {"setuptools", "keras", "numpy", "absl", "google", "h5py"}
_IMPORT_NAMES = {
    "tensorflow-cpu": "tensorflow",
    "absl-py": "absl",
    "pytest-xdist": "xdist",
}
_OWN_MODULES = {"estimator_multigpu", "tests", "cifar10", "benchmarks"}


def _tf215_importable() -> set[str]:
    [line] = [
        c for c in _ci_commands() if c.startswith('"$work/tf215/bin/pip" install -q "')
    ]
    specs = shlex.split(line)[3:]
    names = {re.split(r"[<>=!~\[]", spec)[0] for spec in specs}
    return {
        _IMPORT_NAMES.get(name, name) for name in names
    } | _TF215_BESIDES_ITS_PIP_LINE


def _imports_needing_a_skip(path: pathlib.Path, importable: set[str]) -> list[str]:
    """Top-level imports of packages outside `importable` that no module-level
    `pytest.importorskip` of the same package comes before."""
    import ast
    import sys

    local = {p.stem for p in path.parent.glob("*.py")}
    skipped, missing = set(), []
    for node in ast.parse(path.read_text()).body:
        for call in ast.walk(node):
            if (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute)
                and call.func.attr == "importorskip"
                and call.args
                and isinstance(call.args[0], ast.Constant)
            ):
                skipped.add(call.args[0].value.split(".")[0])
        if isinstance(node, ast.Import):
            roots = [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            roots = [node.module.split(".")[0]]
        else:
            continue
        missing += [
            f"{path.name}:{node.lineno} imports {root}"
            for root in roots
            if root not in sys.stdlib_module_names | importable | _OWN_MODULES | local
            and root not in skipped
        ]
    return missing


def test_every_test_module_is_collected_in_the_tf_2_15_leg():
    """That leg collects every module, then keeps the tf_compat tests; a module
    that imports a test extra (Pillow, tf-slim, ...) it does not install must
    skip itself with pytest.importorskip, or the whole leg fails collecting."""
    importable = _tf215_importable()
    assert {"tensorflow", "pytest", "pandas"} <= importable, importable
    missing = [
        found
        for path in sorted((ROOT / "tests").glob("test_*.py"))
        for found in _imports_needing_a_skip(path, importable)
    ]
    assert missing == []


def test_the_tf_2_15_collection_check_finds_an_unskipped_extra(tmp_path):
    bad = tmp_path / "test_bad.py"
    bad.write_text("import pytest\nfrom PIL import Image\n")
    good = tmp_path / "test_good.py"
    good.write_text(
        'import pytest\nImage = pytest.importorskip("PIL.Image")\nimport PIL\n'
    )
    importable = _tf215_importable()
    assert _imports_needing_a_skip(bad, importable) == ["test_bad.py:2 imports PIL"]
    assert _imports_needing_a_skip(good, importable) == []
