"""Tests that the migrate scanner's work grows linearly with the file (no timing)."""

import ast
import cProfile
import pstats
import sys

import pytest
from migrate_helpers import CORPUS, CORPUS_FILES

from benchmarks import legacy_blocks
from estimator_multigpu.migrate import _runner, _scanner
from estimator_multigpu.migrate._edits import Edit, EditSet, Offsets

BLOCK = """\


def inputs_{i}(filenames, batch_size):
    queue = tf.train.string_input_producer(filenames)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(queue)
    image = tf.decode_raw(serialized, tf.uint8)
    images = tf.train.shuffle_batch(
        [image], batch_size=batch_size, capacity=100, min_after_dequeue=50
    )
    return images


def model_fn_{i}(features, labels, mode):
    logits = tf.layers.dense(features, 10)
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(mode, loss=logits)
    return tf.estimator.EstimatorSpec(mode, loss=logits)


def train_{i}(images, opt):
    grads = []
    for d in range(2):
        with tf.device("/gpu:%d" % d):
            grads.append(opt.compute_gradients(tf.reduce_sum(images)))
    return grads
"""
# string_input_producer, TFRecordReader, shuffle_batch, tf.layers.dense,
# ModeKeys, EstimatorSpec twice, the tower loop; once per file, the compat.v1
# port (tf.decode_raw is TF1-only), which also resolves tf.layers.dense.
PER_BLOCK = 8
FIXED_PER_BLOCK = 7
PER_FILE = 1


def legacy_module(blocks: int) -> str:
    return "import tensorflow as tf\n" + "".join(
        BLOCK.format(i=i) for i in range(blocks)
    )


def _process(tmp_path, blocks):
    path = tmp_path / f"legacy_{blocks}.py"
    path.write_text(legacy_module(blocks))
    return _runner.process(str(path))


@pytest.mark.parametrize("blocks", [1, 40], ids=["one_block", "forty_blocks"])
def test_generated_file_has_every_finding(tmp_path, blocks):
    result = _process(tmp_path, blocks)
    assert result.error is None
    # Each block's tower loop is left for a hand rewrite, its devices resolved.
    assert result.notes == [
        (
            24 + i * BLOCK.count("\n"),
            "tower loop left for a hand rewrite; its towers' devices are now "
            "emg.devices.resolve(num_gpus=2)[d]",
        )
        for i in range(blocks)
    ]
    assert len(result.findings) == PER_BLOCK * blocks + PER_FILE
    assert sum(f.fixed for f in result.findings) == FIXED_PER_BLOCK * blocks + PER_FILE
    assert ast.parse(result.rewritten)
    lines = [f.line for f in result.findings if f.api == "tf.train.shuffle_batch"]
    assert lines == [9 + i * BLOCK.count("\n") for i in range(blocks)]


def _calls(tmp_path, blocks: int) -> int:
    """Python and builtin calls (a deterministic measure of work) to process."""
    path = tmp_path / f"legacy_{blocks}.py"
    path.write_text(legacy_module(blocks))
    profile = cProfile.Profile()
    profile.runcall(_runner.process, str(path))
    return pstats.Stats(profile).total_calls


def test_work_per_line_does_not_grow_with_the_file(tmp_path):
    """Each finding's text and overlap test once cost a pass over the file."""
    small, large = 2, 16
    per_block_small = _calls(tmp_path, small) / small
    per_block_large = _calls(tmp_path, large) / large
    assert per_block_large / per_block_small < 1.3


# Shapes that once made some step cost a pass over the whole file per block
# (so the scan grew with the square of the file): a record-object reader
# with its caller (each reader looked for its callers module-wide),
# module-level assignments next to a slim import (an alias table per
# assignment), slim clones (the device hoist searched the module for the
# enclosing function) and an inline tower loop after its batch splits (the
# averaging helper's reads counted over the module per loop), and many
# findings on one-line statements (each finding was looked up among all the
# kept ones), and keras models exported through a placeholder of another
# shape (the input-shape guard walked the module once per first layer).
# The pieces that the scaling benchmark's block also holds come from it
# (benchmarks/legacy_blocks.py).
SHAPES = {
    "record_readers": """\


def read_{i}(queue):
    class Record(object):
        pass

    result = Record()
    result.label = tf.decode_raw(queue, tf.uint8)
    return result


def use_{i}(queue):
    record = read_{i}(queue)
    return record.label
""",
    "module_assignments": """\
x = tf.zeros([{i}])
""",
    "slim_clones": legacy_blocks.SLIM_CLONES,
    "inline_tower_loops": legacy_blocks.AVERAGE_GRADIENTS
    + """\


def train_{i}(images, targets, opt):
    images_splits = tf.split(images, FLAGS.num_gpus)
    targets_splits = tf.split(targets, FLAGS.num_gpus)
    tower_grads = []
    with tf.variable_scope(tf.get_variable_scope()):
        for d in range(FLAGS.num_gpus):
            with tf.device("/gpu:%d" % d):
                logits = tf.layers.dense(images_splits[d], 10)
                loss = tf.losses.sparse_softmax_cross_entropy(targets_splits[d], logits)
                grads = opt.compute_gradients(loss)
                tower_grads.append(grads)
    grads = average_gradients_{i}(tower_grads)
    train_op = opt.apply_gradients(grads)
    return train_op
""",
    "keras_models": legacy_blocks.KERAS_EXPORT,
}
SHAPES["many_findings"] = """\
a{i} = tf.layers.dense(tf.train.batch, tf.layers.flatten(tf.train.Supervisor))
"""
SHAPES_HEADER = legacy_blocks.HEADER


def _shape_calls(tmp_path, shape: str, blocks: int) -> int:
    path = tmp_path / f"{shape}_{blocks}.py"
    blocks_text = "".join(SHAPES[shape].format(i=i) for i in range(blocks))
    path.write_text(SHAPES_HEADER + blocks_text)
    profile = cProfile.Profile()
    result = profile.runcall(_runner.process, str(path))
    assert result.error is None and result.findings
    return pstats.Stats(profile).total_calls


# Blocks to compare per shape: the one-line block needs more to show growth.
SIZES = {"module_assignments": (50, 400), "many_findings": (100, 800)}


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.slow
def test_work_per_block_does_not_grow_for_each_shape(tmp_path, shape):
    """Calls per block at 4x (8x) the blocks: at most 1.0 when linear (the
    count is deterministic); the quadratic steps these shapes once hit gave
    1.2 to 5."""
    small, large = SIZES.get(shape, (8, 32))
    per_block_small = _shape_calls(tmp_path, shape, small) / small
    per_block_large = _shape_calls(tmp_path, shape, large) / large
    assert per_block_large / per_block_small < 1.15


def _shape_lines(tmp_path, shape: str, blocks: int) -> int:
    """Lines executed (`sys.settrace` line events) to process `blocks` blocks
    of `shape`: unlike a call count, it counts each turn of a loop or
    comprehension, so a pass over the module's nodes per block shows."""
    path = tmp_path / f"{shape}_{blocks}.py"
    blocks_text = "".join(SHAPES[shape].format(i=i) for i in range(blocks))
    path.write_text(SHAPES_HEADER + blocks_text)
    count = 0

    def local(frame, event, arg):
        nonlocal count
        count += event == "line"
        return local

    sys.settrace(lambda frame, event, arg: local)
    try:
        result = _runner.process(str(path))
    finally:
        sys.settrace(None)
    assert result.error is None and result.findings
    return count


@pytest.mark.parametrize("shape", [s for s in SHAPES if s not in SIZES])
@pytest.mark.slow
def test_lines_per_block_do_not_grow_for_each_shape(tmp_path, shape):
    """Lines executed per block at 12x the blocks: a comprehension over the
    module's nodes per clone's device count (a hoist) once gave 1.57 here
    while the calls per block stayed flat."""
    _shape_lines(tmp_path, shape, 2)  # tables built on first use
    small, large = 8, 96
    per_block_small = _shape_lines(tmp_path, shape, small) / small
    per_block_large = _shape_lines(tmp_path, shape, large) / large
    assert per_block_large / per_block_small < 1.15


NODES_SOURCES = {
    "unicode": "s = 'é€'; t = f(s, 'ü')  # ß\nu = g(\n    'λ', x\n)\n",
    "crlf": "a = f(1,\r\n      2)\r\nb = a.c\r\n",
    "cr": "a = f(1,\r 2)\rb = a.c\r",
    "tabs": "if x:\n\ty = f(\n\t\t1)\n",
    "no_final_newline": "x = [1,\n 2]",
}


@pytest.mark.parametrize(
    "source",
    list(NODES_SOURCES.values())
    + [(CORPUS / name).read_text() for name in CORPUS_FILES],
    ids=list(NODES_SOURCES) + CORPUS_FILES,
)
def test_offsets_segment_matches_get_source_segment(source):
    off = Offsets(source)
    for node in ast.walk(ast.parse(source)):
        if hasattr(node, "end_lineno") and node.end_lineno is not None:
            assert off.segment(node) == ast.get_source_segment(source, node)


def test_finding_columns_count_characters():
    source = "import tensorflow as tf\nx = ('é€', tf.train.batch)\n"
    found = _scanner.scan_rules(ast.parse(source), source, "u.py")
    assert [(f.line, f.col, f.text) for f in found] == [(2, 12, "tf.train.batch")]


@pytest.mark.parametrize(
    "edit, overlaps",
    [
        (Edit(0, 5, "x"), False),
        (Edit(5, 10, "x"), True),
        (Edit(9, 11, "x"), True),
        (Edit(10, 10, "x"), False),
        (Edit(12, 12, "x"), True),
        (Edit(15, 20, "x"), False),
        (Edit(19, 21, "x"), True),
        (Edit(0, 30, "x"), True),
    ],
    ids=[
        "before",
        "same_start",
        "across",
        "touching",
        "insert_inside",
        "between",
        "into_last",
        "around_all",
    ],
)
def test_edit_set_overlap(edit, overlaps):
    placed = EditSet([Edit(5, 10, "a"), Edit(10, 15, "b"), Edit(20, 25, "c")])
    assert placed.overlaps(edit) == overlaps


def test_edit_set_refuses_an_overlapping_edit():
    placed = EditSet([Edit(5, 10, "a")])
    with pytest.raises(ValueError, match=r"edits overlap at offset 7"):
        placed.add(Edit(7, 12, "b"))


@pytest.mark.parametrize("enabled", [True, False], ids=["gc_on", "gc_off"])
def test_processing_restores_the_cycle_collectors_state(tmp_path, enabled):
    import gc

    seen = []
    path = tmp_path / "a.py"
    path.write_text(legacy_module(1))
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        original = _runner._process_in

        def spy(*args):
            seen.append(gc.isenabled())
            return original(*args)

        _runner._process_in = spy
        try:
            assert _runner.process(str(path)).findings
        finally:
            _runner._process_in = original
        assert gc.isenabled() is enabled and seen == [False]
    finally:
        (gc.enable if was else gc.disable)()
