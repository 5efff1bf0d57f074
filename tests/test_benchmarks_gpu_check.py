"""benchmarks/gpu_check.py's CPU form: it runs every row, prints the table, exits 0."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SECTIONS = ["resident", "placement", "scaling", "input"]
NO_COPY = "n/a on CPU: no host->device copies exist"


@pytest.fixture(scope="module")
def run():
    """One `--quick` run of the script as a file, as a lent machine runs it."""
    environment = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    return subprocess.run(
        [sys.executable, os.path.join("benchmarks", "gpu_check.py"), "--quick"],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=1500,
        check=False,
    )


def _rows(output, section):
    """The table's rows of one section, as lists of cells."""
    prefix = f"| {section} |"
    return [
        [cell.strip() for cell in line.strip("|").split("|")]
        for line in output.splitlines()
        if line.startswith(prefix)
    ]


@pytest.mark.slow
def test_exits_0_with_one_table(run):
    assert run.returncode == 0, run.stderr[-3000:]
    assert "| section | what | device(s) | result | status |" in run.stdout


@pytest.mark.slow
@pytest.mark.parametrize("section", SECTIONS)
def test_every_section_has_rows_and_none_failed(run, section):
    rows = _rows(run.stdout, section)
    assert rows, run.stdout
    assert not [r for r in rows if r[4] in ("FAILED", "MISPLACED")], rows


@pytest.mark.slow
def test_resident_rows_measure_edges_and_say_copies_need_a_gpu(run):
    rows = {(r[1], r[2]): r for r in _rows(run.stdout, "resident")}
    for device in ("/cpu:1 alone", "/cpu:1 of 2", "/cpu:2 of 2"):
        host = rows["host from_tensor_slices, per example", device]
        model = rows["device_array_dataset, gather in the model", device]
        assert "graph edges in 8192 B/step" in host[3]  # 8 x 256 float32.
        assert "graph edges in 64 B/step" in model[3]  # 8 int64 starts.
        assert host[4] == model[4] == NO_COPY


@pytest.mark.slow
def test_placement_rows_name_each_device(run):
    rows = _rows(run.stdout, "placement")
    for row in rows:
        assert row[3].endswith(f"ran on {row[2]}") or row[3].endswith(row[2])
    assert {r[2] for r in rows} == {"/cpu:1", "/cpu:2"}
    assert len({r[1] for r in rows}) == 3


@pytest.mark.slow
def test_rows_that_need_a_gpu_say_so(run):
    scaling = _rows(run.stdout, "scaling")
    assert all(r[4].startswith("n/a on CPU") for r in scaling if r[3] != "not run")
    assert ["all physical GPUs", "needs several GPUs"] == [
        scaling[-1][1],
        scaling[-1][4].split(";")[0],
    ]
    for row in _rows(run.stdout, "input"):
        assert "input-bound share" in row[3] and row[4].endswith(NO_COPY)


def test_without_tensorflow_it_says_what_to_install(tmp_path):
    fake = tmp_path / "tensorflow"
    fake.mkdir()
    (fake / "__init__.py").write_text("raise ImportError('no TensorFlow here')\n")
    done = subprocess.run(
        [sys.executable, os.path.join("benchmarks", "gpu_check.py")],
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(tmp_path)),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stderr[-2000:]
    assert "The GPU check needs TensorFlow" in done.stdout
    assert "pip install 'tensorflow[and-cuda]'" in done.stdout
