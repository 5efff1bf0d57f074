"""tf.contrib.seq2seq's decoder loop, helpers, tile_batch, attention wrapper
and beam search decoder: --fix writes emg.seq2seq's drop-ins; the other
helpers and sequence_loss keep their no-successor finding."""

import pytest
from migrate_helpers import CORPUS, expected_findings, fix_with_passes, run_fixed

import estimator_multigpu as emg
from estimator_multigpu.migrate import _contrib_surface, _runner

NAMES = (
    "AttentionMechanism",
    "AttentionWrapper",
    "AttentionWrapperState",
    "BahdanauAttention",
    "BahdanauMonotonicAttention",
    "BasicDecoder",
    "BasicDecoderOutput",
    "BeamSearchDecoder",
    "BeamSearchDecoderOutput",
    "BeamSearchDecoderState",
    "Decoder",
    "FinalBeamSearchDecoderOutput",
    "GreedyEmbeddingHelper",
    "Helper",
    "LuongAttention",
    "LuongMonotonicAttention",
    "SampleEmbeddingHelper",
    "TrainingHelper",
    "dynamic_decode",
    "gather_tree",
    "hardmax",
    "monotonic_attention",
    "safe_cumprod",
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


def test_attention_and_beam_search_internal_modules_are_rewritten():
    new, findings = fix_with_passes(
        """
        import tensorflow as tf
        from tensorflow.contrib.seq2seq.python.ops import attention_wrapper
        from tensorflow.contrib.seq2seq.python.ops import beam_search_decoder

        m = attention_wrapper.LuongAttention(8, memory, scale=True)
        cell = attention_wrapper.AttentionWrapper(lstm, m, attention_layer_size=8)
        d = beam_search_decoder.BeamSearchDecoder(cell, e, s, 2, state, 4)
        ids = tf.contrib.seq2seq.gather_tree(step_ids, parent_ids, lengths, 2)
        """
    )
    assert all(f.fixed for f in findings), [f.api for f in findings if not f.fixed]
    assert "m = emg.seq2seq.LuongAttention(8, memory, scale=True)" in new
    assert "emg.seq2seq.AttentionWrapper(lstm, m, attention_layer_size=8)" in new
    assert "d = emg.seq2seq.BeamSearchDecoder(cell, e, s, 2, state, 4)" in new
    assert "emg.seq2seq.gather_tree(step_ids, parent_ids, lengths, 2)" in new
    assert "contrib" not in new


@pytest.mark.parametrize(
    "name", ["InferenceHelper", "CustomHelper", "ScheduledEmbeddingTrainingHelper"]
)
def test_the_other_helpers_keep_their_no_successor_finding(name):
    new, findings = fix_with_passes(
        f"import tensorflow as tf\nx = tf.contrib.seq2seq.{name}(a, b)\n"
    )
    assert [f.fixed for f in findings] == [False]
    assert f'emg.migrate_gone("tf.contrib.seq2seq.{name}"' in new


@pytest.mark.parametrize(
    "script", ["contrib_seq2seq_decoder.py", "contrib_seq2seq_attention.py"]
)
def test_the_corpus_script_findings_are_the_expected_ones(script):
    path = CORPUS / script
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


@pytest.mark.slow
@pytest.mark.parametrize("args", [[], ["--bahdanau"]])
def test_the_fixed_attention_model_trains_and_beam_search_decodes(tmp_path, args):
    out = run_fixed(
        "contrib_seq2seq_attention.py", tmp_path, *args, all_fixed=True, timeout=300
    )
    loss, reversed_, beams, alignments, names = out.splitlines()[-5:]
    first, last = map(float, loss.split()[1:])
    assert last < first / 10, loss
    assert reversed_ == "reversed 16 of 16"
    assert beams == "beams [16, 6, 3] sorted True"
    assert alignments == "alignments [6, 48, 4]"  # reordered along the beams
    mechanism = (
        "bahdanau_attention/attention_v" if args else "luong_attention/attention_g"
    )
    for name in (
        "model/decoder/memory_layer/kernel",
        "model/decoder/attention/attention_layer/kernel",
        f"model/decoder/attention/{mechanism}",
        "model/decoder/attention/basic_lstm_cell/kernel",
    ):
        assert name in names.split(), names
