"""Tests that BENCHMARKS.md's summary, commands and plots match the benchmark scripts."""

import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCHMARKS = os.path.join(ROOT, "benchmarks")
HELPERS = {"__init__", "cached_batch", "legacy_blocks", "plot", "timing"}
COMMAND = re.compile(r"python -m benchmarks\.(\w+)((?:[ \t]+--[\w=./-]+)*)")
SCRIPTS = sorted(
    name[:-3]
    for name in os.listdir(BENCHMARKS)
    if name.endswith(".py") and name[:-3] not in HELPERS
)


def _page():
    with open(os.path.join(ROOT, "BENCHMARKS.md"), encoding="utf-8") as f:
        return f.read()


def _summary(page):
    start = page.index("## Summary")
    return page[start : page.index("\n## ", start + 1)]


def _flags(script):
    with open(os.path.join(BENCHMARKS, f"{script}.py"), encoding="utf-8") as f:
        source = f.read()
    names = set(re.findall(r"DEFINE_\w+\(\s*\"(\w+)\"", source))
    if "plot.define_plot_flag(" in source:
        names.add("plot")
    return names


def _commands():
    return sorted(set(COMMAND.findall(_page())))


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_benchmark_script_has_a_summary_row(script):
    assert f"python -m benchmarks.{script}" in _summary(_page())


@pytest.mark.parametrize("command", _commands(), ids=lambda c: " ".join(c).strip())
def test_every_command_names_a_script_and_its_flags(command):
    script, arguments = command
    assert script in SCRIPTS
    defined = _flags(script)
    for argument in arguments.split():
        name = argument[2:].split("=")[0]
        assert name in defined or (name.startswith("no") and name[2:] in defined), (
            f"--{name} is not a flag of benchmarks/{script}.py"
        )


@pytest.mark.parametrize("name", ["cifar_input", "towers"])
def test_plots_are_embedded_small_pngs(name):
    path = f"docs/{name}.png"
    assert f"]({path})" in _page()
    assert f"--plot={path}" in _page()
    with open(os.path.join(ROOT, path), "rb") as f:
        content = f.read()
    assert content.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(content) < 200_000
