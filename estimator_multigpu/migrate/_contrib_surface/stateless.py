"""tf.contrib.stateless of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "replace our random ops with this?"
ADVICE = "tf.random.stateless_*"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "stateless_multinomial": ("exact", "tf.compat.v1.random.stateless_multinomial", ""),
    "stateless_random_normal": ("exact", "tf.random.stateless_normal", ""),
    "stateless_random_uniform": ("exact", "tf.random.stateless_uniform", ""),
    "stateless_truncated_normal": ("exact", "tf.random.stateless_truncated_normal", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {}
