"""A tower loop left for a hand rewrite runs on a machine without GPUs: its
'/gpu:%d' % i names (every spelling) become emg.devices.resolve(num_gpus=n)[i]."""

import textwrap

import pytest
from migrate_helpers import RESET_GRAPH, V1, rewrite, run_fixed, script_lines

from estimator_multigpu.migrate import _hand_tower_devices, _runner

SCRIPT = "tower_loop_by_hand.py"
# A loop the rewrite leaves: per-tower outputs, no optimizer.
LOOP = """\
import tensorflow as tf


def scores(batches, num_gpus):
    out = []
    for i in range(num_gpus):
        with tf.device({device}):
            out.append(tf.reduce_sum(batches[i]))
    return out
"""


def _fixed(tmp_path, device, loop=LOOP):
    path = tmp_path / "a.py"
    path.write_text(textwrap.dedent(loop).format(device=device))
    return _runner.process(str(path))


@pytest.mark.parametrize(
    "device",
    [
        '"/gpu:%d" % i',
        '"/gpu:{}".format(i)',
        'f"/gpu:{i}"',
        '"/device:GPU:%d" % i',
        '"/GPU:%s" % i',
        '"/gpu:" + str(i)',
        'tf.DeviceSpec(device_type="GPU", device_index=i)',
    ],
    ids=["percent", "format", "fstring", "device_gpu", "upper_s", "concat", "spec"],
)
def test_every_spelling_of_gpu_i_becomes_the_resolved_device(tmp_path, device):
    result = _fixed(tmp_path, device)
    assert "    devices = emg.devices.resolve(num_gpus=num_gpus)\n    out = []\n" in (
        result.rewritten
    )
    assert "        with tf.device(devices[i]):\n" in result.rewritten
    assert "import estimator_multigpu as emg\n" in result.rewritten
    [loop] = [f for f in result.findings if f.api == "tower loop"]
    assert not loop.fixed  # the loop itself is still for a hand rewrite
    assert (
        loop.line,
        "tower loop left for a hand rewrite; its towers' devices are now "
        "emg.devices.resolve(num_gpus=num_gpus)[i]",
    ) in result.notes


def test_a_gpu_name_held_in_a_variable_is_rewritten_where_it_is_made(tmp_path):
    loop = LOOP.replace(
        "        with tf.device({device}):",
        "        name = {device}\n        with tf.device(name):",
    )
    result = _fixed(tmp_path, '"/gpu:%d" % i', loop)
    assert "        name = devices[i]\n        with tf.device(name):\n" in (
        result.rewritten
    )


@pytest.mark.parametrize(
    "device, loop",
    [
        ('"/gpu:%d" % (i + 1)', LOOP),
        ('"/cpu:%d" % i', LOOP),
        ('"/gpu:%d" % i', LOOP.replace("range(num_gpus)", "range(1, num_gpus)")),
        ('"/gpu:%d" % i', LOOP.replace("range(num_gpus)", "gpu_ids")),
        ('tf.DeviceSpec(device_type="CPU", device_index=i)', LOOP),
        ('tf.DeviceSpec(job="ps", device_type="GPU", device_index=i)', LOOP),
        ('tf.DeviceSpec(device_type="GPU", device_index=i + 1)', LOOP),
    ],
    ids=[
        "shifted_index",
        "cpu",
        "range_start",
        "not_a_range",
        "spec_cpu",
        "spec_job",
        "spec_shifted",
    ],
)
def test_other_device_names_are_left_as_written(tmp_path, device, loop):
    result = _fixed(tmp_path, device, loop)
    assert f"with tf.device({device}):" in result.rewritten
    assert "devices.resolve" not in result.rewritten


def test_the_gpu_names_are_found_in_the_loop_body_only():
    import ast

    tree = ast.parse(
        "for i in range(2):\n"
        "    with tf.device('/gpu:%d' % i):\n"
        "        x = '/gpu:%d' % i\n"
        "y = '/gpu:%d' % i\n"
    )
    names = _hand_tower_devices.gpu_names(tree.body[0])
    assert [n.lineno for n in names] == [2, 3]


@pytest.mark.slow
def test_the_rewritten_corpus_script_runs_on_1_and_2_devices(tmp_path):
    path = rewrite(SCRIPT, tmp_path)
    assert '"/gpu' not in open(path).read()
    # Two first: the devices are simulated before TensorFlow starts.
    lines = script_lines(
        [("two", path, ["--num_gpus=2"]), ("one", path, ["--num_gpus=1"])],
        preamble=V1,
        before_each=RESET_GRAPH,
        timeout=300,
    )
    expected = [
        "scores_percent [2.0, 8.0, 14.0, 20.0]",
        "scores_format [3.0, 9.0, 15.0, 21.0]",
        "scores_fstring [4.0, 10.0, 16.0, 22.0]",
        "scores_device_gpu [5.0, 11.0, 17.0, 23.0]",
        "scores_concat [6.0, 12.0, 18.0, 24.0]",
    ]
    assert lines["two"] == expected + ["towers 2"]
    assert lines["one"] == expected + ["towers 1"]


@pytest.mark.slow
@pytest.mark.parametrize("num_gpus", [2, 1])
def test_device_spec_towers_with_contrib_pipelines_run_on_n_devices(tmp_path, num_gpus):
    # tf.DeviceSpec(device_type="GPU", device_index=i) and prefetch_to_device's
    # '/gpu:{}' become the resolved devices: tower i really runs on CPU i,
    # where GPU i was soft-placed on the one CPU.
    out = run_fixed(
        "tower_loop_device_spec.py", tmp_path, f"--num_gpus={num_gpus}", timeout=300
    )
    towers = [f"device:CPU:{i}" for i in range(num_gpus)]
    assert out.splitlines()[-3:] == [
        f"batch {4 * num_gpus} True",
        "improved True",
        f"towers {towers}",
    ]
