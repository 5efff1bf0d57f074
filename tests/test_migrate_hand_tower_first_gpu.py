"""A tower loop left for a hand rewrite often sums its towers' results on the
first GPU after the loop (`with tf.device('/gpu:0'):`): that name becomes the
resolved devices' [0] too, or the program fails on a machine without GPUs
("Cannot assign a device ... GPU:0") even on one device."""

import textwrap

import pytest
from migrate_helpers import CORPUS, RESET_GRAPH, V1, rewrite, same_step, script_lines

from estimator_multigpu.migrate import _runner

SCRIPT = "tower_loop_summed_on_gpu0.py"
LOOP = """\
import tensorflow as tf


def total(batches, num_gpus):
    out = []
    for i in range(num_gpus):
        with tf.device("/gpu:%d" % i):
            out.append(tf.reduce_sum(batches[i]))
    with tf.device({first}):
        return tf.add_n(out)
"""


def _fixed(tmp_path, first, loop=LOOP):
    path = tmp_path / "a.py"
    path.write_text(textwrap.dedent(loop).replace("{first}", first))
    return _runner.process(str(path)).rewritten


@pytest.mark.parametrize(
    "first", ['"/gpu:0"', "'/GPU:0'", '"/device:GPU:0"', '"gpu:0"']
)
def test_the_first_gpu_after_the_loop_is_the_first_resolved_device(tmp_path, first):
    new = _fixed(tmp_path, first)
    assert "        with tf.device(devices[i]):\n" in new
    assert "    with tf.device(devices[0]):\n        return tf.add_n(out)\n" in new


@pytest.mark.parametrize("other", ['"/gpu:1"', '"/cpu:0"', '"/gpu:0/x"'])
def test_other_devices_after_the_loop_are_left_as_written(tmp_path, other):
    new = _fixed(tmp_path, other)
    assert f"    with tf.device({other}):\n" in new


def test_the_first_gpu_before_the_loop_or_in_another_function_is_left(tmp_path):
    loop = (
        LOOP.replace(
            "    out = []\n", '    with tf.device("/gpu:0"):\n        out = []\n'
        )
        + '\n\ndef other():\n    with tf.device("/gpu:0"):\n        return 1\n'
    )
    new = _fixed(tmp_path, '"/gpu:0"', loop)
    assert '    with tf.device("/gpu:0"):\n        out = []\n' in new
    assert "    with tf.device(devices[0]):\n        return tf.add_n(out)\n" in new
    assert 'def other():\n    with tf.device("/gpu:0"):\n' in new


def test_the_corpus_script_is_rewritten_at_its_first_gpu():
    new = _runner.process(str(CORPUS / SCRIPT)).rewritten
    assert "with tf.device(devices[0]):\n    for i in range(1, args.num_gpus):" in new
    assert '"/gpu:' not in new


@pytest.mark.slow
def test_the_corpus_script_runs_fixed_on_one_and_two_devices(tmp_path):
    fixed = rewrite(SCRIPT, tmp_path)
    # Two first: the devices are simulated before TensorFlow starts.
    out = script_lines(
        [(f"n{n}", fixed, [f"--num_gpus={n}"]) for n in (2, 1)],
        preamble=V1,
        before_each=RESET_GRAPH,
        timeout=300,
    )
    assert out["n1"][0].startswith("loss 0 ")
    assert same_step(out["n2"], out["n1"]), out
