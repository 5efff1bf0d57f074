"""--fix does not call a tower loop fixed when its devices resolve too late.

`emg.devices.resolve(num_gpus=n)` simulates missing devices only before
TensorFlow starts. A count read from a TensorFlow value (a tensor's shape),
or resolved after a statement that may start TensorFlow (a device listing,
an eager op in a TF2-mode file), is rewritten, but its finding stays unfixed
and says why and how to move the count.
"""

import pytest
from migrate_helpers import run_script
from test_migrate_tower_hoist import QUEUE_TOWERS

from estimator_multigpu.migrate import _runner

_GRAPH = '    with tf.Graph().as_default(), tf.device("/cpu:0"):\n'
_SPLIT = "        features_splits = tf.split(features, num_gpus)\n"


def _towers_from(line: str, source: str = QUEUE_TOWERS) -> str:
    """`QUEUE_TOWERS` with its loop over `towers`, assigned by `line` before the split."""
    return source.replace(_SPLIT, f"        {line}\n{_SPLIT}").replace(
        "for i in range(num_gpus):", "for i in range(towers):"
    )


def _process(tmp_path, source: str):
    path = tmp_path / "towers.py"
    path.write_text(source)
    result = _runner.process(str(path))
    (loop,) = [f for f in result.findings if f.text.startswith("for i in range(")]
    return result, loop, path


def _line(source: str, text: str) -> int:
    return source.splitlines().index(text.rstrip("\n")) + 1


def test_count_from_a_tensor_shape_is_not_fixed(tmp_path):
    source = _towers_from("towers = int(features.get_shape()[0]) // 2")
    result, loop, _ = _process(tmp_path, source)
    assert not loop.fixed
    line = _line(source, "        towers = int(features.get_shape()[0]) // 2")
    assert loop.rule.replacement.startswith(
        f"the device count is read from `features.get_shape()` at line {line}, "
        "after TensorFlow may have started, so emg.devices.resolve cannot "
        "simulate missing devices there"
    )
    assert "emg.devices.resolve(num_gpus=FLAGS.num_gpus)" in loop.rule.replacement
    # Still rewritten (it runs where the devices exist), the count as an int.
    assert "devices = emg.devices.resolve(num_gpus=int(towers))\n" in result.rewritten
    assert "emg.towers.minimize(" in result.rewritten


def test_count_after_a_device_listing_is_not_fixed(tmp_path):
    listing = '    print(tf.config.experimental.list_physical_devices("CPU"))\n'
    source = _towers_from(
        "towers = num_gpus", QUEUE_TOWERS.replace(_GRAPH, listing + _GRAPH)
    )
    _, loop, _ = _process(tmp_path, source)
    assert not loop.fixed
    assert (
        "after TensorFlow may have started "
        "(`tf.config.experimental.list_physical_devices('CPU')` at line "
        f"{_line(source, listing)})"
    ) in loop.rule.replacement


def test_count_in_the_graph_block_of_a_graph_mode_file_is_fixed(tmp_path):
    _, loop, _ = _process(tmp_path, _towers_from("towers = num_gpus"))
    assert loop.fixed


_TF2 = QUEUE_TOWERS.replace("tf.disable_v2_behavior()\n", "")


@pytest.mark.parametrize(
    "before, fixed",
    [("", True), ("    print(tf.constant(1.0))\n", False)],
    ids=["graph_ops_only", "eager_op_before_the_graph"],
)
def test_tf2_mode_file_is_late_after_an_eager_op(tmp_path, before, fixed):
    source = _towers_from("towers = num_gpus", _TF2.replace(_GRAPH, before + _GRAPH))
    _, loop, _ = _process(tmp_path, source)
    assert loop.fixed is fixed


@pytest.mark.slow
def test_late_count_fails_as_the_finding_says_and_runs_where_devices_exist(tmp_path):
    listing = '    print(tf.config.experimental.list_physical_devices("CPU"))\n'
    source = _towers_from(
        "towers = num_gpus", QUEUE_TOWERS.replace(_GRAPH, listing + _GRAPH)
    )
    result, _, path = _process(tmp_path, source)
    path.write_text(result.rewritten)
    one = run_script(path, tmp_path, "1", CUDA_VISIBLE_DEVICES="")
    assert one.returncode == 0, one.stderr[-3000:]
    two = run_script(path, tmp_path, "2", CUDA_VISIBLE_DEVICES="")
    assert two.returncode != 0
    assert "TensorFlow has already started" in two.stderr


# A TF 1.x script at module level: MNIST read with a tutorial data module
# (NumPy arrays, no TensorFlow op), then a constant count and sliced towers.
_MNIST_TOWERS = """\
import tensorflow as tf
{imports}
mnist = {read}
{before}num_gpus = 2
batch_size = 4


def average_gradients(tower_grads):
    return [
        (tf.add_n([g for g, _ in gv]) / len(gv), gv[0][1])
        for gv in zip(*tower_grads)
    ]


X = tf.placeholder(tf.float32, [None, 784])
Y = tf.placeholder(tf.float32, [None, 10])
optimizer = tf.train.GradientDescentOptimizer(0.1)
tower_grads = []
for i in range(num_gpus):
    with tf.device("/gpu:%d" % i):
        _x = X[i * batch_size: (i + 1) * batch_size]
        _y = Y[i * batch_size: (i + 1) * batch_size]
        with tf.variable_scope("net", reuse=i > 0):
            logits = tf.layers.dense(_x, 10)
        loss = tf.reduce_mean(
            tf.nn.softmax_cross_entropy_with_logits(logits=logits, labels=_y))
        tower_grads.append(optimizer.compute_gradients(loss))
grads = average_gradients(tower_grads)
train_op = optimizer.apply_gradients(grads)
"""

_MNIST_READS = {
    "tutorial_input_data": (
        "from tensorflow.examples.tutorials.mnist import input_data",
        'input_data.read_data_sets("/tmp/data/", one_hot=True)',
    ),
    "tutorial_module_import": (
        "import tensorflow.examples.tutorials.mnist.input_data as input_data",
        'input_data.read_data_sets("/tmp/data/", one_hot=True)',
    ),
    "contrib_learn_datasets_import": (
        "from tensorflow.contrib.learn.python.learn.datasets.mnist import "
        "read_data_sets",
        'read_data_sets("/tmp/data/", one_hot=True)',
    ),
    "contrib_learn_datasets_attribute": (
        "",
        'tf.contrib.learn.datasets.mnist.read_data_sets("/tmp/data/", one_hot=True)',
    ),
    "keras_datasets": ("", "tf.keras.datasets.mnist.load_data()"),
}


@pytest.mark.parametrize("imports, read", _MNIST_READS.values(), ids=_MNIST_READS)
def test_count_after_a_tutorial_data_read_is_fixed(tmp_path, imports, read):
    # The tutorial data modules return NumPy arrays: they start no runtime.
    source = _MNIST_TOWERS.format(imports=imports, read=read, before="")
    result, loop, _ = _process(tmp_path, source)
    assert loop.fixed, loop.rule.replacement
    assert "devices = emg.devices.resolve(num_gpus=" in result.rewritten


def test_an_eager_op_after_a_tutorial_data_read_is_still_late(tmp_path):
    imports, read = _MNIST_READS["tutorial_input_data"]
    source = _MNIST_TOWERS.format(
        imports=imports, read=read, before="print(tf.reduce_sum([1.0]))\n"
    )
    _, loop, _ = _process(tmp_path, source)
    assert not loop.fixed
    assert "(`tf.reduce_sum([1.0])` at line 4)" in loop.rule.replacement
