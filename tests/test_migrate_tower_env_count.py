"""A tower count written in the code takes EMG_NUM_GPUS after --fix.

A TF1 tower loop over a constant (`num_gpus = 2`, or `range(2)`) was edited
by hand for each machine; `--fix` resolves its devices through
`emg.devices.env_num_gpus(<count>)`, so `EMG_NUM_GPUS=1` runs the unchanged
program on one device. A count chosen at run time (a flag, `sys.argv`, a
parameter) is left as the program reads it.
"""

import pytest
from migrate_helpers import CORPUS, rewrite, run_script
from test_migrate_tower_hoist import QUEUE_TOWERS, fix

from estimator_multigpu import devices
from estimator_multigpu.migrate import _runner

_ENV = "devices = emg.devices.resolve(num_gpus=emg.devices.env_num_gpus(num_gpus))\n"
_PLAIN = "devices = emg.devices.resolve(num_gpus=num_gpus)\n"


def _module_level(count_line: str) -> str:
    """QUEUE_TOWERS's training body at module level, after `count_line`."""
    body = QUEUE_TOWERS[QUEUE_TOWERS.index("        global_step = ") :]
    body = body[: body.index("if __name__")]
    head = QUEUE_TOWERS[: QUEUE_TOWERS.index("def train(")]
    lines = [
        line[8:] if line.startswith("        ") else line for line in body.split("\n")
    ]
    return head + count_line + "data_dir = '.'\n" + "\n".join(lines)


def test_a_module_constant_count_reads_the_environment():
    assert _ENV in fix(_module_level("num_gpus = 2\n"))


@pytest.mark.parametrize(
    "count_line",
    [
        "num_gpus = int(sys.argv[2])\n",
        "num_gpus = 2\nif len(sys.argv) > 2:\n    num_gpus = int(sys.argv[2])\n",
    ],
    ids=["from_argv", "reassigned"],
)
def test_a_count_chosen_at_run_time_is_kept(count_line):
    new = fix(_module_level(count_line))
    assert _PLAIN in new
    assert "env_num_gpus" not in new


def test_a_parameter_named_like_a_module_constant_is_kept():
    # QUEUE_TOWERS's train(data_dir, num_gpus): the parameter is the count.
    new = fix("num_gpus = 2\n" + QUEUE_TOWERS)
    assert "    " + _PLAIN in new
    assert "env_num_gpus" not in new


def test_the_sliced_corpus_loop_keeps_its_argv_count():
    new = _runner.process(str(CORPUS / "tower_loop_slices.py")).rewritten
    assert _PLAIN in new and "env_num_gpus" not in new


@pytest.mark.parametrize(
    "value, want", [(None, 2), ("", 2), ("1", 1), (" 3 ", 3), ("0", 0)]
)
def test_env_num_gpus(monkeypatch, value, want):
    if value is None:
        monkeypatch.delenv(devices.NUM_GPUS_ENV, raising=False)
    else:
        monkeypatch.setenv(devices.NUM_GPUS_ENV, value)
    assert devices.env_num_gpus(2) == want


@pytest.mark.parametrize("value", ["two", "-1", "2.0", "\u00b2", "\u0663"])
def test_env_num_gpus_refuses_a_non_count(monkeypatch, value):
    monkeypatch.setenv(devices.NUM_GPUS_ENV, value)
    with pytest.raises(ValueError, match="EMG_NUM_GPUS must be a whole number"):
        devices.env_num_gpus(2)


@pytest.mark.parametrize(
    "default, error, match",
    [
        ("2", TypeError, r"must be an int; received '2' \(str\)"),
        (2.0, TypeError, r"received 2\.0 \(float\)"),
        (True, TypeError, r"received True \(bool\)"),
        (None, TypeError, r"received None"),
        (-1, ValueError, r"must be 0 or more; received -1"),
    ],
)
def test_env_num_gpus_refuses_a_default_that_is_no_count(
    monkeypatch, default, error, match
):
    # Refused whether or not the variable is set: the code's own count is wrong.
    for value in (None, "1"):
        if value is None:
            monkeypatch.delenv(devices.NUM_GPUS_ENV, raising=False)
        else:
            monkeypatch.setenv(devices.NUM_GPUS_ENV, value)
        with pytest.raises(error, match=match):
            devices.env_num_gpus(default)


@pytest.mark.slow
def test_constant_count_runs_on_one_or_two_devices_from_the_environment(tmp_path):
    name = "tower_loop_after_mnist_read.py"
    result = _runner.process(str(CORPUS / name))
    assert [f.api for f in result.findings if not f.fixed] == []
    path = rewrite(name, tmp_path)
    warning = "simulating 2 logical devices on the CPU"
    runs = {}
    for n in ("1", "2"):
        proc = run_script(path, tmp_path, CUDA_VISIBLE_DEVICES="", EMG_NUM_GPUS=n)
        assert proc.returncode == 0, proc.stderr[-3000:]
        runs[n] = proc
    assert warning not in runs["1"].stderr
    assert "/device:CPU:1" not in runs["1"].stdout
    assert runs["2"].stderr.count(warning) == 1
    assert "/device:CPU:1" in runs["2"].stdout
