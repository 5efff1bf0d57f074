"""Tower loops written tersely: --fix rewrites each shape into emg.towers.minimize.

The shapes: shards from one tuple assignment (`xs, ys = tf.split(x, N),
tf.split(y, N)`), a shard read inside the tower's expression, the averaging
nested in the update (`opt.apply_gradients(average_gradients(tower_grads))`),
and statements after the loss (`losses.append(loss)`, a summary,
`tower_grads.append(opt.compute_gradients(loss))` inline).
"""

import pytest
from migrate_helpers import CORPUS, parse_ok, same_step
from test_migrate_tower_def import _run
from test_migrate_tower_loops import CANONICAL, fix

TERSE = (CORPUS / "tower_loop_inline_shards.py").read_text()

TUPLE_SPLIT = (
    "    image_splits = tf.split(images, NUM_DEVICES)\n"
    "    label_splits = tf.split(labels, NUM_DEVICES)\n",
    "    image_splits, label_splits = (\n"
    "        tf.split(images, NUM_DEVICES), tf.split(labels, NUM_DEVICES))\n",
)
IN_EXPRESSION = (
    "loss = tower_loss(image_splits[i], label_splits[i], 0.01)",
    "loss = 2.0 * tower_loss(image_splits[i] + 0.0, label_splits[i], 0.01)",
)
NESTED_AVERAGE = (
    "    grads = average_gradients(tower_grads)\n"
    "    train_op = opt.apply_gradients(grads, global_step=global_step)",
    "    train_op = opt.apply_gradients(\n"
    "        average_gradients(tower_grads), global_step=global_step)",
)
AFTER_LOSS = (
    "                    grads = opt.compute_gradients(loss)\n"
    "                    tower_grads.append(grads)\n",
    "                    losses.append(loss)\n"
    '                    tf.summary.scalar("loss", loss)\n'
    "                    tower_grads.append(opt.compute_gradients(loss))\n",
)
LOSSES = ("    tower_grads = []\n", "    tower_grads = []\n    losses = []\n")


def _variant(*changes):
    source = CANONICAL
    for old, new in changes:
        assert source.count(old) == 1, old
        source = source.replace(old, new)
    return source


def _rewritten(source):
    new, findings = fix(source)
    assert parse_ok(new)
    loops = [f for f in findings if f.api == "tower loop"]
    assert loops and all(f.fixed for f in loops), [
        f.rule.replacement for f in loops if not f.fixed
    ]
    assert "emg.towers.minimize(" in new
    for gone in ("tower_grads", "average_gradients", "compute_gradients"):
        assert gone not in new, new
    return new


@pytest.mark.parametrize(
    "changes",
    [
        [TUPLE_SPLIT],
        [IN_EXPRESSION],
        [NESTED_AVERAGE],
        [AFTER_LOSS, LOSSES],
        [TUPLE_SPLIT, IN_EXPRESSION, NESTED_AVERAGE, AFTER_LOSS, LOSSES],
    ],
    ids=["tuple_split", "in_expression", "nested_average", "after_loss", "all"],
)
def test_each_terse_shape_is_rewritten(changes):
    _rewritten(_variant(*changes))


def test_tuple_split_shards_become_the_global_batches():
    new = _rewritten(_variant(TUPLE_SPLIT))
    assert (
        "lambda images_shard, labels_shard: "
        "tower_loss(images_shard, labels_shard, 0.01),\n"
        "        (images, labels),\n"
    ) in new


def test_nested_average_keeps_the_global_step():
    new = _rewritten(_variant(NESTED_AVERAGE))
    assert "        global_step=global_step,\n" in new
    assert "train_op = opt.apply_gradients(" not in new


def test_statements_after_the_loss_stay_in_the_tower_function():
    new = _rewritten(_variant(AFTER_LOSS, LOSSES))
    assert (
        "        loss = tower_loss(images_shard, labels_shard, 0.01)\n"
        "        losses.append(loss)\n"
        '        tf.summary.scalar("loss", loss)\n'
        "        return loss\n"
    ) in new


def test_the_terse_corpus_script_is_rewritten():
    new = _rewritten(TERSE)
    assert "def tower_fn(x_shard, y_shard):" in new
    assert "tf.square(tf.matmul(x_shard, w) - y_shard)" in new
    assert "        (x, y),\n" in new
    # The loop variable is read only in the shards the parameters replace.
    assert "tower_index()" not in new


def test_a_tuple_element_that_is_no_split_is_read_per_tower_as_written():
    source = _variant(TUPLE_SPLIT).replace(
        "tf.split(images, NUM_DEVICES), tf.split(labels, NUM_DEVICES))",
        "tf.split(images, NUM_DEVICES), tf.unstack(labels, NUM_DEVICES))",
    )
    new = _rewritten(source)
    assert "        loss = tower_loss(images_shard, label_splits[i], 0.01)\n" in new
    assert "        (images,),\n" in new


@pytest.mark.slow
def test_rewritten_terse_loop_trains_like_the_loop_on_one_and_two_devices(tmp_path):
    out = _run(CORPUS / "tower_loop_inline_shards.py", tmp_path)
    assert out["loop1"][0] == out["minimize1"][0]
    assert out["minimize1"] == out["loop1"]
    assert same_step(out["minimize2"], out["loop2"]), out
    assert same_step(out["minimize2"], out["minimize1"]), out
