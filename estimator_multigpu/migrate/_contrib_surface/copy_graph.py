"""tf.contrib.copy_graph of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "delete (no owner)"
ADVICE = "keep the TF 1.15 implementation in your code (Apache-2.0), or rewrite it with core tf ops"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "copy_op_to_graph": ("none", "", ""),
    "copy_variable_to_graph": ("none", "", ""),
    "get_copied_op": ("none", "", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.copy_graph.python.util.copy_elements": {
        "copy_op_to_graph": "copy_op_to_graph",
        "copy_variable_to_graph": "copy_variable_to_graph",
        "get_copied_op": "get_copied_op",
    }
}
