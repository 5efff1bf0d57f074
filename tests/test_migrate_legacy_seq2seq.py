"""tf.contrib.legacy_seq2seq's decoders and losses: emg.legacy_seq2seq's drop-ins
(the same values and variable names as TF 1.x's) and --fix writing them."""

import numpy as np
import pytest
import tensorflow as tf
from migrate_helpers import CORPUS, expected_findings, rewrite, run_script

import estimator_multigpu as emg
from estimator_multigpu.migrate import _contrib_surface, _rules, _runner

NAMES = _rules.LEGACY_SEQ2SEQ


def _fix(tmp_path, source):
    path = tmp_path / "a.py"
    path.write_text(source)
    return _runner.process(str(path))


@pytest.mark.parametrize("name", NAMES)
def test_each_drop_in_name_is_a_fixable_finding_and_a_surface_row(tmp_path, name):
    result = _fix(
        tmp_path,
        f"import tensorflow as tf\nx = tf.contrib.legacy_seq2seq.{name}(a, b, c)\n",
    )
    [found] = result.findings
    assert (found.rule.rule_id, found.fixed) == ("legacy-seq2seq", True)
    assert f"x = emg.legacy_seq2seq.{name}(a, b, c)\n" in result.rewritten
    assert "import estimator_multigpu as emg\n" in result.rewritten
    row = _contrib_surface.row(f"tf.contrib.legacy_seq2seq.{name}")
    assert (row.outcome, row.successor) == ("emg", f"emg.legacy_seq2seq.{name}")
    assert callable(getattr(emg.legacy_seq2seq, name))


def test_a_module_import_is_rewritten_and_dropped(tmp_path):
    new = _fix(
        tmp_path,
        "import tensorflow as tf\nfrom tensorflow.contrib import legacy_seq2seq\n"
        "out, state = legacy_seq2seq.rnn_decoder(xs, s, cell, scope='lm')\n",
    ).rewritten
    assert (
        "out, state = emg.legacy_seq2seq.rnn_decoder(xs, s, cell, scope='lm')\n" in new
    )
    assert "contrib" not in new


def test_the_internal_module_spelling_is_rewritten_too(tmp_path):
    new = _fix(
        tmp_path,
        "import tensorflow as tf\n"
        "from tensorflow.contrib.legacy_seq2seq.python.ops import seq2seq\n"
        "loss = seq2seq.sequence_loss(logits, targets, weights)\n",
    ).rewritten
    assert "loss = emg.legacy_seq2seq.sequence_loss(logits, targets, weights)\n" in new
    assert "contrib" not in new


def test_the_attention_models_keep_their_no_successor_finding(tmp_path):
    [found] = _fix(
        tmp_path,
        "import tensorflow as tf\ny = tf.contrib.legacy_seq2seq.attention_decoder(a)\n",
    ).findings
    assert not found.fixed and found.rule.rule_id == "contrib"


def _numpy_losses(logits, targets, weights):
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_softmax = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    ce = -np.take_along_axis(log_softmax, targets[..., None], axis=-1)[..., 0]
    return (ce * weights).sum(axis=0), weights.sum(axis=0)


def test_the_losses_are_tf1s_weighted_cross_entropy():
    rng = np.random.default_rng(0)
    steps, batch, classes = 3, 4, 5
    logits = rng.normal(size=(steps, batch, classes)).astype(np.float32)
    targets = rng.integers(0, classes, (steps, batch)).astype(np.int32)
    weights = rng.uniform(0.5, 1.5, (steps, batch)).astype(np.float32)
    weights[:, 0] = 0  # all-zero weights give 0, not nan (TF 1.x's 1e-12)
    summed, total = _numpy_losses(logits, targets, weights)
    args = [list(logits), list(targets), list(weights)]
    by_example = emg.legacy_seq2seq.sequence_loss_by_example(*args)
    np.testing.assert_allclose(by_example, summed / (total + 1e-12), rtol=1e-5)
    raw = emg.legacy_seq2seq.sequence_loss_by_example(
        *args, average_across_timesteps=False
    )
    np.testing.assert_allclose(raw, summed, rtol=1e-5)
    mean = emg.legacy_seq2seq.sequence_loss(*args)
    np.testing.assert_allclose(
        mean, (summed / (total + 1e-12)).sum() / batch, rtol=1e-5
    )
    total_loss = emg.legacy_seq2seq.sequence_loss(*args, average_across_batch=False)
    np.testing.assert_allclose(total_loss, (summed / (total + 1e-12)).sum(), rtol=1e-5)
    custom = emg.legacy_seq2seq.sequence_loss_by_example(
        *args,
        average_across_timesteps=False,
        softmax_loss_function=lambda labels, logits: tf.reduce_sum(logits, 1),
    )
    np.testing.assert_allclose(custom, (logits.sum(-1) * weights).sum(0), rtol=1e-5)
    with pytest.raises(ValueError, match="same length .* got 3, 3 and 2"):
        emg.legacy_seq2seq.sequence_loss_by_example(*args[:2], list(weights)[:2])


def test_rnn_decoder_steps_the_cell_and_feeds_back_through_loop_function():
    steps, seen = [np.full((2, 3), i, np.float32) for i in range(3)], []

    def cell(x, state):
        seen.append(np.asarray(x)[0, 0])
        return x + state, state + 1

    def loop(prev, i):
        return prev * 0 + 10 * i

    outputs, state = emg.legacy_seq2seq.rnn_decoder(
        steps, np.zeros((2, 3), np.float32), cell
    )
    assert [float(o[0, 0]) for o in outputs] == [0, 2, 4] and float(state[0, 0]) == 3
    seen.clear()
    emg.legacy_seq2seq.rnn_decoder(steps, 0.0, cell, loop_function=loop)
    assert seen == [0, 10, 20]  # step 0 reads the input; later ones loop(prev, i)


class _Cell:
    """A one-matrix RNN cell (TF 2.16+ serves contrib's cells from tf-keras only)."""

    output_size = state_size = 4

    def __init__(self, name):
        self.name = name

    def zero_state(self, batch, dtype):
        return tf.zeros([batch, 4], dtype)

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        return self.zero_state(batch_size, dtype)

    def __call__(self, x, state, scope=None):
        with tf.compat.v1.variable_scope(scope or self.name):
            w = tf.compat.v1.get_variable("kernel", [x.shape[1] + 4, 4])
        out = tf.tanh(tf.matmul(tf.concat([x, state], 1), w))
        return out, out


def test_the_variables_have_tf1s_names():
    with tf.Graph().as_default():
        xs = [tf.ones([2, 3])] * 3
        state = tf.zeros([2, 4])
        emg.legacy_seq2seq.rnn_decoder(xs, state, _Cell("a"), scope="lm")
        emg.legacy_seq2seq.tied_rnn_seq2seq(xs, xs, _Cell("b"))
        emg.legacy_seq2seq.basic_rnn_seq2seq(xs, xs, _Cell("c"))
        names = sorted(v.op.name for v in tf.compat.v1.global_variables())
    assert names == [
        "basic_rnn_seq2seq/rnn/c/kernel",
        "basic_rnn_seq2seq/rnn_decoder/c/kernel",
        "combined_tied_rnn_seq2seq/tied_rnn_seq2seq/b/kernel",
        "lm/a/kernel",
    ]


def test_the_corpus_script_marks_what_the_scan_finds():
    path = CORPUS / "contrib_legacy_seq2seq.py"
    found = sorted(
        (f.line, f.rule.rule_id) for f in _runner.process(str(path)).findings
    )
    assert [f for f in found if f[1] != "compat-v1"] == expected_findings(path)


@pytest.mark.slow
def test_the_fixed_corpus_language_model_trains(tmp_path):
    path = rewrite("contrib_legacy_seq2seq.py", tmp_path)
    proc = run_script(path, TF_USE_LEGACY_KERAS="1")
    assert proc.returncode == 0, proc.stderr[-2000:]
    first, last, names = proc.stdout.splitlines()[-3:]
    assert float(last.split()[3]) < float(first.split()[3]) / 2, (first, last)
    assert first.split()[3] == first.split()[5]  # sequence_loss == the mean by hand
    assert "rnnlm/multi_rnn_cell/cell_1/lstm_cell/kernel" in names.split()
