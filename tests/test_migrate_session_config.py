"""--fix wraps explicit session configs where the file resolves devices.

A session built from its own ConfigProto sees one CPU, so after `--fix`
writes `emg.devices.resolve(num_gpus=n)` (which simulates the devices on a
machine without GPUs) tower 1 would still run on /cpu:0. Each explicit
config becomes `emg.devices.session_config(config)`.
"""

import ast
import textwrap

import pytest
from migrate_helpers import CORPUS, assert_guide_anchor, parse_ok, rewrite, script_lines

from estimator_multigpu.migrate import (
    _aliases,
    _fixer,
    _passes,
    _runner,
    _scanner,
    _session_config,
)
from estimator_multigpu.migrate._edits import Offsets, apply

CORPUS_SCRIPT = "tower_loop_session_config.py"
HEAD = """\
import estimator_multigpu as emg
import tensorflow.compat.v1 as tf

emg.devices.simulate(2)
c = tf.ConfigProto(allow_soft_placement=True)
"""


def fix(source: str):
    """(new text, findings) of `--fix` on `source`."""
    source = textwrap.dedent(source)
    tree = ast.parse(source)
    findings = _passes.scan(
        tree, source, "snippet.py", _scanner.scan_rules(tree, source, "snippet.py")
    )
    new = _fixer.fix(source, tree, findings).source
    assert parse_ok(new)
    return new, findings


def _configs(findings):
    return [f for f in findings if f.rule.rule_id == "session-config"]


WRAPPED = [
    ("tf.Session(config=c)", "tf.Session(config=emg.devices.session_config(c))"),
    ("tf.Session('', None, c)", "tf.Session('', None, emg.devices.session_config(c))"),
    (
        "tf.compat.v1.Session(config=c)",
        "tf.compat.v1.Session(config=emg.devices.session_config(c))",
    ),
    (
        "tf.InteractiveSession(config=c)",
        "tf.InteractiveSession(config=emg.devices.session_config(c))",
    ),
    (
        "tf.train.MonitoredTrainingSession(checkpoint_dir='/tmp/x', config=c)",
        "tf.train.MonitoredTrainingSession(checkpoint_dir='/tmp/x', "
        "config=emg.devices.session_config(c))",
    ),
    (
        "tf.compat.v1.train.MonitoredTrainingSession('', True, None, None, None, "
        "None, 600, 100, None, c)",
        "tf.compat.v1.train.MonitoredTrainingSession('', True, None, None, None, "
        "None, 600, 100, None, emg.devices.session_config(c))",
    ),
    (
        "tf.train.ChiefSessionCreator(config=c)",
        "tf.train.ChiefSessionCreator(config=emg.devices.session_config(c))",
    ),
    (
        "tf.train.WorkerSessionCreator(None, '', c)",
        "tf.train.WorkerSessionCreator(None, '', emg.devices.session_config(c))",
    ),
    (
        "tf.train.SingularMonitoredSession(config=c)",
        "tf.train.SingularMonitoredSession(config=emg.devices.session_config(c))",
    ),
    (
        "tf.train.Server(cluster, 'worker', 0, 'grpc', c)",
        "tf.train.Server(cluster, 'worker', 0, 'grpc', emg.devices.session_config(c))",
    ),
    (
        "tf.contrib.slim.learning.train(op, '/tmp/x', session_config=c)",
        "tf.contrib.slim.learning.train(op, '/tmp/x', "
        "session_config=emg.devices.session_config(c))",
    ),
    (
        "tf.train.Supervisor(logdir='/tmp/x').managed_session(config=c)",
        "tf.train.Supervisor(logdir='/tmp/x').managed_session("
        "config=emg.devices.session_config(c))",
    ),
]


@pytest.mark.parametrize("call, expected", WRAPPED, ids=[w[0] for w in WRAPPED])
def test_each_session_api_gets_its_config_wrapped(call, expected):
    new, findings = fix(HEAD + f"s = {call}\n")
    assert new.endswith(f"s = {expected}\n")
    (finding,) = _configs(findings)
    assert finding.fixed
    assert "sees one CPU" in finding.rule.summary
    assert fix(new)[0] == new  # never wrapped twice


def test_supervisor_methods_on_a_name_get_their_config_wrapped():
    new, _ = fix(
        HEAD + "sv = tf.train.Supervisor(logdir='/tmp/x')\n"
        "a = sv.managed_session('', c)\n"
        "b = sv.prepare_or_wait_for_session(config=c)\n"
        "d = other.managed_session(config=c)\n"
    )
    assert "a = sv.managed_session('', emg.devices.session_config(c))\n" in new
    assert "sv.prepare_or_wait_for_session(config=emg.devices.session_config(c))" in new
    assert "d = other.managed_session(config=c)\n" in new


def test_run_config_renamed_to_emg_is_fixed_without_a_wrap():
    # emg.estimator.RunConfig applies session_config itself.
    for source, kept in [
        ("r = tf.estimator.RunConfig(model_dir='/tmp/x', session_config=c)\n",
         "r = emg.estimator.RunConfig(model_dir='/tmp/x', session_config=c)\n"),
        ("RC = tf.estimator.RunConfig\nr = RC(session_config=c)\n",
         "RC = emg.estimator.RunConfig\nr = RC(session_config=c)\n"),
    ]:  # fmt: skip
        new, findings = fix(HEAD + source)
        assert new.endswith(kept)
        (finding,) = _configs(findings)
        assert finding.fixed


def test_a_real_tf_estimator_run_config_gets_its_config_wrapped():
    # Where no rewrite renamed it (it stays tf.estimator's), the pass wraps it.
    source = HEAD + "r = tf.estimator.RunConfig(None, None, 100, None, None, c)\n"
    tree = ast.parse(source)
    findings = _passes.scan(
        tree, source, "a.py", _scanner.scan_rules(tree, source, "a.py")
    )
    table = _aliases.AliasTable(tree)
    off = Offsets(source)
    edits = _session_config.edits(tree, table, off, findings, [], "emg")
    assert apply(source, edits).endswith(
        "RunConfig(None, None, 100, None, None, emg.devices.session_config(c))\n"
    )
    assert _configs(findings)[0].fixed


def test_no_config_and_none_are_left_alone():
    source = HEAD + "a = tf.Session()\nb = tf.Session(config=None)\n"
    new, findings = fix(source)
    assert new == source
    assert not _configs(findings)


def test_a_file_that_resolves_no_devices_keeps_its_configs():
    source = (
        "import tensorflow.compat.v1 as tf\ns = tf.Session(config=tf.ConfigProto())\n"
    )
    new, findings = fix(source)
    assert "session_config" not in new
    assert not _configs(findings)


def test_tower_loop_script_gets_the_import_and_both_sessions_wrapped():
    result = _runner.process(str(CORPUS / CORPUS_SCRIPT))
    new = result.rewritten
    assert new.count("emg.devices.resolve(") == 1
    assert "\nimport estimator_multigpu as emg\n" in new
    assert (
        "tf.Session(config=emg.devices.session_config("
        "tf.ConfigProto(allow_soft_placement=True))) as sess:" in new
    )
    assert "MonitoredTrainingSession(config=emg.devices.session_config(config))" in new
    lines = (CORPUS / CORPUS_SCRIPT).read_text().splitlines()
    found = _configs(result.findings)
    assert [lines[f.line - 1].strip().split("(")[0] for f in found] == [
        "with tf.Session",
        "with tf.train.MonitoredTrainingSession",
    ]
    assert all(f.fixed for f in found)
    again = _runner.process(str(CORPUS / CORPUS_SCRIPT))
    assert again.rewritten == new


@pytest.mark.slow
def test_rewritten_tower_loop_runs_tower_1_on_cpu_1(tmp_path):
    path = rewrite(CORPUS_SCRIPT, tmp_path)
    out = script_lines([(mode, path, ["2", mode]) for mode in ("session", "monitored")])
    for mode, lines in out.items():
        assert "step 2" in " ".join(lines), (mode, lines)
        assert [x for x in lines if "MatMul ran on" in x] == [
            "tower_1 MatMul ran on CPU:1"
        ], (mode, lines)


def test_the_rule_links_to_its_guide_section():
    assert_guide_anchor(_session_config.RULE.guide.split("#")[1])
