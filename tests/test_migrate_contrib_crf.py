"""emg-migrate --fix moves tf.contrib.crf onto emg.crf, by any spelling."""

import math

import pytest
from migrate_helpers import fix_with_passes, run_fixed


def test_crf_names_become_the_drop_ins():
    new, findings = fix_with_passes(
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
    _, findings = fix_with_passes(
        "import tensorflow as tf\ns = tf.contrib.crf.crf_multitag_sequence_score\n"
    )
    [finding] = findings
    assert not finding.fixed and "no TF 2.x successor" in finding.rule.replacement


@pytest.mark.slow
def test_the_rewritten_corpus_script_runs_on_tf2(tmp_path):
    out = run_fixed("contrib_crf_tagger.py", tmp_path, all_fixed=True, timeout=240)
    # Zero transitions: the sequence [0, 1, 0] scores 2 + 1 + 1 of a
    # partition function (e^2 + 1)(e^0 + e^1)(e^1 + e^0).
    want = 4 - math.log((math.e**2 + 1) * (1 + math.e) ** 2)
    assert out.splitlines() == [
        "transitions crf/transitions:0",
        f"log_likelihood {want:.4f}",
        "decode [[0, 1, 0]] 4.0",
        "viterbi [0, 1, 0]",
    ]
