"""A rewrite that would write an import statement again, whole, leaves it as
it is when a comment stands inside it: the comment is the user's, and the
text written from the tree would drop it. The names stay reported."""

import ast
import io
import pathlib
import tokenize
from collections import Counter

import pytest
from migrate_helpers import (
    CORPUS,
    QUEUE_THREADS,
    RESET_GRAPH,
    TWO_DEVICES,
    expected_findings,
    fix_source,
    rewrite,
    same_step,
    script_lines,
)

from estimator_multigpu.migrate import _runner
from estimator_multigpu.migrate._edits import Edit
from estimator_multigpu.migrate._kept_comments import (
    PREFIX,
    apply_keeping_comments,
    original,
    statement_lines,
)

PARENTHESIZED = {
    "scipy private path": (
        "from scipy.signal.signaltools import (\n"
        "    convolve,  # the public one\n"
        "    _centered,  # private, kept here\n"
        ")\n"
        "print(convolve, _centered)\n"
    ),
    "numpy removed alias": (
        "from numpy import (\n"
        "    float,  # removed alias\n"
        "    array,  # kept\n"
        ")\n"
        "print(float, array)\n"
    ),
}


def _comments(text: str) -> list[str]:
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    return [t.string for t in tokens if t.type == tokenize.COMMENT]


@pytest.mark.parametrize("source", PARENTHESIZED.values(), ids=PARENTHESIZED)
def test_an_import_with_comments_inside_keeps_them(tmp_path, source):
    path = tmp_path / "a.py"
    path.write_text(source)
    result = _runner.process(str(path))
    assert result.findings, "the names are still reported"
    rewritten = result.rewritten or result.original
    assert _comments(rewritten) == _comments(source)


def test_the_same_import_without_comments_is_rewritten(tmp_path):
    path = tmp_path / "a.py"
    path.write_text(
        "from scipy.signal.signaltools import (\n    convolve,\n    _centered,\n)\n"
        "print(convolve, _centered)\n"
    )
    result = _runner.process(str(path))
    assert "from scipy.signal import convolve" in result.rewritten


# Whole-structure rewrites (a tower loop, a queue chain, a raw queue's
# threads, a partly replaced line): each comment inside the replaced text
# that the replacement lacks is carried, as `# (before --fix) <comment>`,
# to just before the line where the replaced text started.

TOWER = """\
import sys

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
NUM_DEVICES = int(sys.argv[2]) if len(sys.argv) > 2 else 2


def tower_loss(images, labels):
    w = tf.get_variable("w", [4, 3], initializer=tf.ones_initializer())
    return tf.losses.sparse_softmax_cross_entropy(labels, tf.matmul(images, w))


def average_gradients(tower_grads):  # the hand-written mean
    average_grads = []
    for grad_and_vars in zip(*tower_grads):  # one variable at a time
        grads = [tf.expand_dims(g, 0) for g, _ in grad_and_vars]
        grad = tf.reduce_mean(tf.concat(axis=0, values=grads), 0)
        average_grads.append((grad, grad_and_vars[0][1]))
    return average_grads


def train():
    rng = np.random.RandomState(0)
    images = tf.constant(rng.randn(8, 4).astype(np.float32))
    labels = tf.constant(rng.randint(0, 3, size=8).astype(np.int32))
    global_step = tf.train.get_or_create_global_step()
    opt = tf.train.GradientDescentOptimizer(0.5)
    image_splits = tf.split(images, NUM_DEVICES)
    label_splits = tf.split(labels, NUM_DEVICES)
    tower_grads = []  # one list per tower
    with tf.variable_scope(tf.get_variable_scope()):
        for i in range(NUM_DEVICES):  # a tower per device
            with tf.device("/cpu:%d" % i):  # the tower's device
                # the tower's ops under one name
                with tf.name_scope("tower_%d" % i):
                    loss = tower_loss(image_splits[i], label_splits[i])
                    # share the variables from here on
                    tf.get_variable_scope().reuse_variables()
                    grads = opt.compute_gradients(loss)  # this tower's gradients
                    tower_grads.append(grads)
    grads = average_gradients(tower_grads)  # averaged
    train_op = opt.apply_gradients(grads, global_step=global_step)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(train_op)
        print("step", sess.run(global_step))
        print("w", " ".join("%.6f" % v for v in sess.run("w:0").ravel()))


if __name__ == "__main__":
    train()
"""

CHAIN = """\
import os
import sys

import tensorflow as tf

tf1 = tf.compat.v1


def write_data(data_dir):
    path = os.path.join(data_dir, "part-0.csv")
    with open(path, "w") as out:
        for n in range(6):
            out.write("%d,%d\\n" % (n, n % 3))
    return [path]


def input_pipeline(filenames, batch_size):
    filename_queue = tf1.train.string_input_producer(  # the files, once
        filenames, num_epochs=1, shuffle=False
    )
    reader = tf1.TextLineReader()  # one record per line
    # the key names the file and the line
    _, line = reader.read(filename_queue)  # read one line
    x, label = tf.io.decode_csv(line, record_defaults=[[0], [0]])  # two columns
    # a dict of features
    features = {"x": x, "label": label}
    return tf1.train.batch(  # batched in order
        features,  # one example
        batch_size,
        allow_smaller_final_batch=True,  # the last batch may be short
    )


def main(data_dir):
    filenames = write_data(data_dir)
    with tf.Graph().as_default():
        batch = input_pipeline(filenames, batch_size=4)
        init = tf1.local_variables_initializer()
        with tf1.Session() as sess:
            sess.run(init)
            coord = tf1.train.Coordinator()
            threads = tf1.train.start_queue_runners(coord=coord)
            try:
                while True:
                    values = sess.run(batch)
                    print("batch", values["x"].tolist(), values["label"].tolist())
            except tf.errors.OutOfRangeError:
                print("done")
            coord.request_stop()
            coord.join(threads)


if __name__ == "__main__":
    main(sys.argv[1])
"""

RAW_QUEUE = """\
import tensorflow.compat.v1 as tf

RECORDS = ["%d,%d" % (i, i % 3) for i in range(6)]


def parse(serialized, thread_id):
    a, b = tf.io.decode_csv(serialized, [[0], [0]])
    return a + thread_id * 0, b


def batch_inputs(batch_size, num_preprocess_threads):
    examples_queue = tf.FIFOQueue(capacity=16, dtypes=[tf.string], shapes=[[]])
    enqueue = examples_queue.enqueue_many([tf.constant(RECORDS)])
    tf.train.add_queue_runner(tf.train.QueueRunner(examples_queue, [enqueue]))
    example_serialized = examples_queue.dequeue()  # one record

    images_and_labels = []  # one pair per thread
    for thread_id in range(num_preprocess_threads):  # the threads
        # Each copy parses on its own.
        image, label = parse(example_serialized, thread_id)
        image.set_shape([])  # a scalar
        images_and_labels.append([image, label])  # collected

    images, labels = tf.train.batch_join(  # joined
        images_and_labels,  # the pairs
        batch_size=batch_size,
    )
    return images, labels
"""

SNIPPETS = {"tower loop": TOWER, "queue chain": CHAIN, "raw queue": RAW_QUEUE}


def _kept(source: str, fixed: str) -> None:
    """`fixed` parses and has each comment of `source` (all distinct) once,
    as written or carried."""
    ast.parse(fixed)
    out = Counter(original(c) for c in _comments(fixed))
    assert len(set(_comments(source))) == len(_comments(source))
    assert {c: out[c] for c in _comments(source)} == dict.fromkeys(_comments(source), 1)


@pytest.mark.parametrize("source", SNIPPETS.values(), ids=SNIPPETS)
def test_a_rewritten_structure_keeps_each_comment_once(tmp_path, source):
    result = fix_source(tmp_path, source)
    assert result.findings and result.rewritten
    _kept(source, result.rewritten)
    assert PREFIX in result.rewritten


def test_carried_comments_stand_before_the_rewritten_code_in_order(tmp_path):
    fixed = fix_source(tmp_path, TOWER).rewritten
    lines = fixed.splitlines()
    at = lines.index("    # (before --fix) # one list per tower")
    assert lines[at : at + 8] == [
        f"    {PREFIX}{c}"
        for c in (
            "# one list per tower",
            "# a tower per device",
            "# the tower's device",
            "# the tower's ops under one name",
            "# share the variables from here on",
            "# this tower's gradients",
            "# averaged",
        )
    ] + ["    loss, train_op = emg.towers.minimize("]
    # The deleted helper's comments stand where it was.
    at = lines.index(f"{PREFIX}# the hand-written mean")
    assert lines[at - 2 : at + 3] == [
        "",
        "",
        f"{PREFIX}# the hand-written mean",
        f"{PREFIX}# one variable at a time",
        "def train():",
    ]


def test_a_comment_on_a_partly_replaced_line_goes_above_that_line(tmp_path):
    # `return ` stays; the batcher call after it is written anew.
    fixed = fix_source(tmp_path, CHAIN).rewritten
    lines = fixed.splitlines()
    at = lines.index("    # (before --fix) # batched in order")
    assert lines[at + 1 : at + 3] == [
        "    # (before --fix) # one example",
        "    # (before --fix) # the last batch may be short",
    ]
    assert lines[at + 3].startswith("    return emg.inputs.queues.get_next(")


def test_the_second_fix_carries_nothing_again(tmp_path):
    once = fix_source(tmp_path, TOWER).rewritten
    again = fix_source(tmp_path, once)
    assert again.rewritten is None and not again.findings


@pytest.mark.slow
def test_rewritten_structures_with_carried_comments_run_as_before(tmp_path):
    runs = []
    for name, source in (("tower", TOWER), ("chain", CHAIN)):
        fixed = fix_source(tmp_path, source, f"{name}_fixed.py").rewritten
        assert PREFIX in fixed
        for label, text in (("original", source), ("fixed", fixed)):
            path = tmp_path / f"{name}_{label}.py"
            path.write_text(text)
            data = tmp_path / f"{name}_{label}.data"
            data.mkdir()
            runs.append((f"{name}:{label}", path, [data, 2]))
    out = script_lines(runs, TWO_DEVICES + QUEUE_THREADS, RESET_GRAPH, timeout=600)
    assert out["tower:original"][0] == "step 3"
    assert same_step(out["tower:fixed"], out["tower:original"]), out
    assert out["chain:original"][-1] == "done"
    assert out["chain:fixed"] == out["chain:original"]


# Every corpus script: --fix loses no comment and writes none twice.
CORPUS_SCRIPTS = sorted(str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*.py"))


@pytest.mark.parametrize("name", CORPUS_SCRIPTS)
def test_fixing_a_corpus_script_loses_no_comment(name):
    result = _runner.process(str(CORPUS / name))
    if result.rewritten is None:
        return  # nothing rewritten: every comment is where it was
    before = Counter(_comments(result.original))
    after = Counter(original(c) for c in _comments(result.rewritten))
    assert {c: after[c] for c in before} == dict(before)


def test_the_corpus_has_comments_fix_carries():
    """The corpus check above is not vacuous: some script's comments are
    carried out of replaced text."""
    carried = 0
    for name in ("tower_loop_inception.py", "csv_text_line_reader.py"):
        fixed = _runner.process(str(CORPUS / name)).rewritten
        carried += sum(c.startswith(PREFIX) for c in _comments(fixed))
    assert carried >= 4


def test_a_fixed_files_expect_marks_are_on_code_lines(tmp_path):
    """A carried `# expect:` mark stands on a line with no code; the corpus
    checks read no mark from it."""
    path = pathlib.Path(rewrite("csv_text_line_reader.py", tmp_path))
    text = path.read_text()
    assert f"{PREFIX}# expect: queue-batcher" in text
    lines = text.splitlines()
    marks = expected_findings(path)
    assert marks
    assert all(not lines[n - 1].lstrip().startswith("#") for n, _ in marks)


# The placement, edit by edit.


def test_a_comment_never_lands_inside_a_string():
    source = 'y = """a\nb""" + f(  # c\n    1)\n'
    start = source.index("f(")
    out = apply_keeping_comments(source, [Edit(start, len(source) - 1, "g(1)")])
    assert out == '# (before --fix) # c\ny = """a\nb""" + g(1)\n'


def test_a_comment_never_lands_after_a_backslash():
    source = "x = 1 + \\\n    f(  # c\n    2)\n"
    start = source.index("f(")
    out = apply_keeping_comments(source, [Edit(start, len(source) - 1, "g(2)")])
    assert out == "# (before --fix) # c\nx = 1 + \\\n    g(2)\n"


def test_a_comment_goes_above_an_edit_that_covers_its_line_start():
    source = "a = f(1,\n      2); b = g(  # c\n 3)\n"
    first = Edit(source.index("f("), source.index(");") + 1, "f(1, 2)")
    second = Edit(source.index("g("), len(source) - 1, "g(3)")
    out = apply_keeping_comments(source, [first, second])
    assert out == "# (before --fix) # c\na = f(1, 2); b = g(3)\n"


def test_a_comment_the_replacement_keeps_is_not_carried():
    source = "if x:\n    y = f(  # c\n        1)  # d\n"
    start = source.index("f(")
    end = source.index("  # d")
    out = apply_keeping_comments(source, [Edit(start, end, "g(  # c\n        1)")])
    assert out == "if x:\n    y = g(  # c\n        1)  # d\n"


def test_of_equal_comments_only_those_the_replacement_lacks_are_carried():
    source = "if x:\n    y = f(  # c\n        1,  # c\n    )\n"
    start = source.index("f(")
    out = apply_keeping_comments(source, [Edit(start, len(source) - 1, "g(1)  # c")])
    assert out == "if x:\n    # (before --fix) # c\n    y = g(1)  # c\n"


def test_a_carried_comment_is_not_prefixed_twice():
    source = "def f():\n    y = g(\n        # (before --fix) # c\n    )\n"
    start = source.index("g(")
    out = apply_keeping_comments(source, [Edit(start, len(source) - 1, "h()")])
    assert out == "def f():\n    # (before --fix) # c\n    y = h()\n"


def test_statement_boundaries_are_the_lines_a_statement_opens():
    source = "x = 1; y = 2\nif x:\n    z = (\n        3)\nelse: w = 4\n"
    assert statement_lines(source) == {1, 2, 3}


def test_comments_carried_to_one_line_keep_the_sources_order():
    # The rules' edits come in rule order, not in the order of the text.
    source = "a = f(  # one\n 1); b = g(  # two\n 2)\n"
    first = Edit(source.index("f("), source.index(");") + 1, "f(1)")
    second = Edit(source.index("g("), len(source) - 1, "g(2)")
    out = apply_keeping_comments(source, [second, first])
    assert out == "# (before --fix) # one\n# (before --fix) # two\na = f(1); b = g(2)\n"


def test_carried_comments_take_the_files_line_ends():
    source = "if x:\r\n    y = f(  # c\r\n        1)\r\n"
    start = source.index("f(")
    out = apply_keeping_comments(source, [Edit(start, len(source) - 2, "g(1)")])
    assert out == "if x:\r\n    # (before --fix) # c\r\n    y = g(1)\r\n"
