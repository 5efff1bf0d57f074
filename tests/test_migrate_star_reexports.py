"""A file with no TensorFlow import of its own whose `tf` comes through a star
import of another file of the program (tests/legacy_corpus/star_export_program):
the scan reports its TF 1.x names, and --fix imports tf.compat.v1 after the
star imports, so the file no longer depends on which module exported `tf` last."""

import shutil

import pytest
from migrate_helpers import CORPUS, expected_findings, run_cli, run_script

from estimator_multigpu.migrate import _runner

PROGRAM = CORPUS / "star_export_program"
FILES = ("layers_v1.py", "metrics_v2.py", "train.py")


def _fix(source: str, tmp_path, name="train.py") -> _runner.FileResult:
    path = tmp_path / name
    path.write_text(source)
    return _runner.process(str(path))


@pytest.mark.parametrize("name", FILES)
def test_scan_reports_what_the_markers_say(name):
    result = _runner.process(str(PROGRAM / name))
    assert result.error is None
    found = sorted((f.line, f.rule.rule_id) for f in result.findings)
    assert found == expected_findings(PROGRAM / name)


def test_the_finding_names_the_star_import_and_the_tf1_names():
    (f,) = _runner.process(str(PROGRAM / "train.py")).findings
    assert f.rule.fixable
    assert "`tf` reaches this file through `from metrics_v2 import *`" in f.text
    assert "tf.app (line 7, 27)" in f.text and "tf.placeholder (line 13, 14)" in f.text


def test_fix_imports_compat_v1_after_the_last_star_import():
    result = _runner.process(str(PROGRAM / "train.py"))
    assert result.rewritten.splitlines()[3:7] == [
        "from layers_v1 import *",
        "from metrics_v2 import *  # expect: compat-v1",
        "import tensorflow.compat.v1 as tf",
        "tf.disable_v2_behavior()",
    ]
    assert all(f.fixed for f in result.findings)


def test_fix_twice_changes_nothing(tmp_path):
    once = _runner.process(str(PROGRAM / "train.py")).rewritten
    again = _fix(once, tmp_path)
    assert again.findings == [] and again.rewritten in (None, once)


STAR_CONTRIB = """\
from models import *

x = tf.placeholder(tf.float32, [None, 2])
with tf.variable_scope("test") as vs:
    w = tf.get_variable("w", [2])
names = tf.contrib.framework.get_variables(vs)
"""


def test_other_rules_read_the_star_imported_tf_in_the_same_fix(tmp_path):
    # `tf` is TensorFlow (it reads TF 1.x names through the star import), so
    # its contrib name is found and fixed in the first --fix, not only after
    # the compat.v1 import the port adds.
    result = _fix(STAR_CONTRIB, tmp_path)
    contrib = [f for f in result.findings if f.api.startswith("tf.contrib")]
    assert [f.api for f in contrib] == ["tf.contrib.framework.get_variables"]
    assert all(f.fixed for f in result.findings), result.notes
    assert "names = tf_slim.get_variables(vs)" in result.rewritten
    assert "import tensorflow.compat.v1 as tf\n" in result.rewritten
    again = _fix(result.rewritten, tmp_path, "again.py")
    assert again.findings == [] and again.rewritten in (None, result.rewritten)


@pytest.mark.parametrize(
    "source",
    [
        # No star import: a free `tf` is the file's own NameError, not a port.
        "def f():\n    return tf.placeholder(tf.float32)\n",
        # A star import of TensorFlow itself is the star-import rule's.
        "from tensorflow import *\nx = tf.placeholder(tf.float32)\n",
        # `tf` bound in the file (its own import) is the compat-v1 rule's.
        "from helpers import *\nimport tensorflow.compat.v1 as tf\nx = tf.placeholder(1)\n",
        # Only names TF 2 keeps: nothing to port.
        "from helpers import *\nx = tf.reduce_mean(tf.square(y))\n",
    ],
)
def test_other_shapes_get_no_star_export_finding(source, tmp_path):
    result = _fix(source, tmp_path)
    assert not [f for f in result.findings if f.api == "tf (through a star import)"]


@pytest.mark.slow
def test_fixed_program_trains_on_tf2(tmp_path):
    program = tmp_path / "program"
    shutil.copytree(PROGRAM, program)
    before = run_script(program / "train.py", cwd=program, pythonpath=program)
    assert "has no attribute 'app'" in before.stderr
    fixed = run_cli(str(program), "--fix", "--no-backup")
    assert "0 remaining" in fixed.stdout, fixed.stdout
    after = run_script(program / "train.py", cwd=program, pythonpath=program)
    assert after.returncode == 0, after.stderr[-2000:]
    assert after.stdout.splitlines()[-1] == "done"
    assert after.stdout.count(" loss ") == 3
