"""Tower loops whose batch splits open their block: --fix writes `def tower_fn` at the block's indent."""

import ast

import pytest
from test_migrate_tower_loops import run_at_one_and_two

from estimator_multigpu.migrate import _runner

HEAD = '''\
"""Two towers on a batch split at the top of the function that builds them.

Usage: python SCRIPT WORKDIR [NUM_DEVICES]
"""

import sys

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
NUM_DEVICES = int(sys.argv[2]) if len(sys.argv) > 2 else 2


def average_gradients(tower_grads):
    average_grads = []
    for grad_and_vars in zip(*tower_grads):
        grads = [tf.expand_dims(g, 0) for g, _ in grad_and_vars]
        grad = tf.reduce_mean(tf.concat(axis=0, values=grads), 0)
        average_grads.append((grad, grad_and_vars[0][1]))
    return average_grads


def traced(fn):
    return fn
'''
# The splits, the loop and the update, as the first statements of a block.
TOWERS = """\
image_splits = tf.split(images, NUM_DEVICES)
label_splits = tf.split(labels, NUM_DEVICES)
tower_grads = []
with tf.variable_scope(tf.get_variable_scope()):
    for i in range(NUM_DEVICES):
        with tf.device("/cpu:%d" % i):
            w = tf.get_variable("w", [4, 3], initializer=tf.ones_initializer())
            logits = tf.matmul(image_splits[i], w)
            loss = tf.losses.sparse_softmax_cross_entropy(label_splits[i], logits)
            tf.get_variable_scope().reuse_variables()
            grads = opt.compute_gradients(loss)
            tower_grads.append(grads)
grads = average_gradients(tower_grads)
train_op = opt.apply_gradients(grads, global_step=global_step)
"""
DATA = """\
rng = np.random.RandomState(0)
images = tf.constant(rng.randn(8, 4).astype(np.float32))
labels = tf.constant(rng.randint(0, 3, size=8).astype(np.int32))
global_step = tf.train.get_or_create_global_step()
opt = tf.train.GradientDescentOptimizer(0.5)
"""
RUN = """\
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for _ in range(3):
        sess.run(train_op)
    print("step", sess.run(global_step))
    print("w", " ".join("%.6f" % v for v in sess.run("w:0").ravel()))
"""


def _indent(text: str, by: str) -> str:
    return "".join(
        by + line if line.strip() else line for line in text.splitlines(True)
    )


def _script(opening: str = "", decorator: str = "", method: bool = False) -> str:
    """The towers in `build(...)` (a method of a class if asked), `opening`
    before the splits, and a main that trains them."""
    body = _indent(opening + TOWERS + "return train_op\n", "    ")
    build = f"{decorator}def build(images, labels, opt, global_step):\n{body}"
    call = "build(images, labels, opt, global_step)"
    if method:
        build = build.replace("build(images,", "build(self, images,")
        build = "class Towers(object):\n" + _indent(build, "    ")
        call = "Towers()." + call
    main = _indent(f"{DATA}train_op = {call}\n{RUN}", "    ")
    return f"{HEAD}\n\n{build}\n\ndef main():\n{main}\n\nif __name__ == '__main__':\n    main()\n"


def _tabs(text: str) -> str:
    lines = text.splitlines(True)
    out = []
    for line in lines:
        stripped = line.lstrip(" ")
        out.append("\t" * ((len(line) - len(stripped)) // 4) + stripped)
    return "".join(out)


# At module level, the splits open the graph's block (the data is numpy).
GRAPH_BLOCK = (
    f"{HEAD}\n\n"
    + DATA.replace("tf.constant(", "(").split("global_step =")[0]
    + "opt = tf.train.GradientDescentOptimizer(0.5)\n"
    + "with tf.Graph().as_default():\n"
    + _indent(TOWERS + RUN, "    ")
    .replace(
        "global_step=global_step", "global_step=tf.train.get_or_create_global_step()"
    )
    .replace("sess.run(global_step)", "sess.run(tf.train.get_global_step())")
)
SCRIPTS = {
    "function": _script(),
    "docstring": _script('"""Builds the towers on the split batch."""\n'),
    "comments": _script(
        "# Split the batch, one shard per tower.\n\n# Then the towers.\n"
    ),
    "decorator": _script(decorator="@traced\n"),
    "method": _script(method=True),
    "tabs": _tabs(_script()),
    "graph_block": GRAPH_BLOCK,
}


def _fixed(name: str, tmp_path) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(SCRIPTS[name])
    result = _runner.process(str(path))
    assert result.notes == [] and result.rewritten, result.notes
    assert all(f.fixed for f in result.findings if f.rule.rule_id == "tower-loop")
    ast.parse(result.rewritten)
    return result.rewritten


@pytest.mark.parametrize("name", list(SCRIPTS))
def test_splits_first_rewrite_parses(tmp_path, name):
    new = _fixed(name, tmp_path)
    assert "def tower_fn(images_shard, labels_shard):" in new
    assert "for i in range(NUM_DEVICES):" not in new


@pytest.mark.slow
def test_splits_first_rewrite_trains_like_the_loop_at_one_and_two_devices(tmp_path):
    scripts = []
    for name, source in SCRIPTS.items():
        old, new = tmp_path / f"{name}_loop.py", tmp_path / f"{name}_minimize.py"
        old.write_text(source)
        new.write_text(_fixed(name, tmp_path))
        scripts += [(f"{name}_loop", str(old)), (f"{name}_minimize", str(new))]
    out = run_at_one_and_two(scripts)
    for name in SCRIPTS:
        loop1 = out[f"{name}_loop1"]
        assert loop1[0] == "step 3", name
        assert out[f"{name}_minimize1"] == loop1, name
        for run in ("loop2", "minimize2"):  # two half-batch means: float rounding
            assert out[f"{name}_{run}"][0] == "step 3", (name, run)
            assert _weights(out[f"{name}_{run}"]) == pytest.approx(
                _weights(loop1), abs=1e-5
            ), (name, run)


def _weights(lines: list[str]) -> list[float]:
    return [float(v) for v in lines[1].split()[1:]]
