"""A per-example name the function used earlier for something else.

A slice producer's `image, label = tf.train.slice_input_producer(...)` may
rebind a name that counted classes in a Python loop before it (`label = 0`,
`label += 1`): those reads see the earlier value, not the example, so the
chain is still rewritten. Inside a loop around the producer an earlier
line may read the previous pass's example, so there it stays a finding.
"""

import pytest
from migrate_helpers import fix_snippet, run_fixed

SOURCE = """\
import os

import tensorflow.compat.v1 as tf


def read_images(dataset_path, batch_size):
    imagepaths, labels = list(), list()
    label = 0
    for c in sorted(os.listdir(dataset_path)):
        for sample in sorted(os.listdir(os.path.join(dataset_path, c))):
            imagepaths.append(os.path.join(dataset_path, c, sample))
            labels.append(label)
        label += 1
    imagepaths = tf.convert_to_tensor(imagepaths, dtype=tf.string)
    labels = tf.convert_to_tensor(labels, dtype=tf.int32)
    image, label = tf.train.slice_input_producer([imagepaths, labels], shuffle=True)
    image = tf.read_file(image)
    image = tf.image.decode_jpeg(image, channels=3)
    image = tf.image.resize_images(image, [8, 8])
    X, Y = tf.train.batch([image, label], batch_size=batch_size, capacity=32)
    return X, Y
"""


def test_reads_before_the_producer_rebinds_the_name_do_not_block_the_chain():
    result, findings = fix_snippet(SOURCE)
    new = result.source
    assert "emg.inputs.queues.slice_input_producer(" in new, result.notes
    assert "emg.inputs.queues.get_next(" in new
    assert "        label += 1\n" in new and "    label = 0\n" in new
    queue = [f for f in findings if f.rule.rule_id.startswith("queue-")]
    assert queue and all(f.fixed for f in queue)


def test_a_read_before_the_producer_in_a_loop_around_it_still_blocks():
    source = SOURCE.replace(
        "    image, label = tf.train.slice_input_producer(",
        "    for _ in range(1):\n"
        "        print(label)\n"
        "        image, label = tf.train.slice_input_producer(",
    ).replace(
        "    image = tf.read_file(image)\n"
        "    image = tf.image.decode_jpeg(image, channels=3)\n"
        "    image = tf.image.resize_images(image, [8, 8])\n"
        "    X, Y = tf.train.batch(",
        "        image = tf.read_file(image)\n        X, Y = tf.train.batch(",
    )
    result, _ = fix_snippet(source)
    assert "tf.train.batch(" in result.source
    assert any("`label` is also used outside" in text for _, text in result.notes)


@pytest.mark.slow
def test_corpus_image_folders_run_after_fix(tmp_path):
    name = "slice_producer_reused_name.py"
    out = run_fixed(name, tmp_path, str(tmp_path), all_fixed=True)
    batches = [line for line in out.splitlines() if line.startswith("batch")]
    assert batches == [
        "batch 0 (2, 4, 4, 3) [0, 0]",
        "batch 1 (2, 4, 4, 3) [0, 1]",
        "batch 2 (2, 4, 4, 3) [1, 1]",
    ], out
