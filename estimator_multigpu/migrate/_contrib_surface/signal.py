"""tf.contrib.signal of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "move to core (replace existing) or tensorflow/scientific?"
ADVICE = "tf.signal"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "frame": ("exact", "tf.signal.frame", ""),
    "hamming_window": ("exact", "tf.signal.hamming_window", ""),
    "hann_window": ("exact", "tf.signal.hann_window", ""),
    "inverse_stft": ("exact", "tf.signal.inverse_stft", ""),
    "inverse_stft_window_fn": ("exact", "tf.signal.inverse_stft_window_fn", ""),
    "linear_to_mel_weight_matrix": (
        "exact",
        "tf.signal.linear_to_mel_weight_matrix",
        "",
    ),
    "mfccs_from_log_mel_spectrograms": (
        "exact",
        "tf.signal.mfccs_from_log_mel_spectrograms",
        "",
    ),
    "overlap_and_add": ("exact", "tf.signal.overlap_and_add", ""),
    "stft": ("exact", "tf.signal.stft", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {}
