"""tf.contrib.nearest_neighbor of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "delete"
ADVICE = "keep the TF 1.15 implementation in your code (Apache-2.0), or rewrite it with core tf ops"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {"hyperplane_lsh_probes": ("none", "", ""), "loader": ("none", "", "")}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.nearest_neighbor.python.ops.nearest_neighbor_ops": {
        "hyperplane_lsh_probes": "hyperplane_lsh_probes"
    },
    "tf.contrib.util.loader": {"": "loader"},
}
