"""Raw queues + QueueRunner + dequeue, and per-thread preprocessing before batch_join."""

import ast

import pytest
from migrate_helpers import CORPUS, fix_snippet, run_pairs

from estimator_multigpu.migrate import (
    _runner,
)

SCRIPT = "raw_queue_threads.py"

RAW = """\
import tensorflow.compat.v1 as tf


def inputs(values, files):
    queue = tf.FIFOQueue(capacity=10, dtypes=[tf.float32, tf.int32])
    enqueue = queue.enqueue_many([values, tf.range(4)])
    qr = tf.train.QueueRunner(queue, [enqueue] * 2)
    tf.train.add_queue_runner(qr)
    pair = queue.dequeue()
    joined = []
    for t in range(3):
        scaled = pair[0] * t
        joined.append([scaled, pair[1]])
    return tf.train.shuffle_batch_join(joined, 4, capacity=20, min_after_dequeue=8)
"""


def squash(text):
    return "".join(text.split()).replace(",)", ")")


def test_raw_queue_and_per_thread_loop_move_onto_the_drop_ins():
    result, findings = fix_snippet(RAW)
    new = result.source
    assert result.notes == [] and all(f.fixed for f in findings), result.notes
    assert "queue = emg.inputs.queues.FIFOQueue(capacity=10" in new
    assert "qr = emg.inputs.queues.QueueRunner(queue, [enqueue] * 2)" in new
    assert "emg.inputs.queues.add_queue_runner(qr)" in new
    assert "pair = queue.dequeue()" in new
    # Two components: the example comes as a tuple, as the queue's list did.
    assert "    def _thread_fn(t, *pair):\n        scaled = pair[0] * t\n" in new
    assert "        return (scaled, pair[1])\n" in new
    assert "joined = emg.inputs.queues.per_thread(pair, _thread_fn, 3)" in new
    assert squash(
        "emg.inputs.queues.get_next(emg.inputs.queues.shuffle_batch_join("
        "joined, 4, capacity=20, min_after_dequeue=8))"
    ) in squash(new)


def test_a_dequeue_used_as_tensors_gets_get_next():
    source = RAW.replace(
        "    pair = queue.dequeue()\n", "    pair = queue.dequeue_many(2)\n"
    )
    source = source[: source.index("    joined = []")] + "    return pair\n"
    result, findings = fix_snippet(source)
    assert "pair = emg.inputs.queues.get_next(queue.dequeue_many(2))" in result.source
    assert all(f.fixed for f in findings)


def test_a_runner_started_by_create_threads_moves_onto_the_drop_ins():
    # TF 1.x's threading guide: no add_queue_runner, the runner's threads
    # started by hand; the drop-in's create_threads starts none.
    source = RAW.replace(
        "    tf.train.add_queue_runner(qr)\n",
        "    coord = tf.train.Coordinator()\n"
        "    threads = qr.create_threads(sess, coord=coord, start=True)\n",
    )
    source = source[: source.index("    joined = []")] + "    return pair, threads\n"
    result, findings = fix_snippet(source)
    new = result.source
    assert result.notes == [], result.notes
    assert "qr = emg.inputs.queues.QueueRunner(queue, [enqueue] * 2)" in new
    assert "threads = qr.create_threads(sess, coord=coord, start=True)" in new
    assert "pair = emg.inputs.queues.get_next(queue.dequeue())" in new
    assert all(f.fixed for f in findings if f.api != "tf.train.Coordinator")


@pytest.mark.parametrize(
    "old,new,reason",
    [
        (
            "enqueue = queue.enqueue_many([values, tf.range(4)])",
            "_, line = tf.TextLineReader().read(tf.train.string_input_producer(files))\n"
            "    enqueue = queue.enqueue([line, 1])",
            "the enqueued values come from a reader, a queue or limit_epochs",
        ),
        (
            "    tf.train.add_queue_runner(qr)\n",
            "    tf.train.add_queue_runner(qr)\n    print(queue.size())\n",
            "`queue` is used other than by enqueue, dequeue or QueueRunner calls",
        ),
        (
            "    tf.train.add_queue_runner(qr)\n",
            "    tf.train.add_queue_runner(qr)\n    qr.create_threads(None)\n",
            "the QueueRunner `qr` is used other than by add_queue_runner",
        ),
        (
            "    return tf.train",
            "    print(scaled)\n    return tf.train",
            "`scaled` is set in the per-thread loop and used after it",
        ),
        (
            "        scaled = pair[0] * t\n",
            "        scaled = pair[0] * t\n        tf.summary.scalar('s', scaled)\n",
            "`tf.summary.scalar` cannot run inside a tf.data map function",
        ),
    ],
    ids=["reader", "queue_size", "runner_threads", "escape", "summary"],
)
def test_what_cannot_move_is_left_with_the_reason(old, new, reason):
    source = RAW.replace(old, new)
    assert source != RAW
    result, findings = fix_snippet(source)
    assert "FIFOQueue(capacity" in result.source
    assert "emg.inputs.queues.FIFOQueue" not in result.source
    assert any(reason in why for _, why in result.notes), result.notes
    assert not any(f.fixed for f in findings if f.api == "tf.FIFOQueue")


def test_a_queue_made_in_branches_names_every_blocker():
    # research/resnet's shape: the queue class depends on the mode, and the
    # values it enqueues are decoded from a reader.
    source = RAW.replace(
        "    queue = tf.FIFOQueue(capacity=10, dtypes=[tf.float32, tf.int32])\n",
        "    if files:\n"
        "        queue = tf.FIFOQueue(capacity=10, dtypes=[tf.float32, tf.int32])\n"
        "    else:\n"
        "        queue = tf.RandomShuffleQueue(10, 2, dtypes=[tf.float32, tf.int32])\n",
    ).replace(
        "    enqueue = queue.enqueue_many([values, tf.range(4)])",
        "    _, line = tf.TextLineReader().read(tf.train.string_input_producer(files))\n"
        "    enqueue = queue.enqueue([tf.strings.to_number(line), 1])",
    )
    result, findings = fix_snippet(source)
    assert "emg.inputs.queues" not in result.source
    notes = {why for _, why in result.notes}
    assert (
        "`queue` is assigned more than once; also line 10: the enqueued values "
        "come from a reader, a queue or limit_epochs" in " ".join(notes)
    ), notes


def test_corpus_script_has_no_queue_left():
    result = _runner.process(str(CORPUS / SCRIPT))
    assert result.notes == []
    assert result.queues == []
    left = sorted(f.api for f in result.remaining)
    assert left == ["tf.train.Coordinator"]  # start_queue_runners: the drop-in


def _counts(lines):
    (line,) = [x for x in lines if x.startswith("counts")]
    return dict(ast.literal_eval(line[len("counts ") :]))


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["v2", "v1"])
def test_rewritten_raw_queue_script_gives_the_same_examples(tmp_path, mode):
    out = run_pairs([SCRIPT], tmp_path, mode)[SCRIPT]
    original, new = out["original"], out["rewritten"]
    assert [x for x in new if x.startswith(("batch", "numbers"))] == [
        x for x in original if x.startswith(("batch", "numbers"))
    ], new
    before, after = _counts(original), _counts(new)
    assert (
        sorted(before) == sorted(after) == [f"{100 + 2 * i}:{i % 3}" for i in range(6)]
    )
    # 24 examples of 6 records, repeated: each about 4 times (runner threads
    # may take a record of the next round early).
    assert sum(after.values()) == sum(before.values()) == 24
    assert all(3 <= c <= 5 for c in [*before.values(), *after.values()])


# A queue used as state, not input: primed with zeros, then one dequeue and
# one enqueue each run (a delay line, as fast WaveNet generation keeps its
# past activations).
DELAY_LINE = """\
import tensorflow.compat.v1 as tf


def delay(x, steps):
    q = tf.FIFOQueue(steps, dtypes=tf.float32, shapes=())
    init = q.enqueue_many(tf.zeros((steps,)))
    past = q.dequeue()
    push = q.enqueue([x])
    return init, past, push
"""


def test_a_queue_primed_with_a_constant_fill_is_left_as_a_state_buffer():
    result, findings = fix_snippet(DELAY_LINE)
    assert "emg.inputs.queues" not in result.source
    assert not any(f.fixed for f in findings if f.api == "tf.FIFOQueue")
    (why,) = [why for _, why in result.notes if "FIFOQueue" not in why]
    assert why.startswith("a state buffer, not an input pipeline: line 6 primes")
    assert "tf.zeros(...)" in why and "reader" not in why


def test_a_queue_filled_from_values_is_still_an_input_queue():
    source = DELAY_LINE.replace(
        "tf.zeros((steps,))", "tf.range(steps, dtype=tf.float32)"
    )
    result, _ = fix_snippet(source)
    assert not any("state buffer" in why for _, why in result.notes)
    assert "emg.inputs.queues.FIFOQueue(steps" in result.source


def test_the_state_buffer_left_as_it_is_runs_under_compat_v1():
    import tensorflow as tf  # noqa: PLC0415

    scope = {}
    exec(DELAY_LINE, scope)  # the fixed text, unchanged  # noqa: S102
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, ())
        init, past, push = scope["delay"](x, 2)
        with tf.compat.v1.Session() as sess:
            sess.run(init)
            seen = []
            for value in (1.0, 2.0, 3.0):
                seen.append(float(sess.run(past)))
                sess.run(push, {x: value})
    assert seen == [0.0, 0.0, 1.0]
