"""Queue chains that cross a `with tf.name_scope(...)` block (the CIFAR-10 tutorial's shape)."""

import ast

import pytest
from migrate_helpers import CORPUS, fix_snippet, run_pairs

from estimator_multigpu.migrate import (
    _runner,
)

SCRIPT = "cifar10_scoped_input.py"
PAIRS = "image_pairs_scoped_input.py"

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


def test_chain_through_a_name_scope_is_rewritten_inside_the_scope():
    result, findings = fix_snippet(SCOPED)
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


def test_per_example_code_after_the_scope_moves_into_the_function():
    source = SCOPED.replace("    size = 2\n", "    size = 2\n    number = number + 1\n")
    result, findings = fix_snippet(source)
    assert result.notes == [] and all(f.fixed for f in findings), result.notes
    assert (
        "        size = 2\n\n"
        "        def _example_fn(key, line):\n"
        "            number = tf.strings.to_number(line) * 2\n"
        "            number = number + 1\n"
        "            return (number, key)\n\n"
        "        examples = emg.inputs.queues.read(q, reader).map(_example_fn)\n"
        "    return emg.inputs.queues.get_next("
    ) in result.source


LATER_SCOPES = """\
import random
import tensorflow.compat.v1 as tf


def inputs(files, flip, size):
    with tf.name_scope("load"):
        q = tf.train.string_input_producer(files, shuffle=False)
        reader = tf.WholeFileReader()
        paths, contents = reader.read(q)
        length = tf.strings.length(contents)

    if flip:
        a, b = [length, length * 2]
    else:
        raise ValueError("no direction")

    seed = random.randint(0, 2**31 - 1)

    def transform(x):
        return x + seed * 0

    with tf.name_scope("a"):
        a = transform(a)

    with tf.name_scope("b"):
        b = transform(b)

    return tf.train.batch([paths, a, b], batch_size=size)
"""


def test_the_scope_holding_the_source_is_read_through_other_scopes():
    result, findings = fix_snippet(LATER_SCOPES)
    assert result.notes == [] and all(f.fixed for f in findings), result.notes
    new = result.source
    body = new[new.index('with tf.name_scope("load"):') : new.index("\n    return emg")]
    # The statements that do not read the example move into the block first.
    assert body.index("        seed = random") < body.index("        def transform(x):")
    assert body.index("        def transform(x):") < body.index("def _example_fn(")
    assert "        def _example_fn(paths, contents):\n" in body
    assert (
        '            with tf.name_scope("a"):\n                a = transform(a)' in body
    )
    assert "            if flip:\n                a, b = [length, length * 2]" in body
    assert "            return (paths, a, b)\n" in body
    assert (
        "        examples = emg.inputs.queues.read(q, reader).map(_example_fn)" in body
    )
    ast.parse(new)


def test_a_branch_that_assigns_then_reads_a_name_moves_into_the_function():
    source = LATER_SCOPES.replace(
        "        a, b = [length, length * 2]\n",
        "        twice = length * 2\n        a, b = [length, twice]\n",
    )
    result, findings = fix_snippet(source)
    assert result.notes == [] and all(f.fixed for f in findings), result.notes
    assert "                twice = length * 2\n" in result.source


def test_a_name_read_before_the_per_example_code_binds_it_is_refused():
    # `a` is read in the branch before the function would bind it: as a local
    # of the function, the read would fail.
    source = LATER_SCOPES.replace(
        "        a, b = [length, length * 2]\n",
        "        b = length * a\n        a = length\n",
    ).replace("def inputs(files, flip, size):", "def inputs(files, flip, size, a=2):")
    result, _ = fix_snippet(source)
    assert result.source == source
    (note,) = {why for _, why in result.notes}
    assert "`a` is read before the per-example code assigns it" in note


def test_a_multi_line_string_after_the_scope_is_refused():
    source = LATER_SCOPES.replace(
        "    seed = random", '    doc = """one\n    two"""\n    seed = random'
    )
    result, _ = fix_snippet(source)
    assert result.source == source
    (note,) = {why for _, why in result.notes}
    assert "multi-line string after the `with tf.name_scope('load'):` block" in note


def test_a_scope_after_the_read_moves_into_the_function():
    source = SCOPED.replace('    with tf.name_scope("input"):\n', "")
    for name in ("q", "reader", "key, line"):
        source = source.replace(f"        {name} = ", f"    {name} = ")
    source = source.replace(
        "        number = tf", '    with tf.name_scope("input"):\n        number = tf'
    )
    result, findings = fix_snippet(source)
    assert result.notes == [] and all(f.fixed for f in findings), result.notes
    assert (
        '    def _example_fn(key, line):\n        with tf.name_scope("input"):\n'
        in result.source
    )


def test_other_with_blocks_are_not_read_through():
    source = SCOPED.replace('tf.name_scope("input")', "open(files[0])")
    result, _ = fix_snippet(source)
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


def test_image_pairs_corpus_script_has_no_queue_left_and_no_note():
    result = _runner.process(str(CORPUS / PAIRS))
    left = [f for f in result.remaining if f.rule.rule_id.startswith("queue")]
    assert [f.api for f in left] == ["tf.train.Coordinator"]
    assert result.notes == []
    # The three scopes stay; the function is made in the first.
    assert result.rewritten.count("    with tf.name_scope(") == 3
    assert '            with tf.name_scope("input_images"):' in result.rewritten


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["v2", "v1"])
def test_rewritten_image_pairs_give_the_same_examples(tmp_path, mode):
    out = run_pairs([PAIRS], tmp_path, mode)[PAIRS]
    original, new = out["original"], out["rewritten"]
    assert len([line for line in original if line.startswith("example")]) == 5
    assert new == original
