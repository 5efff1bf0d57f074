"""Queue-runner starters go only when every queue of the program is rewritten.

The program in legacy_corpus/eval_program is two files: records_input.py
makes a queue chain that --fix cannot rewrite (a summary of each example),
records_eval.py starts its runners with a QUEUE_RUNNERS loop. Dropping the
loop while that queue is left makes the eval script block forever.
"""

import shutil

import pytest
from migrate_helpers import CORPUS, fix_snippet, run_script

from estimator_multigpu.migrate import (
    _queue_program,
    _runner,
)
from estimator_multigpu.migrate.__main__ import main

PROGRAM = CORPUS / "eval_program"
SUMMARY = '    tf.summary.image("example", image[None])\n'
LOOP = "for qr in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS):"


@pytest.fixture
def program(tmp_path):
    """A copy of the two-file program."""
    shutil.copytree(PROGRAM, tmp_path / "program")
    return tmp_path / "program"


def _rewritable(program):
    """Makes records_input's chain rewritable (drops the per-example summary)."""
    path = program / "records_input.py"
    path.write_text(path.read_text().replace(SUMMARY, ""))


def _starters(results):
    return {
        f.api: f
        for r in results
        for f in r.findings
        if f.api in ("tf.GraphKeys.QUEUE_RUNNERS loop", "tf.train.Coordinator")
    }


def test_loop_stays_while_another_file_keeps_a_queue(program, capsys):
    assert main([str(program), "--fix"]) == 1
    out = capsys.readouterr().out
    assert LOOP in (program / "records_eval.py").read_text()
    where = f"{program / 'records_input.py'}:25"
    assert (
        f"records_eval.py:19: note: not rewritten: queue-runner loop kept: "
        f"`tf.train.string_input_producer` at {where} is still a queue" in out
    )
    assert "the input is tf.data now" not in out


def test_starter_findings_name_the_queue_left(program):
    results = _queue_program.process_all(_runner.collect([str(program)]))
    starters = _starters(results)
    for f in starters.values():
        assert not f.fixed
        assert "kept: `tf.train.string_input_producer` at" in f.rule.summary
        assert "records_input.py:25 is still a queue" in f.rule.summary
        assert f.rule.replacement.startswith("keep it while that queue is left")


def test_loop_goes_when_every_file_is_rewritten(program, capsys):
    _rewritable(program)
    main([str(program), "--fix"])
    out = capsys.readouterr().out
    assert LOOP not in (program / "records_eval.py").read_text()
    assert "emg.inputs.queues.get_next(" in (program / "records_input.py").read_text()
    assert "kept:" not in out


def test_one_file_alone_cannot_know_and_drops_the_loop(program):
    # Given the eval script alone, no queue is in sight: the loop goes. The
    # CLI given both files (above) keeps it.
    result = _runner.process(str(program / "records_eval.py"))
    assert LOOP not in result.rewritten


SAME_FILE = """\
import tensorflow.compat.v1 as tf


def evaluate(files):
    q = tf.train.string_input_producer(files, num_epochs=1)
    reader = tf.TextLineReader()
    _, line = reader.read(q)
    tf.summary.scalar("length", tf.strings.length(line))
    lines = tf.train.batch([line], batch_size=2)
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = []
        for qr in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS):
            threads.extend(qr.create_threads(sess, coord=coord, start=True))
        sess.run(lines)
"""


def _fix(source):
    return fix_snippet(source, "eval.py")


def test_loop_stays_while_the_same_file_keeps_a_queue():
    result, findings = _fix(SAME_FILE)
    assert LOOP in result.source
    assert (
        13,
        "queue-runner loop kept: `tf.train.string_input_producer` at eval.py:5 "
        "is still a queue (and 2 more); its threads must start",
    ) in result.notes
    (loop,) = [f for f in findings if f.api.endswith("QUEUE_RUNNERS loop")]
    assert not loop.fixed


def test_an_ignored_queue_keeps_the_loop(tmp_path):
    source = SAME_FILE.replace(
        '    tf.summary.scalar("length", tf.strings.length(line))\n', ""
    )
    path = tmp_path / "eval.py"
    path.write_text(source)
    assert LOOP not in _runner.process(str(path)).rewritten
    ignored = source.replace(
        "    with tf.Session()",
        "    side = tf.FIFOQueue(4, tf.int32)  # emg-migrate: ignore[queue]\n"
        "    print(side.size())\n"
        "    with tf.Session()",
    )
    path.write_text(ignored)
    result = _runner.process(str(path))
    assert "emg.inputs.queues.get_next(" in result.rewritten
    assert LOOP in result.rewritten
    assert [f.api for f in result.queues] == ["tf.FIFOQueue"]


def _run(script, data, mode):
    """The eval script's output lines (fails after 120 s: it blocked)."""
    data.mkdir()
    proc = run_script(script, data, mode=mode, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.splitlines()


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["v2", "v1"])
@pytest.mark.parametrize("rewritable", [False, True], ids=["queue_left", "all_fixed"])
def test_fixed_program_runs_to_the_end_with_the_same_examples(
    program, tmp_path, rewritable, mode
):
    if rewritable:
        _rewritable(program)
    before = _run(program / "records_eval.py", tmp_path / "before", mode)
    main([str(program), "--fix"])
    after = _run(program / "records_eval.py", tmp_path / "after", mode)
    assert len([line for line in before if line.startswith("example")]) == 6
    assert after == before
