"""`.ci/run` runs the README's test command exactly, so CI sees what a newcomer sees."""

import pathlib
import re

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


def test_readme_test_command_runs_the_whole_suite():
    command = _readme_test_command()
    assert command.endswith("python -m pytest"), command


def test_ci_runs_the_readme_test_command_verbatim():
    command = _readme_test_command()
    assert command in _ci_commands(), (
        f".ci/run must run the README's test command as written: {command!r}"
    )


def test_ci_does_not_leave_a_test_module_out_of_that_leg():
    leaving_out = [c for c in _ci_commands() if "pytest" in c and "--ignore" in c]
    assert leaving_out == []
