"""A two-file program whose entry file makes its session before the other
file's towers resolve their devices (tests/legacy_corpus/flag_towers_program):
--fix resolves them from the flag where the flags are parsed, and wraps the
session config, so tower i runs on device i rather than all on one CPU."""

import ast
import shutil

import pytest
from migrate_helpers import CORPUS, expected_findings, run_script

from estimator_multigpu.migrate import _flag_devices, _queue_program, _runner

PROGRAM = CORPUS / "flag_towers_program"
FILES = ("main.py", "model.py")


def _program(tmp_path, main=None):
    for name in FILES:
        shutil.copy(PROGRAM / name, tmp_path / name)
    if main is not None:
        (tmp_path / "main.py").write_text(main)
    results = _queue_program.process_all([str(tmp_path / n) for n in FILES])
    return {name: r for name, r in zip(FILES, results)}


@pytest.mark.parametrize("name", FILES)
def test_scan_reports_what_the_markers_say(name):
    result = _runner.process(str(PROGRAM / name))
    found = sorted((f.line, f.rule.rule_id) for f in result.findings)
    assert found == expected_findings(PROGRAM / name)


def test_the_entry_file_resolves_the_flag_where_the_flags_are_parsed(tmp_path):
    main = _program(tmp_path)["main.py"].rewritten
    assert (
        "    args = parse_args()\n"
        "    if args is None:\n"
        "        exit()\n"
        "    emg.devices.resolve(num_gpus=args.num_gpus)\n"
        "    config = tf.ConfigProto(allow_soft_placement=True)\n"
        "    with tf.Session(config=emg.devices.session_config(config)) as sess:\n"
    ) in main
    assert "import estimator_multigpu as emg\n" in main


def test_alone_the_entry_file_gets_no_devices(tmp_path):
    shutil.copy(PROGRAM / "main.py", tmp_path / "main.py")
    (result,) = _queue_program.process_all([str(tmp_path / "main.py")])
    assert "session_config(" not in result.rewritten


def test_a_flag_named_otherwise_is_left(tmp_path):
    main = (PROGRAM / "main.py").read_text().replace('"--num_gpus"', '"--gpus"')
    rewritten = _program(tmp_path, main)["main.py"].rewritten
    assert "session_config(" not in rewritten


def test_fix_twice_changes_nothing(tmp_path):
    first = _program(tmp_path)
    for name in FILES:
        (tmp_path / name).write_text(first[name].rewritten)
    again = _queue_program.process_all([str(tmp_path / n) for n in FILES])
    for name, result in zip(FILES, again):
        assert result.rewritten in (None, first[name].rewritten), name


def test_counts_and_flags_are_read_by_name():
    source = "d = emg.devices.resolve(num_gpus=self.gpu_num)\nemg.devices.resolve(num_gpus=2)\n"
    assert _flag_devices.resolved_counts(source) == {"gpu_num"}
    tree = ast.parse(
        "p.add_argument('--gpu_num', type=int)\n"
        "p.add_argument('--batch-size', type=int)\n"
        "p.add_argument('-n', dest='workers')\n"
    )
    assert _flag_devices.flags(tree) == {"gpu_num", "batch_size", "workers"}


@pytest.mark.slow
@pytest.mark.parametrize("num_gpus", [2, 1])
def test_the_rewritten_program_runs_tower_i_on_device_i(tmp_path, num_gpus):
    fixed = _program(tmp_path)
    for name in FILES:
        (tmp_path / name).write_text(fixed[name].rewritten)
    proc = run_script(str(tmp_path / "main.py"), f"--num_gpus={num_gpus}", timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    ran = [f"device:CPU:{i}" for i in range(num_gpus)]
    assert proc.stdout.splitlines()[-2:] == ["improved True", f"ran on {ran}"]
