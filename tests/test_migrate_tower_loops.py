"""Hand-written tower loops: found by what they do; the canonical one becomes emg.towers.minimize."""

import ast
import textwrap

import pytest
from migrate_helpers import (
    CORPUS,
    RESET_GRAPH,
    TWO_DEVICES,
    parse_ok,
    same_step,
    script_lines,
)

from estimator_multigpu.migrate import (
    _fixer,
    _runner,
    _scanner,
)


def scan(source):
    source = textwrap.dedent(source)
    return _scanner.scan_rules(ast.parse(source), source, "snippet.py")


def fix(source):
    source = textwrap.dedent(source)
    tree = ast.parse(source)
    findings = _scanner.scan_rules(tree, source, "snippet.py")
    return _fixer.fix(source, tree, findings).source, findings


def towers_found(source):
    return [(f.line, f.api) for f in scan(source) if f.rule.rule_id == "tower-loop"]


LOOP = """\
import tensorflow as tf


def build(devices, opt, features, num_gpus, device_type):
    tower_losses = []
    for i in range(num_gpus):
        {device_line}
        with tf.device({device}):
            loss = model(features[i])
            tower_losses.append(loss)
    return tower_losses
"""


@pytest.mark.parametrize(
    "device_line, device",
    [
        ("pass", "'/gpu:%d' % i"),
        ("pass", "'/gpu:{}'.format(i)"),
        ("pass", "f'/gpu:{i}'"),
        ("worker = '/{}:{}'.format(device_type, i)", "worker"),
        (
            "setter = local_device_setter(worker_device='/gpu:%d' % i)",
            "setter",
        ),
        ("pass", "device_name(i)"),
    ],
    ids=["percent", "format", "f_string", "variable", "device_setter", "helper"],
)
def test_loop_collecting_losses_is_found_however_the_device_is_named(
    device_line, device
):
    source = LOOP.format(device_line=device_line, device=device)
    assert towers_found(source) == [(6, "tower loop")]


def test_loop_on_one_fixed_device_is_not_a_tower_loop():
    source = LOOP.format(device_line="pass", device="'/cpu:0'")
    assert towers_found(source) == []


def test_tf_gradients_in_the_loop_is_found():
    source = """
    import tensorflow as tf
    for d in devices:
        with tf.device(d):
            grads = tf.gradients(model(x), params)
    """
    assert towers_found(source) == [(3, "tower loop")]


ESTIMATOR_STYLE = """\
import itertools

import tensorflow as tf


def model_fn(features, labels, mode, params):
    tower_losses, tower_gradvars = [], []
    for i in range(params.num_gpus):
        worker_device = '/{}:{}'.format('gpu', i)
        with tf.variable_scope('resnet', reuse=bool(i != 0)):
            with tf.device(worker_device):
                loss, gradvars = tower_fn(features[i], labels[i])
                tower_losses.append(loss)
                tower_gradvars.append(gradvars)
    all_grads = {}
    for grad, var in itertools.chain(*tower_gradvars):
        all_grads.setdefault(var, []).append(grad)
    gradvars = []
    for var, grads in all_grads.items():
        with tf.device(var.device):
            gradvars.append((tf.add_n(grads) / len(grads), var))
    mean = [g for g in zip(*tower_losses)]
    return gradvars, mean
"""


def test_estimator_style_loop_and_inline_averaging_are_found():
    found = [
        (f.line, f.api, f.rule.replacement)
        for f in scan(ESTIMATOR_STYLE)
        if f.rule.rule_id == "tower-loop"
    ]
    assert [(line, api) for line, api, _ in found] == [
        (8, "tower loop"),
        (16, "gradient averaging"),
        (22, "gradient averaging"),
    ]
    # Inside a model_fn the advice is replicate_model_fn, not minimize.
    assert "emg.replicate_model_fn" in found[0][2]


CANONICAL = (CORPUS / "tower_loop_split.py").read_text()


def test_canonical_loop_becomes_minimize():
    new, findings = fix(CANONICAL)
    assert parse_ok(new)
    assert "loss, train_op = emg.towers.minimize(\n" in new
    assert (
        "        lambda images_shard, labels_shard: "
        "tower_loss(images_shard, labels_shard, 0.01),\n"
        "        (images, labels),\n"
        "        opt,\n"
        '        devices=["/cpu:%d" % i for i in range(NUM_DEVICES)],\n'
        "        global_step=global_step,\n"
        "    )  # the update\n"
    ) in new
    for gone in (
        "tower_grads",
        "average_gradients",
        "compute_gradients",
        "for i in range(NUM_DEVICES):",
    ):
        assert gone not in new
    # What the user's code does around the loop is kept.
    assert "image_splits = tf.split(images, NUM_DEVICES)" in new
    assert "# One tower per device, sharing the variables.\n" in new
    assert all(f.fixed for f in findings)


def test_canonical_loop_finding_names_the_exact_call():
    (loop,) = [f for f in scan(CANONICAL) if f.api == "tower loop"]
    assert loop.rule.replacement.startswith(
        "loss, train_op = emg.towers.minimize(lambda images_shard, labels_shard: "
        "tower_loss(images_shard, labels_shard, 0.01), (images, labels), opt, "
        'devices=["/cpu:%d" % i for i in range(NUM_DEVICES)], '
        "global_step=global_step)"
    )


@pytest.mark.parametrize(
    "old, new, reason",
    [
        (
            "    train_op = opt.apply_gradients(grads, global_step=global_step)",
            "    tf.summary.histogram('g', grads[0][0])\n"
            "    train_op = opt.apply_gradients(grads, global_step=global_step)",
            "reads `grads`, which the rewrite removes",
        ),
        (
            'with tf.name_scope("tower_%d" % i):',
            'with tf.variable_scope("tower_%d" % i) as scope:',
            "is not tf.device, a scope without `as`",
        ),
        (
            "global_step=global_step)",
            "global_step=global_step, name='step')",
            "apply_gradients takes more than grads and global_step",
        ),
        (
            "    grads = average_gradients(tower_grads)",
            "    grads = average_gradients(tower_grads)\n    print(loss)",
            "reads `loss` before the update is built",
        ),
    ],
    ids=[
        "grads_read_later",
        "scope_bound",
        "apply_named",
        "loss_read_before_apply",
    ],
)
def test_other_shapes_stay_findings_that_say_why(old, new, reason):
    assert old in CANONICAL
    source = CANONICAL.replace(old, new)
    rewritten, findings = fix(source)
    assert rewritten == source
    (loop,) = [f for f in findings if f.api == "tower loop"]
    assert not loop.fixed
    assert "emg.towers.minimize(tower_fn, inputs, optimizer" in loop.rule.replacement
    assert __import__("re").search(reason, loop.rule.replacement)


def test_statement_sharing_a_line_is_not_rewritten():
    source = CANONICAL.replace(
        "    tower_grads = []\n", "    tower_grads = []; unrelated = 1\n"
    )
    assert fix(source)[0] == source


def test_helper_used_elsewhere_is_kept():
    source = CANONICAL + "\n\nOTHER = average_gradients\n"
    new, findings = fix(source)
    assert "def average_gradients(tower_grads):" in new
    assert "emg.towers.minimize(" in new
    helper = [f for f in findings if f.api == "gradient averaging"]
    assert [f.fixed for f in helper] == [False]


def run_at_one_and_two(scripts, counts=(1, 2)) -> dict:
    """ "{label}{n}" -> output lines of each (label, path) script at each device
    count (argv: a work folder, the count), in one subprocess."""
    runs = [
        (f"{label}{n}", path, [f"{path}.work", n])
        for n in counts
        for label, path in scripts
    ]
    return script_lines(runs, TWO_DEVICES, RESET_GRAPH, timeout=600)


@pytest.mark.slow
def test_rewritten_loop_trains_like_the_loop_at_one_and_two_devices(tmp_path):
    result = _runner.process(str(CORPUS / "tower_loop_split.py"))
    assert not result.remaining
    new = tmp_path / "rewritten.py"
    new.write_text(result.rewritten)
    old = str(CORPUS / "tower_loop_split.py")
    out = run_at_one_and_two([("loop", old), ("minimize", str(new))])
    assert out["loop1"][0] == "step 3"
    assert out["minimize1"] == out["loop1"]
    assert same_step(out["minimize2"], out["loop2"]), out
    assert same_step(out["loop2"], out["loop1"]), out


DEQUEUE = (CORPUS / "tower_loop_dequeue.py").read_text()


def test_per_tower_dequeue_becomes_shards_of_one_global_batch():
    new, findings = fix(DEQUEUE)
    assert parse_ok(new)
    assert (
        "    image_batch, label_batch = [tf.concat(parts, 0) for parts in "
        "zip(*[batch_queue.dequeue() for i in range(NUM_DEVICES)])]\n"
    ) in new
    assert (
        "        lambda image_batch_shard, label_batch_shard: tower_loss("
        "tf.get_default_graph().get_name_scope(), image_batch_shard, "
        "label_batch_shard),\n"
        "        (image_batch, label_batch),\n"
    ) in new
    assert all(f.fixed for f in findings)
    for gone in (
        "as scope",
        "tower_grads",
        "opt.apply_gradients",
        "average_gradients(",
    ):
        assert gone not in new


def test_scope_filtered_collection_is_read_after_the_towers():
    new, _ = fix(DEQUEUE)
    minimize = new.index("emg.towers.minimize(")
    collected = new.index("    summaries = tf.get_collection(tf.GraphKeys.SUMMARIES)\n")
    assert minimize < collected < new.index("    for grad, var in grads:")


def test_averaged_gradients_looped_over_are_the_aggregated_ones():
    new, _ = fix(DEQUEUE)
    assert "    grads = []\n" in new
    assert (
        "        emg.TowerOptimizer(opt, transform_gradients=lambda pairs: "
        "grads.extend(pairs) or pairs),\n"
    ) in new


@pytest.mark.parametrize(
    "old, new, reason",
    [
        (
            "                    grads = opt.compute_gradients(loss)\n",
            "                    tf.summary.image('x', image_batch)\n"
            "                    grads = opt.compute_gradients(loss)\n",
            "`image_batch` is used beyond the tower call",
        ),
        (
            "tower_loss(scope, image_batch, label_batch)",
            "tower_loss(scope, image_batch, label_batch[:1])",
            "`label_batch` is used beyond the tower call",
        ),
        (
            "tower_loss(scope, image_batch, label_batch)",
            "tower_loss(scope, image_batch, 0)",
            "`label_batch` is dequeued but not passed to the tower",
        ),
        (
            "tf.get_collection(tf.GraphKeys.SUMMARIES, scope)",
            "tf.get_collection(tf.GraphKeys.SUMMARIES, scope + 'x')",
            "`scope` is used beyond the tower call",
        ),
    ],
    ids=["batch_read_in_tower", "batch_sliced", "batch_unused", "scope_reused"],
)
def test_dequeue_shapes_that_stay_findings(old, new, reason):
    assert old in DEQUEUE
    source = DEQUEUE.replace(old, new)
    rewritten, findings = fix(source)
    assert rewritten == source
    (loop,) = [f for f in findings if f.api == "tower loop"]
    assert not loop.fixed
    assert reason in loop.rule.replacement


@pytest.mark.slow
def test_rewritten_dequeue_loop_trains_like_the_loop_at_one_and_two_devices(tmp_path):
    result = _runner.process(str(CORPUS / "tower_loop_dequeue.py"))
    assert not result.remaining
    new = tmp_path / "rewritten.py"
    new.write_text(result.rewritten)
    old = str(CORPUS / "tower_loop_dequeue.py")
    out = run_at_one_and_two([("loop", old), ("minimize", str(new))])
    assert out["loop1"][-2] == "step 3"
    # The same update at 1 and 2 devices; the loop reports its last tower's
    # loss, the rewrite the loss over the global batch (the 1-device loss).
    assert out["minimize1"] == out["loop1"]
    assert same_step(out["minimize2"], out["loop1"]), out
    assert same_step(out["loop2"][-1:], out["loop1"][-1:]), out


@pytest.mark.parametrize(
    "device",
    ["'/gpu:%d' % i", "'/gpu:{}'.format(i)", "f'/gpu:{i}'", "'/device:GPU:%d' % i"],
)
@pytest.mark.parametrize("loop", ["range", "xrange"])
def test_gpu_index_devices_become_resolve(device, loop):
    """GPU i over range(n): the first n devices here, simulated ones on a CPU."""
    source = CANONICAL.replace('"/cpu:%d" % i', device)
    source = source.replace("in range(NUM_DEVICES):", f"in {loop}(NUM_DEVICES):")
    new, _ = fix(source)
    assert "    devices = emg.devices.resolve(num_gpus=NUM_DEVICES)\n" in new
    assert "        devices=devices,\n" in new
    assert f"for i in {loop}(NUM_DEVICES)" not in new


@pytest.mark.parametrize(
    "device, loop",
    [
        ("'/gpu:%d' % (i + 1)", "range(NUM_DEVICES)"),
        ("'/gpu:%d' % i", "range(1, NUM_DEVICES)"),
        ("'/job:worker/gpu:%d' % i", "range(NUM_DEVICES)"),
    ],
)
def test_other_devices_are_kept_as_written(device, loop):
    source = CANONICAL.replace('"/cpu:%d" % i', device)
    source = source.replace("for i in range(NUM_DEVICES):", f"for i in {loop}:")
    new, _ = fix(source)
    assert f"devices=[{device} for i in {loop}]" in new
