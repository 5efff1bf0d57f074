"""emg-migrate --fix moves tf.contrib.crf onto emg.crf, by any spelling."""

import ast
import math
import sys
import textwrap

import pytest
from migrate_helpers import CORPUS, run

from estimator_multigpu.migrate import _fixer, _passes, _runner, _scanner


def fix(source):
    source = textwrap.dedent(source)
    tree = ast.parse(source)
    found = _scanner.scan_rules(tree, source, "snippet.py")
    findings = _passes.scan(tree, source, "snippet.py", found)
    return _fixer.fix(source, tree, findings).source, findings


def test_crf_names_become_the_drop_ins():
    new, findings = fix(
        """\
        import tensorflow as tf
        from tensorflow.contrib.crf import viterbi_decode

        def loss(logits, tags, lengths):
            ll, params = tf.contrib.crf.crf_log_likelihood(logits, tags, lengths)
            pred, _ = tf.contrib.crf.crf_decode(logits, params, lengths)
            return ll, pred, viterbi_decode
        """
    )
    assert all(f.fixed for f in findings), [f.api for f in findings if not f.fixed]
    assert "contrib" not in new
    assert "emg.crf.crf_log_likelihood(logits, tags, lengths)" in new
    assert "emg.crf.crf_decode(logits, params, lengths)" in new


def test_multitag_scores_have_no_drop_in_and_stay_reported():
    _, findings = fix(
        "import tensorflow as tf\ns = tf.contrib.crf.crf_multitag_sequence_score\n"
    )
    [finding] = findings
    assert not finding.fixed and "no TF 2.x successor" in finding.rule.replacement


@pytest.mark.slow
def test_the_rewritten_corpus_script_runs_on_tf2(tmp_path):
    path = tmp_path / "contrib_crf_tagger.py"
    path.write_text((CORPUS / "contrib_crf_tagger.py").read_text())
    result = _runner.process(str(path))
    assert all(f.fixed for f in result.findings), [
        f.api for f in result.findings if not f.fixed
    ]
    path.write_text(result.rewritten)
    proc = run([sys.executable, str(path)], timeout=240)
    assert proc.returncode == 0, proc.stderr[-2000:]
    # Zero transitions: the sequence [0, 1, 0] scores 2 + 1 + 1 of a
    # partition function (e^2 + 1)(e^0 + e^1)(e^1 + e^0).
    want = 4 - math.log((math.e**2 + 1) * (1 + math.e) ** 2)
    assert proc.stdout.splitlines() == [
        "transitions crf/transitions:0",
        f"log_likelihood {want:.4f}",
        "decode [[0, 1, 0]] 4.0",
        "viterbi [0, 1, 0]",
    ]
