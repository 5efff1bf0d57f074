"""`EMG_NUM_GPUS`: an unchanged single-device Estimator program on N devices."""

from __future__ import annotations

import pytest

from estimator_multigpu.estimator import RunConfig
from tests import migrate_helpers, test_migrate_canned
from tests.conftest import ALL_DEVICES


@pytest.mark.parametrize("count", [1, 2, 4])
def test_the_variable_replicates_a_config_that_names_no_devices(monkeypatch, count):
    monkeypatch.setenv("EMG_NUM_GPUS", str(count))
    assert RunConfig().compute_devices == ALL_DEVICES[:count]


@pytest.mark.parametrize("value", ["", "  "])
def test_unset_or_empty_replicates_nothing(monkeypatch, value):
    monkeypatch.setenv("EMG_NUM_GPUS", value)
    assert RunConfig().compute_devices is None


def test_devices_named_in_the_program_win(monkeypatch):
    monkeypatch.setenv("EMG_NUM_GPUS", "4")
    assert RunConfig(num_gpus=1).compute_devices == ALL_DEVICES[:1]
    assert RunConfig(devices=ALL_DEVICES[1:3]).compute_devices == ALL_DEVICES[1:3]
    assert RunConfig().replace(num_gpus=2).compute_devices == ALL_DEVICES[:2]


@pytest.mark.parametrize("value", ["two", "-1", "1.5"])
def test_a_bad_value_names_the_variable_and_the_fix(monkeypatch, value):
    monkeypatch.setenv("EMG_NUM_GPUS", value)
    with pytest.raises(
        ValueError,
        match=rf"EMG_NUM_GPUS must be a whole number .*'{value}'.*EMG_NUM_GPUS=2",
    ):
        RunConfig()


@pytest.mark.slow
def test_a_fixed_premade_script_trains_on_two_simulated_devices(tmp_path):
    (tmp_path / "data").mkdir()
    test_migrate_canned.write_iris_like(tmp_path / "data")
    path = migrate_helpers.rewrite("premade_dnn_classifier.py", tmp_path)
    proc = migrate_helpers.run_script(
        path,
        tmp_path / "data",
        tmp_path / "model",
        EMG_NUM_GPUS="2",
        TF_CPP_MIN_LOG_LEVEL="0",
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "simulating 2 logical devices" in proc.stderr
