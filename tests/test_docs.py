"""The README, CONTRIBUTING.md and docs/ cannot rot: every python block runs.

A page reads like a notebook: its ```python blocks run in order, in one fresh
process (pages call `emg.devices.simulate`, which must come before TensorFlow
starts), sharing one namespace, in a scratch folder. migration_guide.md has its
own test (tests/test_migration_guide.py).
"""

import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted(ROOT.glob("docs/*.md"))]
FENCE = re.compile(r"^```(?P<lang>[\w-]*)[^\n]*\n(?P<code>.*?)^```", re.M | re.S)
# Pages that need an optional extra: the marker of the CI leg that installs it,
# and the module that must import (elsewhere the page is skipped, as the
# extra's own tests are).
NEEDS = {"dali.md": pytest.mark.dali}
NEEDS_MODULE = {"dali.md": "nvidia.dali.plugin.tf"}
SLOW = {
    "estimator.md",
    "towers.md",
    "distribute.md",
    "README.md",
    "diagnose.md",
    "inputs.md",
}


def python_blocks(text: str) -> list[str]:
    """The code of every ```python block of a markdown text, in order."""
    return [m["code"] for m in FENCE.finditer(text) if m["lang"] == "python"]


def page_program(page: pathlib.Path) -> str:
    """One program: the page's blocks in order, each marked with its number."""
    blocks = python_blocks(page.read_text(encoding="utf-8"))
    return "\n".join(
        f"# --- {page.name}, python block {i} ---\n{code}"
        for i, code in enumerate(blocks, start=1)
    )


def _params():
    params = []
    for page in PAGES:
        if not page.is_file() or not python_blocks(page.read_text(encoding="utf-8")):
            continue
        marks = [NEEDS[page.name]] if page.name in NEEDS else []
        if page.name in SLOW:
            marks.append(pytest.mark.slow)
        params.append(pytest.param(page, id=page.name, marks=marks))
    return params


def test_every_page_exists_and_the_pages_have_code():
    """The list is not silently empty (a moved folder would pass every test)."""
    assert (ROOT / "docs").is_dir()
    names = {p.name for p in PAGES}
    assert {"README.md", "CONTRIBUTING.md", "inputs.md", "towers.md"} <= names
    assert all(p.is_file() for p in PAGES)
    assert sum(len(python_blocks(p.read_text())) for p in PAGES) >= 10


def test_the_block_reader_finds_python_blocks_only():
    text = "x\n```python\na = 1\n```\n```sh\nls\n```\n```python\nb = 2\n```\n"
    assert python_blocks(text) == ["a = 1\n", "b = 2\n"]


def test_a_failing_block_fails_the_page(tmp_path):
    """The runner reports a block that raises (so the page tests can fail)."""
    page = tmp_path / "bad.md"
    page.write_text("```python\nraise ValueError('broken example')\n```\n")
    result = _run(page, tmp_path)
    assert result.returncode != 0
    assert "broken example" in result.stderr


def _run(page: pathlib.Path, cwd: pathlib.Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-c", page_program(page)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.parametrize("page", _params())
def test_page_runs(page, tmp_path):
    if page.name in NEEDS_MODULE:
        pytest.importorskip(NEEDS_MODULE[page.name])
    result = _run(page, tmp_path)
    assert result.returncode == 0, (
        f"{page.name} failed:\n{result.stdout[-3000:]}\n{result.stderr[-6000:]}"
    )
