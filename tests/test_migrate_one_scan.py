"""One scan for every caller: `emg.migrate.scan_tree`, `runner.process` and the CLI agree."""

import ast
import json

import pytest
from migrate_helpers import CORPUS, CORPUS_FILES, run_cli

import estimator_multigpu as emg

SOURCE = """\
import tensorflow as tf

tf.logging.set_verbosity(tf.logging.INFO)
tf.summary.scalar("loss", 1.0)
images, labels = tf.train.shuffle_batch([1, 2], batch_size=8, capacity=32,
                                        min_after_dequeue=16)
"""


def _keys(findings):
    return [(f.line, f.col, f.api, f.rule.rule_id) for f in findings]


def test_scan_tree_reports_the_passes_findings():
    found = emg.migrate.scan_tree(ast.parse(SOURCE), SOURCE, "snippet.py")
    rule_ids = {f.rule.rule_id for f in found}
    assert {"compat-v1", "summary-v1"} <= rule_ids, rule_ids


@pytest.mark.parametrize("name", ["snippet"] + CORPUS_FILES)
def test_scan_tree_matches_process(name, tmp_path):
    if name == "snippet":
        path = tmp_path / "snippet.py"
        path.write_text(SOURCE)
    else:
        path = CORPUS / name
    source = path.read_text()
    found = emg.migrate.scan_tree(ast.parse(source), source, str(path))
    assert _keys(found) == _keys(emg.migrate.process(str(path)).findings)


def test_scan_tree_matches_the_cli(tmp_path):
    path = tmp_path / "snippet.py"
    path.write_text(SOURCE)
    out = run_cli(path, "--format=json")
    cli = json.loads(out.stdout)["files"][0]["findings"]
    found = emg.migrate.scan_tree(ast.parse(SOURCE), SOURCE, str(path))
    assert [(f["line"], f["col"], f["api"], f["rule"]) for f in cli] == _keys(found)
