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
