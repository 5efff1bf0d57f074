"""tf.contrib.crf of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "merge into tensorflow/probability?"
ADVICE = "TensorFlow Addons carried some of it until its end of life (2024); keep the TF 1.15 implementation in your code (Apache-2.0) or rewrite it with core ops"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "CrfDecodeBackwardRnnCell": ("emg", "emg.crf.CrfDecodeBackwardRnnCell", ""),
    "CrfDecodeForwardRnnCell": ("emg", "emg.crf.CrfDecodeForwardRnnCell", ""),
    "CrfForwardRnnCell": ("emg", "emg.crf.CrfForwardRnnCell", ""),
    "crf_binary_score": ("emg", "emg.crf.crf_binary_score", ""),
    "crf_decode": ("emg", "emg.crf.crf_decode", ""),
    "crf_log_likelihood": ("emg", "emg.crf.crf_log_likelihood", ""),
    "crf_log_norm": ("emg", "emg.crf.crf_log_norm", ""),
    "crf_multitag_sequence_score": ("none", "", ""),
    "crf_sequence_score": ("emg", "emg.crf.crf_sequence_score", ""),
    "crf_unary_score": ("emg", "emg.crf.crf_unary_score", ""),
    "viterbi_decode": ("emg", "emg.crf.viterbi_decode", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.crf.python.ops.crf": {
        "CrfDecodeBackwardRnnCell": "CrfDecodeBackwardRnnCell",
        "CrfDecodeForwardRnnCell": "CrfDecodeForwardRnnCell",
        "CrfForwardRnnCell": "CrfForwardRnnCell",
        "crf_binary_score": "crf_binary_score",
        "crf_decode": "crf_decode",
        "crf_log_likelihood": "crf_log_likelihood",
        "crf_log_norm": "crf_log_norm",
        "crf_multitag_sequence_score": "crf_multitag_sequence_score",
        "crf_sequence_score": "crf_sequence_score",
        "crf_unary_score": "crf_unary_score",
        "viterbi_decode": "viterbi_decode",
    }
}
