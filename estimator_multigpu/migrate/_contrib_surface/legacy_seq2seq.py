"""tf.contrib.legacy_seq2seq of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "delete (replaced by seq2seq)"
ADVICE = "keep the TF 1.15 implementation in your code (Apache-2.0), or rewrite it with core tf ops"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "attention_decoder": ("none", "", ""),
    "basic_rnn_seq2seq": (
        "emg",
        "emg.legacy_seq2seq.basic_rnn_seq2seq",
        "emg.legacy_seq2seq.basic_rnn_seq2seq (the drop-in: the same arguments, variable scopes and values; emg-migrate --fix writes it)",
    ),
    "embedding_attention_decoder": ("none", "", ""),
    "embedding_attention_seq2seq": ("none", "", ""),
    "embedding_rnn_decoder": ("none", "", ""),
    "embedding_rnn_seq2seq": ("none", "", ""),
    "embedding_tied_rnn_seq2seq": ("none", "", ""),
    "model_with_buckets": ("none", "", ""),
    "one2many_rnn_seq2seq": ("none", "", ""),
    "rnn_decoder": (
        "emg",
        "emg.legacy_seq2seq.rnn_decoder",
        "emg.legacy_seq2seq.rnn_decoder (the drop-in: the same arguments, variable scopes and values; emg-migrate --fix writes it)",
    ),
    "sequence_loss": (
        "emg",
        "emg.legacy_seq2seq.sequence_loss",
        "emg.legacy_seq2seq.sequence_loss (the drop-in: the same arguments, variable scopes and values; emg-migrate --fix writes it)",
    ),
    "sequence_loss_by_example": (
        "emg",
        "emg.legacy_seq2seq.sequence_loss_by_example",
        "emg.legacy_seq2seq.sequence_loss_by_example (the drop-in: the same arguments, variable scopes and values; emg-migrate --fix writes it)",
    ),
    "tied_rnn_seq2seq": (
        "emg",
        "emg.legacy_seq2seq.tied_rnn_seq2seq",
        "emg.legacy_seq2seq.tied_rnn_seq2seq (the drop-in: the same arguments, variable scopes and values; emg-migrate --fix writes it)",
    ),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.legacy_seq2seq.python.ops.seq2seq": {
        "attention_decoder": "attention_decoder",
        "basic_rnn_seq2seq": "basic_rnn_seq2seq",
        "embedding_attention_decoder": "embedding_attention_decoder",
        "embedding_attention_seq2seq": "embedding_attention_seq2seq",
        "embedding_rnn_decoder": "embedding_rnn_decoder",
        "embedding_rnn_seq2seq": "embedding_rnn_seq2seq",
        "embedding_tied_rnn_seq2seq": "embedding_tied_rnn_seq2seq",
        "model_with_buckets": "model_with_buckets",
        "one2many_rnn_seq2seq": "one2many_rnn_seq2seq",
        "rnn_decoder": "rnn_decoder",
        "sequence_loss": "sequence_loss",
        "sequence_loss_by_example": "sequence_loss_by_example",
        "tied_rnn_seq2seq": "tied_rnn_seq2seq",
    }
}
