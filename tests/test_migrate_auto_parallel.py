"""Grappler AutoParallel settings: reported, pointing to towers, and left as they are."""

from migrate_helpers import CORPUS, run_script

from estimator_multigpu.migrate import _runner

_SCRIPT = "grappler_auto_parallel.py"


def test_each_setting_points_to_towers_and_stays():
    result = _runner.process(str(CORPUS / _SCRIPT))
    found = [f for f in result.findings if f.rule.rule_id == "auto-parallel"]
    assert [f.line for f in found] == [15, 16, 17]
    assert not any(f.fixed for f in found)
    assert "emg.replicate_model_fn(model_fn, devices=emg.devices.resolve(" in (
        found[0].rule.replacement
    )
    assert "emg.towers.minimize" in found[0].rule.replacement
    assert "AutoParallelOptions(enable=True, num_replicas=num_replicas)" in (
        result.rewritten
    )


def test_the_fixed_script_trains(tmp_path):
    path = tmp_path / _SCRIPT
    path.write_text((CORPUS / _SCRIPT).read_text())
    _runner.write(_runner.process(str(path)), backup=False)
    proc = run_script(path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "improved True" in proc.stdout
