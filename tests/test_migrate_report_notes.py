"""The report keeps notes that leave work apart from those that say what was not rewritten."""

import json

from estimator_multigpu.migrate import _report, _runner

LEGACY = "import tensorflow as tf\n\nx = tf.train.batch([1], batch_size=2)\n"
# What tf_upgrade_v2 makes of LEGACY (given here: no TensorFlow needed).
UPGRADED = (
    "import tensorflow as tf\n\nx = tf.compat.v1.train.batch([1], batch_size=2)\n"
)


def _process(tmp_path, upgraded):
    path = tmp_path / "a.py"
    path.write_text(LEGACY)
    return _runner.process(str(path), upgraded=upgraded)


def test_upgrade_v2_is_a_plain_note(tmp_path):
    result = _process(tmp_path, UPGRADED)
    out = _report.as_text([result])
    note = "tf_upgrade_v2 renamed TF 1.x names first; lines refer to its output"
    assert f"a.py: note: {note}\n" in out
    assert "not rewritten: tf_upgrade_v2" not in out


def test_unparsable_upgrade_output_is_a_plain_note(tmp_path):
    result = _process(tmp_path, "def (:\n")
    out = _report.as_text([result])
    assert "a.py: note: tf_upgrade_v2 output does not parse (" in out
    assert "not rewritten: tf_upgrade_v2" not in out


def test_json_keeps_notes_and_info_apart(tmp_path):
    result = _process(tmp_path, UPGRADED)
    (doc,) = json.loads(_report.as_json([result]))["files"]
    assert [i["text"] for i in doc["info"]] == [
        "tf_upgrade_v2 renamed TF 1.x names first; lines refer to its output"
    ]
    assert all("tf_upgrade_v2" not in n["reason"] for n in doc["notes"])


def test_left_to_do_is_still_not_rewritten(tmp_path):
    path = tmp_path / "a.py"
    path.write_text(
        "import tensorflow as tf\n\ns = tf.Session()\ng = tf.autodiff.ForwardAccumulator\n"
        "tf.summary.scalar('loss', 1.0)\n"
    )
    out = _report.as_text([_runner.process(str(path))])
    assert "a.py:1: note: not rewritten: compat.v1 import not switched: " in out
