"""The README's support matrix claims no Python that setup.py's python_requires refuses."""

import ast
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
# `3.10–3.13` (an en dash or a hyphen), or one version `3.11`.
PYTHONS = re.compile(r"^(?P<low>3\.\d+)(?:\s*[–-]\s*(?P<high>3\.\d+))?$")


def python_requires(setup_source: str) -> tuple[int, int]:
    """(3, 10) for `python_requires=">=3.10"` in a setup.py's `setup(...)` call."""
    for node in ast.walk(ast.parse(setup_source)):
        for keyword in (
            getattr(node, "keywords", []) if isinstance(node, ast.Call) else []
        ):
            if keyword.arg == "python_requires":
                match = re.fullmatch(r">=\s*(\d+)\.(\d+)", keyword.value.value)
                assert match, f"unexpected python_requires: {keyword.value.value!r}"
                return int(match[1]), int(match[2])
    raise AssertionError("setup.py passes no python_requires")


def matrix_pythons(readme: str) -> dict[str, tuple[int, int]]:
    """{TensorFlow cell: lowest Python} of each row of the `## Support matrix` table."""
    section = readme.split("## Support matrix", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in rows[0].strip("|").split("|")]
    column = header.index("Python")
    lows = {}
    for row in rows[2:]:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        match = PYTHONS.match(cells[column])
        assert match, f"unreadable Python cell {cells[column]!r} in row {row!r}"
        lows[cells[0]] = tuple(int(part) for part in match["low"].split("."))
    return lows


def too_old(readme: str, setup_source: str) -> dict[str, tuple[int, int]]:
    """The matrix rows whose lowest Python is below what setup.py accepts."""
    floor = python_requires(setup_source)
    return {tf: low for tf, low in matrix_pythons(readme).items() if low < floor}


def test_the_matrix_has_rows_and_setup_a_floor():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(matrix_pythons(readme)) >= 2
    assert python_requires((ROOT / "setup.py").read_text()) >= (3, 9)


def test_no_matrix_row_claims_a_python_setup_py_refuses():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    floor = python_requires((ROOT / "setup.py").read_text())
    assert too_old(readme, (ROOT / "setup.py").read_text()) == {}, (
        f"setup.py requires Python >= {floor[0]}.{floor[1]}: raise the README's "
        "support matrix rows to it (or lower python_requires)"
    )


SETUP = 'import setuptools\nsetuptools.setup(name="x", python_requires=">=3.10")\n'
MATRIX = (
    "## Support matrix\n\n| TensorFlow | Python | numpy |\n|---|---|---|\n"
    "| 2.15 | {old} | 1.x |\n| 2.16–2.21 | 3.10–3.13 | 2.x |\n\n## Next\n| a | 3.1 |\n"
)


@pytest.mark.parametrize(
    "cell, expected",
    [
        pytest.param("3.9–3.11", {"2.15": (3, 9)}, id="below-the-floor"),
        pytest.param("3.9", {"2.15": (3, 9)}, id="one-version-below"),
        pytest.param("3.10-3.11", {}, id="at-the-floor"),
        pytest.param("3.11", {}, id="above-the-floor"),
    ],
)
def test_checker_samples(cell, expected):
    assert too_old(MATRIX.format(old=cell), SETUP) == expected


def test_an_unreadable_python_cell_fails():
    with pytest.raises(AssertionError, match="unreadable Python cell 'any'"):
        matrix_pythons(MATRIX.format(old="any"))
