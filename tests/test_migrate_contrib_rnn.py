"""tf.contrib.rnn names get their own successors (not the module's advice), and
seq2seq.sequence_loss's finding gives its formulas, checked against numpy."""

import ast
import re
import sys

import numpy as np
import pytest
from migrate_helpers import CORPUS, run

from estimator_multigpu.migrate import (
    _contrib_names,
    _contrib_surface,
    _passes,
    _runner,
)

RNN = [
    _contrib_surface.row(f"tf.contrib.rnn.{n}")
    for n in _contrib_surface.table("rnn").ROWS
]
MODULE_TEXT = _contrib_names.REPLACEMENTS["rnn"]


def _finding(api):
    source = f"import tensorflow as tf\nx = {api}\n"
    [found] = _passes.scan_tree(ast.parse(source), source, "a.py")
    return found


@pytest.mark.parametrize("row", RNN, ids=[r.symbol for r in RNN])
def test_each_rnn_name_gets_its_own_row_not_the_module_text(row):
    text = _finding(row.symbol).rule.replacement
    assert MODULE_TEXT not in text and row.note != MODULE_TEXT
    if row.outcome == "exact":
        assert text.startswith(f"{row.successor} (the same arguments;"), text
        assert text.endswith("emg-migrate --fix writes it)")
    else:
        assert text.startswith(f"no TF 2.x successor ({row.note}):"), text


def test_the_core_cells_are_the_compat_v1_rnn_cells():
    exact = {
        r.symbol.rsplit(".", 1)[1]: r.successor for r in RNN if r.outcome == "exact"
    }
    assert exact["LSTMCell"] == "tf.compat.v1.nn.rnn_cell.LSTMCell"
    assert exact["DropoutWrapper"] == "tf.compat.v1.nn.rnn_cell.DropoutWrapper"
    assert exact["static_rnn"] == "tf.compat.v1.nn.static_rnn"
    assert "NASCell" not in exact and "LSTMBlockCell" not in exact


def test_a_module_import_spelling_gets_the_row_too(tmp_path):
    path = tmp_path / "a.py"
    path.write_text(
        "import tensorflow as tf\nfrom tensorflow.contrib import rnn\n"
        "cell = rnn.GRUCell(4)\n"
    )
    result = _runner.process(str(path))
    assert "cell = tf.compat.v1.nn.rnn_cell.GRUCell(4)\n" in result.rewritten
    assert "tensorflow.contrib" not in result.rewritten


def _numpy_sequence_loss(logits, targets, weights, mode):
    """contrib's sequence_loss, in numpy (TF 1.15's code, reduction by reduction)."""
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_softmax = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    ce = -np.take_along_axis(log_softmax, targets[..., None], axis=-1)[..., 0] * weights
    if mode == "average":
        return ce.sum() / weights.sum()
    if mode == "average_timesteps":
        return ce.sum(axis=1) / weights.sum(axis=1)
    if mode == "average_batch":
        return ce.sum(axis=0) / weights.sum(axis=0)
    if mode == "neither":
        return ce
    return ce.sum() / np.count_nonzero(weights)  # sum_over both


def test_sequence_loss_formulas_match_contribs_reductions():
    import tensorflow as tf

    text = _finding("tf.contrib.seq2seq.sequence_loss").rule.replacement
    assert text.startswith("no TF 2.x successor (no TF 2.x function computes it")
    code = re.findall(r"`([^`]+)`", text)
    assert len(code) == 6, code
    rng = np.random.RandomState(0)
    logits = rng.randn(3, 4, 5).astype(np.float32)
    targets = rng.randint(0, 5, size=(3, 4)).astype(np.int32)
    weights = (rng.rand(3, 4) > 0.3).astype(np.float32) * 0.5
    names = {"tf": tf, "logits": logits, "targets": targets, "weights": weights}
    exec(code[0], names)  # ce = ...
    modes = ["average", "average_timesteps", "average_batch", "neither", "sum_over"]
    for mode, expression in zip(modes, code[1:]):
        got = np.asarray(eval(expression, names))
        want = _numpy_sequence_loss(logits, targets, weights, mode)
        np.testing.assert_allclose(got, want, rtol=1e-5, err_msg=mode)


def test_the_rewritten_corpus_script_runs_on_tf2(tmp_path):
    result = _runner.process(str(CORPUS / "contrib_rnn_cells.py"))
    assert all(f.fixed for f in result.findings), result.notes
    path = tmp_path / "contrib_rnn_cells.py"
    path.write_text(result.rewritten)
    proc = run([sys.executable, str(path)], timeout=240, TF_USE_LEGACY_KERAS="1")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.splitlines() == [
        "outputs [2, 3, 5]",
        "state 2 LSTMStateTuple",
        "static 3 [2, 3]",
    ]
