"""A tower loop inside a model_fn gets the edits that make it one replicated tower.

The corpus script has the cifar10_estimator shape (device string built in the
loop, tf.gradients per tower, inline averaging, per-tower input lists). Its
`--fix` output trains on one tower; the port the finding spells out, done by
hand below, trains on two devices to the same weights.
"""

import ast
import textwrap

import pytest
from migrate_helpers import (
    CORPUS,
    RESET_GRAPH,
    TWO_DEVICES,
    run_script,
    same_step,
    script_lines,
)

from estimator_multigpu.migrate import (
    _fixer,
    _passes,
    _runner,
    _scanner,
)

SCRIPT = CORPUS / "estimator_hand_towers.py"

# The corpus model_fn after the edits the finding lists (and --fix's renames).
PORTED = """
import sys

import numpy as np
import tensorflow.compat.v1 as tf

import estimator_multigpu as emg

emg.devices.simulate(2)
tf.disable_v2_behavior()


def model_fn(features, labels, mode, params):
    tower_features = features
    tower_labels = labels
    with tf.variable_scope("model"):
        w = tf.get_variable("w", [3, 2], initializer=tf.zeros_initializer())
        logits = tf.matmul(tower_features, w)
        loss = tf.losses.sparse_softmax_cross_entropy(tower_labels, logits)
        variables = tf.trainable_variables()
        grads = tf.gradients(loss, variables)
    optimizer = emg.TowerOptimizer(tf.train.GradientDescentOptimizer(0.5))
    step = tf.train.get_global_step()
    train_op = optimizer.apply_gradients(zip(grads, variables), global_step=step)
    return emg.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def input_fn():
    x = np.random.RandomState(0).randn(8, 3).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int32)
    return tf.data.Dataset.from_tensors((x, y)).repeat()


estimator = emg.estimator.Estimator(
    emg.replicate_model_fn(model_fn, devices=emg.devices.resolve(num_gpus=2)),
    model_dir=sys.argv[1],
    params={"num_towers": 2},
)
estimator.train(input_fn, steps=3)
print("global_step", estimator.get_variable_value("global_step"))
print("w", np.round(estimator.get_variable_value("model/w"), 4).tolist())
"""


def scan(source):
    source = textwrap.dedent(source)
    tree = ast.parse(source)
    found = _scanner.scan_rules(tree, source, "snippet.py")
    return _passes.scan(tree, source, "snippet.py", found)


def _loop_finding(findings):
    (finding,) = [f for f in findings if f.api == "tower loop"]
    return finding


def _run(path, model_dir):
    proc = run_script(path, model_dir)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.splitlines()[-2:]


def test_loop_in_model_fn_names_every_edit_at_the_loop():
    finding = _loop_finding(_runner.process(str(SCRIPT)).findings)
    line = (
        SCRIPT.read_text()
        .splitlines()
        .index('    for i in range(params["num_towers"]):  # expect: tower-loop')
    )
    assert (finding.line, finding.col) == (line + 1, 5)
    assert finding.rule.replacement == (
        "build one tower per model_fn() call: the loop body once, without "
        "`for i in ...` and its tf.device (i = 0); "
        "tower_features[i] -> tower_features; tower_labels[i] -> tower_labels; "
        "the tower's own values instead of the lists tower_gradvars, tower_losses "
        "(no averaging, no tf.concat over towers); "
        "optimizer -> emg.TowerOptimizer(optimizer) (its apply_gradients takes "
        "tf.gradients pairs too); where the Estimator is built: "
        "model_fn=emg.replicate_model_fn(model_fn, "
        "devices=emg.devices.resolve(num_gpus=params['num_towers'])); "
        "the input_fn returns the global batch, not per-tower lists "
        "(emg-migrate --fix cannot: the loop's count is not a parameter of the "
        "function that returns the model_fn (`get_model_fn(num_gpus, ...)`))"
    )


def test_inline_averaging_in_model_fn_says_to_delete_it():
    findings = _runner.process(str(SCRIPT)).findings
    (finding,) = [f for f in findings if f.api == "gradient averaging"]
    assert (
        finding.line
        == SCRIPT.read_text()
        .splitlines()
        .index(
            "    for grad, var in itertools.chain(*tower_gradvars):  # expect: tower-loop"
        )
        + 1
    )
    assert finding.rule.replacement.startswith(
        "nothing: delete the averaging and pass the one tower's (gradient, variable) "
        "pairs to optimizer.apply_gradients as they are"
    )


def test_loop_outside_a_model_fn_keeps_the_minimize_advice():
    source = """
    import tensorflow as tf

    def train(images, num_gpus, opt):
        tower_grads = []
        for i in range(num_gpus):
            with tf.device("/gpu:%d" % i):
                loss = tf.reduce_sum(images[i])
                tower_grads.append(opt.compute_gradients(loss))
        return tower_grads
    """
    finding = _loop_finding(scan(source))
    assert "emg.towers.minimize" in finding.rule.replacement
    assert "build one tower per" not in finding.rule.replacement
    assert not [f for f in scan(source) if "delete the averaging" in f.rule.replacement]


@pytest.mark.slow
def test_fixed_script_trains_and_the_reported_port_matches_it(tmp_path):
    fixed = tmp_path / "fixed.py"
    fixed.write_text(_runner.process(str(SCRIPT)).rewritten)
    ported = tmp_path / "ported.py"
    ported.write_text(PORTED)
    one = _run(fixed, tmp_path / "one")
    two = _run(ported, tmp_path / "two")
    assert one[0] == "global_step 3"
    assert two == one


LOOP_IN_FN = CORPUS / "estimator_model_fn_loop.py"


def test_cifar10_estimator_loop_becomes_one_replicated_tower():
    result = _runner.process(str(LOOP_IN_FN))
    new = result.rewritten
    assert not result.remaining
    assert "        for i in range(1):  # expect: tower-loop\n" in new
    # The tower's own tf.device goes: the towers' devices are emg's.
    assert "tf.device(device_setter)" not in new
    assert (
        '                with tf.name_scope("tower_%d" % i) as name_scope:\n'
        "                    loss, gradvars, preds = _tower_fn(\n"
    ) in new
    assert (
        "        model_fn=emg.replicate_model_fn(get_model_fn(num_gpus, "
        '"CPU"), devices=devices), '
        "model_dir=model_dir\n"
    ) in new
    assert 'input_fn, subset="train", num_shards=1, batch_size=8\n' in new


def test_rewritten_model_fn_loop_finding_names_the_edits_made():
    findings = _runner.process(str(LOOP_IN_FN)).findings
    loop = _loop_finding(findings)
    assert loop.fixed
    assert loop.rule.replacement == (
        "one tower per model_fn call: `for ... in range(1)` and the loop's "
        "tf.device dropped (line 61); at line 137 model_fn=emg.replicate_model_fn("
        'get_model_fn(num_gpus, "CPU"), devices=emg.devices.resolve('
        "num_gpus=num_gpus)); num_shards=1 at line 134 (the input_fn returns the "
        "global batch, split by replicate_model_fn); the model_fn's plain "
        "optimizer acts as emg.TowerOptimizer there"
    )
    (average,) = [f for f in findings if f.api == "gradient averaging"]
    assert average.fixed and "averages the one tower's" in average.rule.replacement


@pytest.mark.parametrize(
    "old, new",
    [
        ("num_shards=num_gpus, batch_size=8", "num_shards=2, batch_size=8"),
        ("num_devices = num_gpus\n", "num_devices = num_gpus * 2\n"),
        (
            "                    with tf.device(device_setter):\n",
            "                    with tf.device(device_setter), tf.name_scope('x'):\n",
        ),
    ],
    ids=["shards_not_the_count", "count_not_a_parameter", "device_with_shared"],
)
def test_other_model_fn_loops_keep_their_edits_described(old, new):
    source = LOOP_IN_FN.read_text()
    assert old in source
    source = source.replace(old, new)
    tree = ast.parse(source)
    findings = _passes.scan(
        tree, source, "s.py", _scanner.scan_rules(tree, source, "s.py")
    )
    rewritten = _fixer.fix(source, tree, findings).source
    assert "replicate_model_fn" not in rewritten
    assert "range(num_devices)" in rewritten
    loop = _loop_finding(findings)
    assert not loop.fixed
    assert "emg.replicate_model_fn(model_fn" in loop.rule.replacement
    assert "(emg-migrate --fix cannot: " in loop.rule.replacement


@pytest.mark.slow
def test_rewritten_model_fn_loop_trains_alike_on_one_and_two_devices(tmp_path):
    fixed = tmp_path / "fixed.py"
    fixed.write_text(_runner.process(str(LOOP_IN_FN)).rewritten)
    runs = [(str(n), fixed, [tmp_path / f"model{n}", n]) for n in (1, 2)]
    out = script_lines(runs, TWO_DEVICES, RESET_GRAPH, timeout=600)
    assert out["1"][0] == "global_step 3"
    assert same_step(out["2"], out["1"]), (out["2"], out["1"])
    graphs = [(tmp_path / f"model{n}" / "graph.pbtxt").read_text() for n in (1, 2)]
    assert "tower_1/" not in graphs[0] and "tower_1/" in graphs[1]
