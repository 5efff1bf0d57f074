"""Record-object readers flattened into the queue-chain rewrite; the QUEUE_RUNNERS thread loop."""

import ast

import pytest
from migrate_helpers import CORPUS, fix_snippet, parse_ok, run_scripts

from estimator_multigpu.migrate import (
    _records,
    _runner,
)

EVAL = CORPUS / "cifar10_record_eval.py"


def test_record_fields_the_callers_read_are_returned_in_order():
    source = EVAL.read_text()
    flat = _records.flatten(source, ast.parse(source))
    assert "class CIFAR10Record" not in flat and "CIFAR10Record()" not in flat
    assert "    return result_uint8image, result_label\n" in flat
    assert "read_input_uint8image, read_input_label = read_cifar10(" in flat
    assert "result_key, value = reader.read(filename_queue)" in flat
    assert "read_input.label" not in flat and "result." not in flat


def test_record_chain_is_rewritten_whole():
    result, findings = fix_snippet(EVAL.read_text())
    assert parse_ok(result.source)
    assert "return emg.inputs.queues.read(filename_queue, reader).map(_decode_fn)" in (
        result.source
    )
    assert "examples = read_cifar10(filename_queue).map(_example_fn)" in result.source
    assert all(f.fixed for f in findings)


@pytest.mark.parametrize(
    "old, new",
    [
        ("    read_input.label.set_shape([1])\n", "    log(read_input)\n"),
        ("    return result\n", "    return result, 1\n"),
        (
            "    read_input = read_cifar10(filename_queue)\n",
            "    read_input = read_cifar10(filename_queue)\n"
            "    other = read_cifar10(filename_queue).key\n",
        ),
    ],
    ids=["record_used_whole", "not_returned_alone", "called_another_way"],
)
def test_other_record_shapes_are_left_alone(old, new):
    source = EVAL.read_text()
    assert old in source
    source = source.replace(old, new)
    assert _records.flatten(source, ast.parse(source)) is None
    result, findings = fix_snippet(source)
    assert "class CIFAR10Record" in result.source
    assert any("read_cifar10" in note for _, note in result.notes), result.notes


RUNNERS = """\
import tensorflow as tf


def start(sess, coord):
    threads = []
    for qr in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS):
        threads.extend(qr.create_threads(sess, coord=coord, daemon=True, start=True))
    return threads


def only(sess):
    for qr in tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.QUEUE_RUNNERS):
        qr.create_threads(sess, start=True)
"""


def test_queue_runner_thread_loops_are_found_and_dropped():
    result, findings = fix_snippet(RUNNERS)
    loops = [f for f in findings if f.api == "tf.GraphKeys.QUEUE_RUNNERS loop"]
    assert [(f.line, f.rule.rule_id, f.fixed) for f in loops] == [
        (6, "queue-runner", True),
        (12, "queue-runner", True),
    ]
    assert "QUEUE_RUNNERS" not in result.source
    assert "    threads = []\n    return threads\n" in result.source
    assert "def only(sess):\n    pass\n" in result.source


def test_loop_that_uses_the_runner_otherwise_is_not_dropped():
    source = RUNNERS.replace("threads.extend(", "print(qr.name); threads.extend(")
    result, findings = fix_snippet(source)
    assert "print(qr.name)" in result.source
    assert [f.line for f in findings if "QUEUE_RUNNERS loop" in f.api] == [12]


# Queue-runner threads block inter-op threads; two cores give too few.
_THREADS = (
    "import tensorflow as tf; tf.config.threading.set_inter_op_parallelism_threads(16)"
)


@pytest.mark.slow
def test_rewritten_record_eval_reads_the_same_examples(tmp_path):
    result = _runner.process(str(EVAL))
    assert result.remaining == []
    new = tmp_path / "rewritten.py"
    new.write_text(result.rewritten)
    runs = [
        ["original", EVAL, [tmp_path / "a"]],
        ["rewritten", new, [tmp_path / "b"]],
    ]
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    got = run_scripts(runs, preamble=_THREADS, timeout=600)
    assert got["original"]["error"] is None and got["rewritten"]["error"] is None
    out = {label: run["stdout"] for label, run in got.items()}
    assert len([x for x in out["original"] if x.startswith("example")]) == 4
    assert out["original"][-1] == "done"
    assert out["rewritten"] == out["original"]
