"""After `--fix`, every finding is either rewritten or still reported on the new text."""

import ast
import collections

import pytest
from migrate_helpers import CORPUS, CORPUS_FILES

from estimator_multigpu.migrate import _report, _runner, scan_tree

# A tutorial-style eval loop: the Coordinator stops the queue runners' threads
# that the QUEUE_RUNNERS loop starts; --fix removes the queues and the loop.
COORDINATED_EVAL = """\
import tensorflow.compat.v1 as tf


def inputs(filenames, batch_size):
    filename_queue = tf.train.string_input_producer(filenames, num_epochs=1)
    reader = tf.TFRecordReader()
    _, value = reader.read(filename_queue)
    image = tf.io.parse_tensor(value, tf.float32)
    return tf.train.batch([image], batch_size=batch_size)


def evaluate(filenames):
    with tf.Graph().as_default():
        images = inputs(filenames, 4)
        with tf.Session() as sess:
            coord = tf.train.Coordinator()
            try:
                threads = []
                for qr in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS):
                    threads.extend(qr.create_threads(sess, coord=coord, start=True))
                while not coord.should_stop():
                    sess.run(images)
            except Exception as e:
                coord.request_stop(e)
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)
"""
# Flags read through a module-level alias of a TF 1.x name.
FLAG_ALIAS = """\
import tensorflow as tf

FLAGS = tf.app.flags.FLAGS
tf.app.flags.DEFINE_integer("steps", 3, "Steps.")


def main(_):
    for _ in range(FLAGS.steps):
        print(FLAGS.steps)
"""


def _fixed_and_rescanned(path):
    result = _runner.process(str(path))
    new = result.rewritten if result.rewritten is not None else result.original
    return result, scan_tree(ast.parse(new), new, str(path))


def _left(findings):
    return collections.Counter((f.api, f.rule.rule_id) for f in findings)


def _check(path):
    result, again = _fixed_and_rescanned(path)
    dropped = _left(result.remaining) - _left(again)
    assert not dropped, (
        f"reported before --fix, neither fixed nor reported after: {dropped}"
    )


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_corpus_findings_survive_the_fix(name):
    _check(CORPUS / name)


@pytest.mark.parametrize(
    "source", [COORDINATED_EVAL, FLAG_ALIAS], ids=["coordinator", "flag_alias"]
)
def test_snippet_findings_survive_the_fix(tmp_path, source):
    path = tmp_path / "a.py"
    path.write_text(source)
    _check(path)


def test_coordinator_left_by_the_fix_is_reported_as_idle(tmp_path):
    path = tmp_path / "a.py"
    path.write_text(COORDINATED_EVAL)
    result = _runner.process(str(path))
    _runner.write(result, backup=False)
    out = _report.as_text([result])
    assert ":16:21: queue-runner [manual] `tf.train.Coordinator`" in out
    again = _report.as_text([_runner.process(str(path))])
    assert "queue-runner [manual] `tf.train.Coordinator`" in again
    assert (
        "a Coordinator with no queue runners or Python threads to coordinate" in again
    )


def test_flags_read_through_an_alias_are_not_findings(tmp_path):
    path = tmp_path / "a.py"
    path.write_text(FLAG_ALIAS)
    lines = [f.line for f in _runner.process(str(path)).findings]
    assert lines == [1]
