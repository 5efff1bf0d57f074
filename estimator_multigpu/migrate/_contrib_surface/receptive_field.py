"""tf.contrib.receptive_field of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "no fate given"
ADVICE = "keep the TF 1.15 implementation in your code (Apache-2.0), or rewrite it with core tf ops"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "compute_receptive_field_from_graph_def": ("none", "", ""),
    "get_compute_order": ("none", "", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.receptive_field.python.util.graph_compute_order": {
        "get_compute_order": "get_compute_order"
    },
    "tf.contrib.receptive_field.python.util.receptive_field": {
        "compute_receptive_field_from_graph_def": "compute_receptive_field_from_graph_def"
    },
}
