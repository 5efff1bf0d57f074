"""tf.contrib.seq2seq's decoder loop, helpers and tile_batch: --fix writes
emg.seq2seq's drop-ins; the attention wrapper and beam search keep their
no-successor finding."""

import pytest
from migrate_helpers import CORPUS, expected_findings, fix_with_passes, run_fixed

import estimator_multigpu as emg
from estimator_multigpu.migrate import _contrib_surface, _runner

NAMES = (
    "BasicDecoder",
    "BasicDecoderOutput",
    "Decoder",
    "GreedyEmbeddingHelper",
    "Helper",
    "SampleEmbeddingHelper",
    "TrainingHelper",
    "dynamic_decode",
    "tile_batch",
)


@pytest.mark.parametrize("name", NAMES)
def test_each_drop_in_name_is_fixed_and_a_surface_row(name):
    new, findings = fix_with_passes(
        f"import tensorflow as tf\nx = tf.contrib.seq2seq.{name}(a, b)\n"
    )
    assert [f.fixed for f in findings] == [True]
    assert f"x = emg.seq2seq.{name}(a, b)\n" in new
    row = _contrib_surface.row(f"tf.contrib.seq2seq.{name}")
    assert (row.outcome, row.successor, row.note) == ("emg", f"emg.seq2seq.{name}", "")
    assert getattr(emg.seq2seq, name) is not None


def test_module_and_internal_spellings_are_rewritten():
    new, findings = fix_with_passes(
        """
        import tensorflow as tf
        from tensorflow.contrib import seq2seq
        from tensorflow.contrib.seq2seq.python.ops import helper as helper_py

        class MyHelper(helper_py.Helper):
            pass

        h = seq2seq.TrainingHelper(x, n, time_major=True)
        out, state, lengths = seq2seq.dynamic_decode(d, maximum_iterations=5)
        """
    )
    assert all(f.fixed for f in findings), [f.api for f in findings if not f.fixed]
    assert "class MyHelper(emg.seq2seq.Helper):" in new
    assert "h = emg.seq2seq.TrainingHelper(x, n, time_major=True)" in new
    assert "emg.seq2seq.dynamic_decode(d, maximum_iterations=5)" in new
    assert "contrib" not in new


@pytest.mark.parametrize(
    "name", ["AttentionWrapper", "BeamSearchDecoder", "LuongAttention"]
)
def test_attention_and_beam_search_keep_their_no_successor_finding(name):
    new, findings = fix_with_passes(
        f"import tensorflow as tf\nx = tf.contrib.seq2seq.{name}(a, b)\n"
    )
    assert [f.fixed for f in findings] == [False]
    assert f'emg.migrate_gone("tf.contrib.seq2seq.{name}"' in new


def test_the_corpus_script_findings_are_the_expected_ones():
    path = CORPUS / "contrib_seq2seq_decoder.py"
    found = sorted(
        (f.line, f.rule.rule_id) for f in _runner.process(str(path)).findings
    )
    assert [f for f in found if f[1] != "compat-v1"] == expected_findings(path)


@pytest.mark.slow
def test_the_fixed_corpus_model_trains_and_decodes(tmp_path):
    out = run_fixed("contrib_seq2seq_decoder.py", tmp_path, all_fixed=True, timeout=240)
    loss, decoded, tiled = out.splitlines()[-3:]
    first, last = map(float, loss.split()[1:])
    assert last < first / 10, loss
    assert decoded == "decoded [3, 4, 5, 2] 4"
    assert tiled == "tiled [1.0, 1.0, 2.0, 2.0]"
