"""Queue chains that cross a `with tf.name_scope(...)` block (the CIFAR-10 tutorial's shape)."""

import ast
import textwrap

import pytest
from migrate_helpers import CORPUS, run_pairs

from estimator_multigpu.migrate import (
    _fixer,
    _runner,
    _scanner,
)

SCRIPT = "cifar10_scoped_input.py"

SCOPED = """\
import tensorflow.compat.v1 as tf


def inputs(files):
    with tf.name_scope("input"):
        q = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
        reader = tf.TextLineReader()
        key, line = reader.read(q)
        number = tf.strings.to_number(line) * 2
    size = 2
    return tf.train.batch([number, key], batch_size=size)
"""


def fix(source):
    source = textwrap.dedent(source)
    tree = ast.parse(source)
    findings = _scanner.scan_rules(tree, source, "snippet.py")
    return _fixer.fix(source, tree, findings), findings


def test_chain_through_a_name_scope_is_rewritten_inside_the_scope():
    result, findings = fix(SCOPED)
    new = result.source
    assert result.notes == [] and all(f.fixed for f in findings), result.notes
    body = new[new.index('with tf.name_scope("input"):') : new.index("    size = 2")]
    assert "        def _example_fn(key, line):" in body
    assert (
        "        examples = emg.inputs.queues.read(q, reader).map(_example_fn)" in body
    )
    assert "emg.inputs.queues.batch(examples,batch_size=size)" in "".join(
        new.split()
    ).replace(",)", ")")
    ast.parse(new)


def test_per_example_code_after_the_scope_is_named_in_the_note():
    source = SCOPED.replace("    size = 2\n", "    size = 2\n    number = number + 1\n")
    result, findings = fix(source)
    assert result.source == source
    (note,) = {why for _, why in result.notes}
    assert "per-example code after the `with tf.name_scope('input'):` block" in note
    assert "several functions" not in note


def test_a_scope_after_the_read_moves_into_the_function():
    source = SCOPED.replace('    with tf.name_scope("input"):\n', "")
    for name in ("q", "reader", "key, line"):
        source = source.replace(f"        {name} = ", f"    {name} = ")
    source = source.replace(
        "        number = tf", '    with tf.name_scope("input"):\n        number = tf'
    )
    result, findings = fix(source)
    assert result.notes == [] and all(f.fixed for f in findings), result.notes
    assert (
        '    def _example_fn(key, line):\n        with tf.name_scope("input"):\n'
        in result.source
    )


def test_other_with_blocks_are_not_read_through():
    source = SCOPED.replace('tf.name_scope("input")', "open(files[0])")
    result, _ = fix(source)
    assert result.source == source
    assert any("no `reader.read(queue)`" in why for _, why in result.notes)


def test_corpus_script_has_no_queue_left_and_no_note():
    result = _runner.process(str(CORPUS / SCRIPT))
    left = [f for f in result.remaining if f.rule.rule_id.startswith("queue")]
    # start_queue_runners becomes the drop-in; the idle Coordinator stays.
    assert [f.api for f in left] == ["tf.train.Coordinator"]
    assert result.notes == []
    assert result.rewritten.count("    with tf.name_scope(") == 2


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["v2", "v1"])
def test_rewritten_scoped_input_gives_the_same_examples(tmp_path, mode):
    out = run_pairs([SCRIPT], tmp_path, mode)[SCRIPT]
    original, new = out["original"], out["rewritten"]
    examples = [line for line in original if line.startswith("example")]
    assert len(examples) == 10, original
    assert new == original
