"""Raw queues fed from a reader (research/resnet's cifar_input.py shape):
the per-example code becomes a function over `queues.read(...)`, the queue
enqueues that dataset, and each mode's branch keeps its own queue."""

import ast

import pytest
from migrate_helpers import CORPUS, fix_snippet, run_pairs

from estimator_multigpu.migrate import (
    _runner,
)

SCRIPT = "raw_queue_reader_branches.py"

BRANCHES = """\
import tensorflow.compat.v1 as tf


def inputs(files, mode, batch_size):
    file_queue = tf.train.string_input_producer(files)
    reader = tf.TextLineReader()
    _, line = reader.read(file_queue)
    # Parse the number.
    value = tf.strings.to_number(line)
    if mode == 'train':
        value = value * 2.0
        queue = tf.RandomShuffleQueue(20, 4, dtypes=[tf.float32], shapes=[[]])
        threads = 4
    else:
        queue = tf.FIFOQueue(20, dtypes=[tf.float32], shapes=[[]])
        threads = 1
    op = queue.enqueue([value])
    tf.train.add_queue_runner(tf.train.QueueRunner(queue, [op] * threads))
    return queue.dequeue_many(batch_size)
"""


def test_branches_split_into_the_example_function_and_the_queues():
    result, findings = fix_snippet(BRANCHES)
    new = result.source
    assert result.notes == [] and all(f.fixed for f in findings), result.notes
    assert (
        "    def _example_fn(_, line):\n"
        "        # Parse the number.\n"
        "        value = tf.strings.to_number(line)\n"
        "        if mode == 'train':\n"
        "            value = value * 2.0\n"
        "        return value\n"
    ) in new, new
    assert (
        "    if mode == 'train':\n"
        "        queue = emg.inputs.queues.RandomShuffleQueue(20, 4,"
    ) in new
    assert "    else:\n        queue = emg.inputs.queues.FIFOQueue(20," in new
    assert (
        "op = queue.enqueue(emg.inputs.queues.read(file_queue, reader)"
        ".map(_example_fn))"
    ) in new
    assert "emg.inputs.queues.string_input_producer(files)" in new
    assert "emg.inputs.queues.TextLineReader()" in new
    assert "emg.inputs.queues.get_next(queue.dequeue_many(batch_size))" in new
    ast.parse(new)


@pytest.mark.parametrize(
    "old,new,reason",
    [
        (
            "    return queue.dequeue_many(batch_size)\n",
            "    return queue.dequeue_many(batch_size), value\n",
            "the per-example values ['value'] are also used after the enqueue",
        ),
        (
            "    if mode == 'train':\n",
            "    if value > 0:\n",
            "the `if` tests a record's value",
        ),
        (
            "        threads = 4\n",
            "        threads = 4\n        queue.size()\n",
            "`queue` is used other than by one enqueue",
        ),
        (
            "        threads = 4\n",
            "        threads = 4\n        mode = 'eval'\n",
            "`mode` is bound again after the per-example code reads it",
        ),
    ],
    ids=["escape", "record_test", "other_use", "rebound"],
)
def test_what_cannot_move_is_left_with_the_reason(old, new, reason):
    source = BRANCHES.replace(old, new)
    assert source != BRANCHES
    result, findings = fix_snippet(source)
    assert "emg.inputs.queues.FIFOQueue" not in result.source
    assert any(reason in why for _, why in result.notes), result.notes
    assert not any(f.fixed for f in findings if f.api == "tf.FIFOQueue")


def test_corpus_script_has_no_queue_left():
    result = _runner.process(str(CORPUS / SCRIPT))
    assert result.notes == []
    assert result.queues == []
    left = sorted(f.api for f in result.remaining)
    assert left == ["tf.train.Coordinator"]  # start_queue_runners: the drop-in


def _examples(lines, mode):
    (line,) = [x for x in lines if x.startswith(f"examples {mode} ")]
    return ast.literal_eval(line[len(f"examples {mode} ") :])


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["v2", "v1"])
def test_rewritten_reader_queue_script_gives_the_same_examples(tmp_path, mode):
    out = run_pairs([SCRIPT], tmp_path, mode)[SCRIPT]
    original, new = out["original"], out["rewritten"]
    assert not any(x.startswith("FAILED") for x in original + new), new
    assert [x for x in new if x.startswith("batch")] == [
        x for x in original if x.startswith("batch")
    ], new
    for branch, scale, shift in (("train", 2, 0), ("eval", 1, 1)):
        expected = sorted(
            "/".join(str((i + k) * scale + shift) for k in range(3)) + f":{i % 3}"
            for i in range(12)
        )
        assert _examples(original, branch) == _examples(new, branch) == expected


def test_a_single_queue_at_module_level_takes_the_dataset_too():
    source = (
        "import tensorflow.compat.v1 as tf\n"
        "reader = tf.TFRecordReader()\n"
        "_, record = reader.read(tf.train.string_input_producer(['a']))\n"
        "size = 3\n"
        "parsed = tf.strings.length(record) * size\n"
        "queue = tf.FIFOQueue(10, dtypes=[tf.int32])\n"
        "op = queue.enqueue([parsed])\n"
        "tf.train.add_queue_runner(tf.train.QueueRunner(queue, [op]))\n"
        "batch = queue.dequeue_many(2)\n"
    )
    result, findings = fix_snippet(source)
    assert result.notes == [] and all(f.fixed for f in findings), result.notes
    assert (
        "def _example_fn(_, record):\n"
        "    parsed = tf.strings.length(record) * size\n"
        "    return parsed\n\n"
        "size = 3\n"
        "queue = emg.inputs.queues.FIFOQueue(10, dtypes=[tf.int32])\n"
    ) in result.source, result.source
    assert (
        "op = queue.enqueue(emg.inputs.queues.read("
        "emg.inputs.queues.string_input_producer(['a']), reader).map(_example_fn))"
    ) in result.source
