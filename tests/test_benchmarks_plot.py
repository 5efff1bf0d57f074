"""Tests for the benchmark scripts' --plot: ratios, path checks and the PNG writer."""

import os
import subprocess
import sys

import pytest
from absl import flags

from benchmarks import plot

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
RATES = {"base": [1.0, 2.0, 3.0], "ours": [2.0, 6.0, 3.0]}
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run_script(module, *args):
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_ratio_bars_give_median_ratio_and_per_round_median():
    bars = plot.ratio_bars(RATES, "base")
    assert [b.label for b in bars] == ["base", "ours"]
    assert bars[1].median == 3.0
    # Medians 3 / 2; per-round ratios 2, 3, 1 -> median 2.
    assert bars[1].note == "this / base: 1.50× (per round 2.00×)"
    assert bars[0].note == "this / base: 1.00× (per round 1.00×)"


def test_ratio_bars_reference_over_this():
    bars = plot.ratio_bars(RATES, "base", reference_over_this=True)
    # Medians 2 / 3; per-round ratios 0.5, 0.33, 1 -> median 0.5.
    assert bars[1].note == "base / this: 0.67× (per round 0.50×)"


def test_ratio_bars_scale_the_rates_not_the_ratios():
    bars = plot.ratio_bars(RATES, "base", scale=128)
    assert bars[1].median == 384.0
    assert bars[1].runs == (256.0, 768.0, 384.0)
    assert "1.50×" in bars[1].note


def test_ratio_bars_reject_an_unknown_reference():
    with pytest.raises(ValueError, match=r"`reference` \('legacy'\).*baseline"):
        plot.ratio_bars(RATES, "legacy")


@pytest.mark.parametrize(
    "name, error, match",
    [
        ("chart.jpg", ValueError, r"--plot \('.*chart.jpg'\) must name a \.png"),
        ("missing/chart.png", ValueError, r"folder .*missing.* does not exist"),
    ],
    ids=["not_png", "no_folder"],
)
def test_check_path_refuses_bad_paths(tmp_path, name, error, match):
    with pytest.raises(error, match=match):
        plot.check_path(str(tmp_path / name))


def test_check_path_refuses_an_existing_file(tmp_path):
    path = tmp_path / "chart.png"
    path.write_bytes(b"mine")
    with pytest.raises(FileExistsError, match="never replaces a file"):
        plot.check_path(str(path))


def test_check_path_names_the_extra_without_matplotlib(tmp_path, monkeypatch):
    for name in ("matplotlib", "matplotlib.figure", "matplotlib.backends.backend_agg"):
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(ImportError, match=r"--plot needs matplotlib.*\[diagnose\]"):
        plot.check_path(str(tmp_path / "chart.png"))


def test_plot_flag_is_checked_when_flags_are_parsed(tmp_path):
    flag_values = flags.FlagValues()
    plot.define_plot_flag("things", flag_values)
    with pytest.raises(flags.IllegalFlagValueError, match="does not exist"):
        flag_values(["prog", f"--plot={tmp_path}/missing/chart.png"])


def test_write_bar_chart_writes_a_small_png(tmp_path):
    pytest.importorskip("matplotlib")
    path = str(tmp_path / "chart.png")
    bars = plot.ratio_bars(RATES, "base")
    assert plot.write_bar_chart(bars, path, "a title", "examples/sec") == path
    with open(path, "rb") as f:
        content = f.read()
    assert content.startswith(PNG_SIGNATURE)
    assert len(content) < 200_000
    assert os.listdir(tmp_path) == ["chart.png"]  # No temporary file left.
    mask = os.umask(0o022)
    os.umask(mask)
    assert os.stat(path).st_mode & 0o777 == 0o666 & ~mask


def test_write_bar_chart_keeps_an_existing_file(tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "chart.png"
    path.write_bytes(b"mine")
    with pytest.raises(FileExistsError, match="never replaces a file"):
        plot.write_bar_chart(plot.ratio_bars(RATES, "base"), str(path), "t", "x")
    assert path.read_bytes() == b"mine"
    assert os.listdir(tmp_path) == ["chart.png"]


def test_write_bar_chart_refuses_no_bars(tmp_path):
    with pytest.raises(ValueError, match="`bars` is empty"):
        plot.write_bar_chart([], str(tmp_path / "chart.png"), "t", "x")


@pytest.mark.slow
def test_cifar_input_refuses_an_existing_plot_before_running(tmp_path):
    path = tmp_path / "cifar.png"
    path.write_bytes(b"mine")
    result = _run_script("benchmarks.cifar_input", f"--plot={path}")
    assert result.returncode != 0
    assert "never replaces a file" in result.stderr
    assert path.read_bytes() == b"mine"
    assert os.listdir(tmp_path) == ["cifar.png"]  # Nothing written.


@pytest.mark.slow
def test_towers_refuses_a_plot_without_throughput(tmp_path):
    pytest.importorskip("matplotlib")
    result = _run_script(
        "benchmarks.towers", "--nothroughput", f"--plot={tmp_path}/towers.png"
    )
    assert result.returncode != 0
    assert "--plot needs --throughput" in result.stderr
    assert os.listdir(tmp_path) == []
