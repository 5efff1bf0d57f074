"""Tower loops beyond the tutorial's shape: --fix makes the body the tower_fn of emg.towers.minimize."""

import pytest
from migrate_helpers import CORPUS, parse_ok, same_step
from test_migrate_tower_loops import CANONICAL, fix, run_at_one_and_two

from estimator_multigpu.migrate import _runner

SLICES = (CORPUS / "tower_loop_slices.py").read_text()


def _run(path, tmp_path, counts=(1, 2)):
    """The corpus script and its --fix rewrite at each device count."""
    result = _runner.process(str(path))
    assert not result.remaining
    new = tmp_path / "rewritten.py"
    new.write_text(result.rewritten)
    return run_at_one_and_two([("loop", str(path)), ("minimize", str(new))], counts)


def test_sliced_loop_with_its_own_optimizer_becomes_a_tower_function():
    new, findings = fix(SLICES)
    assert parse_ok(new)
    assert all(f.fixed for f in findings)
    assert (
        "    optimizer = tf.train.GradientDescentOptimizer(learning_rate=0.5)\n"
        "\n"
        "    def tower_fn(_x, _y):\n"
        "        global accuracy\n"
        "        i = emg.towers.tower_index()\n"
        "        reuse_vars = True if i > 0 else False\n"
        "        logits_train = net(_x, reuse=reuse_vars)\n"
    ) in new
    assert (
        "        return loss_op\n"
        "\n"
        "    loss_op, train_op = emg.towers.minimize(\n"
        "        tower_fn,\n"
        "        (X, Y),\n"
        "        optimizer,\n"
        "        devices=devices,\n"
        "    )\n"
    ) in new
    for gone in ("tower_grads", "average_gradients", "reuse_vars = True\n", "_x = X["):
        assert gone not in new
    # Tower 0's own work stays in tower 0.
    assert "        if i == 0:\n            correct_pred = " in new


def test_a_comprehension_variable_after_the_loop_is_not_left_by_the_towers():
    source = SLICES + "    print([i for i in range(num_gpus)])\n"
    new, _ = fix(source)
    assert "        global accuracy\n" in new


def test_sliced_loop_finding_names_the_tower_function():
    _, findings = fix(SLICES)
    (loop,) = [f for f in findings if f.api == "tower loop"]
    assert loop.rule.replacement.startswith(
        "def tower_fn(_x, _y): the loop body, returning loss_op "
        "(i = emg.towers.tower_index()); optimizer = "
        "tf.train.GradientDescentOptimizer(learning_rate=0.5) before it; "
        "loss_op, train_op = emg.towers.minimize(tower_fn, (X, Y), optimizer, "
        "devices=emg.devices.resolve(num_gpus=num_gpus))"
    )


@pytest.mark.parametrize(
    "old, new, reason",
    [
        (
            "(i + 1) * batch_size]",
            "(i + 2) * batch_size]",
            "no `X\\[i\\]` shard of a tf.split batch",
        ),
        (
            "optimizer = tf.train.GradientDescentOptimizer(learning_rate=0.5)",
            "optimizer = tf.train.GradientDescentOptimizer(learning_rate=0.5 * i)",
            "the optimizer is not built once",
        ),
        (
            "            reuse_vars = True\n",
            "            reuse_vars = True\n            loss_op = loss_op * 2\n",
            "changes `loss_op` after its gradients",
        ),
        (
            "    tower_grads = average_gradients(tower_grads)\n",
            "    tower_grads = average_gradients(tower_grads)\n    print(accuracy)\n",
            "reads `accuracy` before the towers are built",
        ),
    ],
    ids=["uneven_slice", "optimizer_per_tower", "loss_changed", "left_name_read"],
)
def test_shapes_the_tower_function_cannot_take_say_why(old, new, reason):
    assert old in SLICES
    source = SLICES.replace(old, new)  # Every occurrence.
    rewritten, findings = fix(source)
    (loop,) = [f for f in findings if f.api == "tower loop"]
    assert not loop.fixed
    assert "emg.towers.minimize(" not in rewritten
    assert __import__("re").search(reason, loop.rule.replacement)


def test_argument_reading_the_index_reads_the_tower_index():
    source = CANONICAL.replace(
        "tower_loss(image_splits[i], label_splits[i], 0.01)",
        "tower_loss(image_splits[i], label_splits[i], 0.01 * i)",
    )
    new, findings = fix(source)
    assert all(f.fixed for f in findings)
    assert (
        "    def tower_fn(images_shard, labels_shard):\n"
        "        i = emg.towers.tower_index()\n"
        "        loss = tower_loss(images_shard, labels_shard, 0.01 * i)\n"
        "        return loss\n"
    ) in new
    assert "        (images, labels),\n" in new


def test_other_slices_stay_in_the_tower_as_written():
    source = SLICES.replace(
        "_y = Y[i * batch_size : (i + 1) * batch_size]",
        "_y = Y[i * batch_size : (i + 2) * batch_size]",
    )
    new, _ = fix(source)
    assert "    def tower_fn(_x):\n" in new
    assert "        _y = Y[i * batch_size : (i + 2) * batch_size]\n" in new
    assert "        (X,),\n" in new


def test_split_the_rewrite_cannot_take_is_read_per_tower_as_written():
    source = CANONICAL.replace(
        "label_splits = tf.split(labels, NUM_DEVICES)",
        "label_splits = tf.split(labels, NUM_DEVICES, axis=1)",
    )
    new, _ = fix(source)
    assert (
        "    def tower_fn(images_shard):\n"
        "        i = emg.towers.tower_index()\n"
        "        loss = tower_loss(images_shard, label_splits[i], 0.01)\n"
    ) in new
    assert "        (images,),\n" in new


@pytest.mark.slow
def test_rewritten_sliced_loop_takes_the_one_device_steps_on_two(tmp_path):
    out = _run(CORPUS / "tower_loop_slices.py", tmp_path)
    assert out["loop1"][0] == "loss 1 1.098612"
    assert out["minimize1"] == out["loop1"]
    assert same_step(out["minimize2"], out["loop1"]), out
    # The loop printed its last tower's loss; the rewrite, the global batch's.
    assert same_step(out["loop2"][-1:], out["loop1"][-1:]), out


INCEPTION = (CORPUS / "tower_loop_inception.py").read_text()


def test_inception_loop_becomes_a_tower_function():
    new, findings = fix(INCEPTION)
    assert parse_ok(new)
    assert all(f.fixed for f in findings)
    # Names the loop leaves for the code after it stay bound in train().
    assert (
        "        reuse_variables = None\n"
        # The comments of the loop's text the rewrite dropped, carried.
        "        # (before --fix) # expect: tower-loop\n"
        "        # (before --fix) # Force all Variables to reside on the CPU.\n"
        "        # (before --fix) # Reuse variables for the next tower.\n"
        "        batchnorm_updates = None\n"
        "        summaries = None\n"
        "\n"
        "        def tower_fn(images_shard, labels_shard):\n"
        "            nonlocal batchnorm_updates, summaries\n"
        "            i = emg.towers.tower_index()\n"
        "            reuse_variables = True if i > 0 else None\n"
        '            with tf.name_scope("%s_%d" % (TOWER_NAME, i)) as scope:\n'
        '                with slim.arg_scope([slim.variable], device="/cpu:0"):\n'
        "                    loss = _tower_loss(\n"
        "                        images_shard, labels_shard, scope, reuse_variables\n"
        "                    )\n"
    ) in new
    assert (
        "                batchnorm_updates = tf.get_collection(UPDATE_OPS_COLLECTION, scope)\n"
        "            return loss\n"
    ) in new
    # The averaged gradients the histograms read are the aggregated ones.
    assert (
        "        grads = []\n"
        "        loss, apply_gradient_op = emg.towers.minimize(\n"
        "            tower_fn,\n"
        "            (images, labels),\n"
        "            emg.TowerOptimizer(opt, transform_gradients=lambda pairs: "
        "grads.extend(pairs) or pairs),\n"
        "            devices=devices,\n"
        "            global_step=global_step,\n"
        "        )\n"
        "        summaries.extend(input_summaries)\n"
    ) in new
    for gone in ("tower_grads", "_average_gradients", "reuse_variables = True\n"):
        assert gone not in new


def test_inception_loop_finding_names_the_statements_in_order():
    _, findings = fix(INCEPTION)
    (loop,) = [f for f in findings if f.api == "tower loop"]
    assert (
        "; grads = []; loss, apply_gradient_op = emg.towers.minimize(tower_fn, "
        "(images, labels), emg.TowerOptimizer(opt, transform_gradients=lambda "
        "pairs: grads.extend(pairs) or pairs), "
        "devices=emg.devices.resolve(num_gpus=NUM_GPUS), global_step=global_step) "
        "(and drop the loop"
    ) in loop.rule.replacement


@pytest.mark.slow
def test_rewritten_inception_loop_takes_the_one_device_steps_on_two(tmp_path):
    out = _run(CORPUS / "tower_loop_inception.py", tmp_path)
    assert out["loop1"][-2] == "step 3.0"
    assert out["minimize1"] == out["loop1"]
    # Batch-norm statistics: the last tower's shard, as the loop kept them.
    assert same_step(out["minimize2"][:-1], out["loop1"][:-1]), out
    assert same_step(out["minimize2"][-1:], out["loop2"][-1:]), out
    assert not same_step(out["minimize2"][-1:], out["loop1"][-1:]), out


EVERY_TOWER = CORPUS / "tower_loop_inception_every_tower.py"


def test_bound_name_scope_stays_around_the_tower_body():
    # tower 0 has no name scope of its own: `scope` filters collections to the
    # tower only if the function keeps the loop's scope, at 1 device too.
    new, _ = fix(EVERY_TOWER.read_text())
    assert (
        "            i = emg.towers.tower_index()\n"
        "            reuse_variables = True if i > 0 else None\n"
        '            with tf.name_scope("%s_%d" % (TOWER_NAME, i)) as scope:\n'
        "                with slim.arg_scope("
    ) in new
    assert (
        "                summaries = tf.get_collection(tf.GraphKeys.SUMMARIES, scope)\n"
        "            return loss\n"
    ) in new
    assert "get_name_scope()" not in new


def test_global_initializer_also_initializes_the_towers_local_variables():
    new, _ = fix(EVERY_TOWER.read_text())
    assert (
        "        init = tf.group(tf.global_variables_initializer(), "
        "tf.local_variables_initializer())\n"
    ) in new


def test_initializer_is_left_alone_where_the_script_runs_the_local_one():
    source = EVERY_TOWER.read_text().replace(
        "            sess.run(init)\n",
        "            sess.run(init)\n            sess.run(tf.local_variables_initializer())\n",
    )
    new, _ = fix(source)
    assert "        init = tf.global_variables_initializer()\n" in new


def test_initializer_outside_a_rewritten_tower_module_is_left_alone():
    new, _ = fix(
        "import tensorflow as tf\n"
        "x = tf.get_variable('x', [])\n"
        "init = tf.global_variables_initializer()\n"
    )
    assert "tf.local_variables_initializer" not in new


def test_two_space_body_moved_deeper_leaves_no_trailing_spaces():
    # research/inception indents by two: the kept name scope puts the body
    # deeper than it was, and its blank lines stay empty.
    lines = EVERY_TOWER.read_text().splitlines()
    source = "\n".join(
        " " * ((len(x) - len(x.lstrip(" "))) // 2) + x.lstrip(" ") for x in lines
    ).replace("\n          # Retain", "\n\n          # Retain")
    new, findings = fix(source)
    assert all(f.fixed for f in findings if f.rule.rule_id == "tower-loop")
    assert "\n\n            # Retain the summaries" in new
    assert [x for x in new.splitlines() if x != x.rstrip()] == []


@pytest.mark.slow
def test_every_tower_inception_shape_trains_on_one_and_two_devices(tmp_path):
    # Input summaries merged with the last tower's (no duplicate tag at 1
    # device) and tower 1's loss averages initialized (LOCAL variables).
    out = _run(EVERY_TOWER, tmp_path)
    assert out["loop1"][0] == "loss 0 1.098612"
    assert out["minimize1"] == out["loop1"]
    assert same_step(out["minimize2"][:3], out["loop1"][:3]), out
    assert out["minimize2"][3] == out["loop2"][3] == "summaries 6"
