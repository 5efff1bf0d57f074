"""tf.contrib.recurrent of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "replaced with new RNN API?"
ADVICE = "tf.keras.layers.RNN"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "Recurrent": ("none", "", ""),
    "bidirectional_functional_rnn": ("none", "", ""),
    "functional_rnn": ("none", "", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.recurrent.python.ops.functional_rnn": {
        "bidirectional_functional_rnn": "bidirectional_functional_rnn",
        "functional_rnn": "functional_rnn",
    },
    "tf.contrib.recurrent.python.ops.recurrent": {"Recurrent": "Recurrent"},
}
