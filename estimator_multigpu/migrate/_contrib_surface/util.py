"""tf.contrib.util of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "delete (no owner), or move to tools"
ADVICE = "tf.make_ndarray / tf.make_tensor_proto / tf.get_static_value"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "constant_value": ("exact", "tf.get_static_value", ""),
    "make_ndarray": ("exact", "tf.make_ndarray", ""),
    "make_tensor_proto": ("exact", "tf.make_tensor_proto", ""),
    "ops_used_by_graph_def": ("none", "", ""),
    "stripped_op_list_for_graph": ("none", "", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {}
