"""--fix resolves the towers' devices first: `--num_gpus=2` runs on one CPU.

`emg.devices.resolve(num_gpus=n)` simulates n logical devices where fewer
exist, but only before TensorFlow starts; a queue input starts it. So the
rewrite assigns the resolved devices to a name as early as the count
allows (the first statement of the function, else right after the last
assignment of what the count reads), and the rewritten call reads the name.
"""

import ast
import textwrap

import pytest
from migrate_helpers import CORPUS, parse_ok, rewrite, run_script

from estimator_multigpu.migrate import (
    _fixer,
    _runner,
    _scanner,
)

# The cifar10 multi-GPU tutorial's shape: a queue input built inside the
# graph, then one tower per GPU over its split batch.
QUEUE_TOWERS = '''\
"""Queue input, then towers over /gpu:i. Usage: SCRIPT DATA_DIR NUM_GPUS"""

import os
import sys

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
BATCH_SIZE = 4
RECORD_BYTES = 5  # A label byte, then four feature bytes.


def write_data(data_dir):
    path = os.path.join(data_dir, "data.bin")
    rng = np.random.RandomState(0)
    rng.randint(0, 256, size=(16, RECORD_BYTES)).astype(np.uint8).tofile(path)
    return [path]


def inputs(filenames):
    filename_queue = tf.train.string_input_producer(filenames, shuffle=False)
    reader = tf.FixedLengthRecordReader(record_bytes=RECORD_BYTES)
    key, value = reader.read(filename_queue)
    record = tf.decode_raw(value, tf.uint8)
    label = tf.cast(tf.strided_slice(record, [0], [1]), tf.int32) % 2
    features = tf.cast(tf.strided_slice(record, [1], [RECORD_BYTES]), tf.float32)
    features = tf.reshape(features / 255.0, [4])
    label.set_shape([1])
    features_batch, label_batch = tf.train.batch(
        [features, label], batch_size=BATCH_SIZE, num_threads=1, capacity=16
    )
    return features_batch, tf.reshape(label_batch, [BATCH_SIZE])


def tower_loss(features, labels):
    w = tf.get_variable("w", [4, 2], initializer=tf.zeros_initializer())
    logits = tf.matmul(features, w)
    return tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    )


def average_gradients(tower_grads):
    average_grads = []
    for grad_and_vars in zip(*tower_grads):
        grads = [tf.expand_dims(g, 0) for g, _ in grad_and_vars]
        grad = tf.reduce_mean(tf.concat(axis=0, values=grads), 0)
        average_grads.append((grad, grad_and_vars[0][1]))
    return average_grads


def train(data_dir, num_gpus):
    """Builds the input, then one tower per GPU."""
    with tf.Graph().as_default(), tf.device("/cpu:0"):
        global_step = tf.train.get_or_create_global_step()
        opt = tf.train.GradientDescentOptimizer(0.5)
        features, labels = inputs(write_data(data_dir))
        features_splits = tf.split(features, num_gpus)
        labels_splits = tf.split(labels, num_gpus)
        tower_grads = []
        with tf.variable_scope(tf.get_variable_scope()):
            for i in range(num_gpus):
                with tf.device("/gpu:%d" % i):
                    with tf.name_scope("tower_%d" % i):
                        loss = tower_loss(features_splits[i], labels_splits[i])
                        tf.get_variable_scope().reuse_variables()
                        grads = opt.compute_gradients(loss)
                        tower_grads.append(grads)
        grads = average_gradients(tower_grads)
        train_op = opt.apply_gradients(grads, global_step=global_step)
        config = tf.ConfigProto(allow_soft_placement=True)
        with tf.Session(config=config) as sess:
            sess.run(tf.global_variables_initializer())
            tf.train.start_queue_runners(sess=sess)
            for step in range(3):
                print("step", step, "%.6f" % sess.run([train_op, loss])[1])


if __name__ == "__main__":
    train(sys.argv[1], int(sys.argv[2]))
'''

_WARNING = "simulating 2 logical devices on the CPU"


def fix(source: str) -> str:
    source = textwrap.dedent(source)
    tree = ast.parse(source)
    findings = _scanner.scan_rules(tree, source, "snippet.py")
    new = _fixer.fix(source, tree, findings).source
    assert parse_ok(new)
    return new


def _function(source: str, name: str) -> ast.FunctionDef:
    (func,) = [
        n
        for n in ast.walk(ast.parse(source))
        if isinstance(n, ast.FunctionDef) and n.name == name
    ]
    return func


def _first_statement(func: ast.FunctionDef) -> str:
    """The function's first statement after its docstring."""
    body = func.body
    docstring = isinstance(body[0], ast.Expr) and isinstance(
        body[0].value, ast.Constant
    )
    return ast.unparse(body[1] if docstring else body[0])


def test_plain_loop_resolves_its_devices_before_the_graph():
    new = fix(QUEUE_TOWERS)
    train = _function(new, "train")
    assert _first_statement(train) == "devices = emg.devices.resolve(num_gpus=num_gpus)"
    assert ast.unparse(train.body[2]).startswith("with tf.Graph().as_default()")
    assert "        devices=devices,\n" in new
    assert new.count("emg.devices.resolve(") == 1


@pytest.mark.parametrize(
    "name, function, count",
    [
        ("tower_loop_inception.py", "train", "NUM_GPUS"),
        ("tower_loop_inception_every_tower.py", "train", "NUM_GPUS"),
        ("slim_deploy_clones.py", "main", "NUM_CLONES"),
        ("estimator_model_fn_loop.py", "main", "num_gpus"),
    ],
    ids=["inception", "inception_every_tower", "slim_clones", "model_fn"],
)
def test_every_tower_shape_resolves_first(name, function, count):
    new = _runner.process(str(CORPUS / name)).rewritten
    first = _first_statement(_function(new, function))
    assert first == f"devices = emg.devices.resolve(num_gpus={count})"
    assert new.count("emg.devices.resolve(") == 1
    assert "devices=devices" in new


def test_model_fn_devices_go_to_the_function_building_the_estimator():
    """Not the model_fn: it runs after the input_fn, inside Estimator.train."""
    new = _runner.process(str(CORPUS / "estimator_model_fn_loop.py")).rewritten
    main = new[new.index("def main(") :]
    assert main.index("devices = emg.devices.resolve(") < main.index("Estimator(")
    assert "emg.replicate_model_fn(get_model_fn(num_gpus, " in new
    assert "devices=devices)" in new


def test_sliced_loop_at_module_level_resolves_after_its_count():
    new = _runner.process(str(CORPUS / "tower_loop_slices.py")).rewritten
    assert (
        "num_gpus = int(sys.argv[2]) if len(sys.argv) > 2 else 2\n"
        "devices = emg.devices.resolve(num_gpus=num_gpus)\n"
    ) in new


def test_count_from_a_local_is_resolved_right_after_it():
    source = QUEUE_TOWERS.replace(
        '    """Builds the input, then one tower per GPU."""\n',
        '    """Builds the input, then one tower per GPU."""\n'
        "    print(data_dir)\n"
        "    towers = num_gpus\n"
        "    print(towers)\n",
    ).replace("for i in range(num_gpus):", "for i in range(towers):")
    new = fix(source)
    assert (
        "    print(data_dir)\n"
        "    towers = num_gpus\n"
        "    devices = emg.devices.resolve(num_gpus=towers)\n"
        "    print(towers)\n"
    ) in new


def test_count_assigned_inside_the_graph_block_is_resolved_there():
    source = QUEUE_TOWERS.replace(
        "        features_splits = tf.split(features, num_gpus)\n",
        "        towers = num_gpus\n        features_splits = tf.split(features, towers)\n",
    ).replace("for i in range(num_gpus):", "for i in range(towers):")
    new = fix(source)
    assert (
        "        towers = num_gpus\n"
        "        devices = emg.devices.resolve(num_gpus=towers)\n"
        "        features_splits = tf.split(features, towers)\n"
    ) in new


def test_count_bound_by_an_enclosing_for_is_resolved_first_in_its_body():
    lines = QUEUE_TOWERS.replace("range(num_gpus)", "range(towers)").split("\n")
    start = lines.index('    with tf.Graph().as_default(), tf.device("/cpu:0"):')
    end = lines.index('if __name__ == "__main__":') - 2
    lines[start:end] = ["    for towers in [num_gpus]:"] + [
        "    " + line if line else line for line in lines[start:end]
    ]
    new = fix("\n".join(lines))
    assert (
        "    for towers in [num_gpus]:\n"
        "        devices = emg.devices.resolve(num_gpus=towers)\n"
        "        with tf.Graph().as_default()"
    ) in new


def test_the_name_avoids_the_module_names():
    source = QUEUE_TOWERS.replace(
        "def train(data_dir, num_gpus):", "def train(data_dir, num_gpus, devices=None):"
    )
    new = fix(source)
    assert "    devices_2 = emg.devices.resolve(num_gpus=num_gpus)\n" in new
    assert "devices=devices_2," in new


def test_module_level_loop_with_a_literal_count_resolves_after_the_import():
    body = QUEUE_TOWERS[QUEUE_TOWERS.index("        global_step = ") :]
    body = body[: body.index("if __name__")]
    script = QUEUE_TOWERS[: QUEUE_TOWERS.index("def train(")]
    script += "num_gpus = 2\ndata_dir = '.'\n" + textwrap.dedent(body)
    script = script.replace("range(num_gpus)", "range(2)")
    new = fix(script)
    assert (
        "import estimator_multigpu as emg\n"
        "devices = emg.devices.resolve(num_gpus=emg.devices.env_num_gpus(2))\n"
    ) in new


def test_statement_sharing_the_first_line_keeps_the_call_in_place():
    source = QUEUE_TOWERS.replace(
        '    """Builds the input, then one tower per GPU."""\n',
        '    """Builds the input, then one tower per GPU."""; x = 1\n',
    )
    new = fix(source)
    assert "devices=emg.devices.resolve(num_gpus=num_gpus)," in new


def _trained(proc) -> list[str]:
    assert proc.returncode == 0, proc.stderr[-3000:]
    return [line for line in proc.stdout.splitlines() if line.startswith("step")]


@pytest.mark.slow
def test_two_towers_train_on_one_cpu_without_simulate(tmp_path):
    """No simulate call: one CPU device, --num_gpus=2, a queue input first."""
    script = tmp_path / "towers.py"
    script.write_text(fix(QUEUE_TOWERS))
    one = run_script(script, tmp_path, "1", CUDA_VISIBLE_DEVICES="")
    two = run_script(script, tmp_path, "2", CUDA_VISIBLE_DEVICES="")
    assert len(_trained(two)) == 3
    assert two.stderr.count(_WARNING) == 1
    assert _WARNING not in one.stderr
    assert _trained(two) == _trained(one)


@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    ["tower_loop_inception.py", "tower_loop_slices.py", "estimator_model_fn_loop.py"],
)
def test_rewritten_shapes_run_two_towers_on_one_cpu(name, tmp_path):
    path = rewrite(name, tmp_path)
    proc = run_script(path, tmp_path / "work", "2", CUDA_VISIBLE_DEVICES="")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stderr.count(_WARNING) == 1
