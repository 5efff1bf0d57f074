"""tf.contrib.optimizer_v2 of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "merge to core"
ADVICE = "tf.keras.optimizers"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "AdadeltaOptimizer": ("none", "", ""),
    "AdagradOptimizer": ("none", "", ""),
    "AdamOptimizer": ("none", "", ""),
    "GradientDescentOptimizer": ("none", "", ""),
    "MomentumOptimizer": ("none", "", ""),
    "OptimizerV2": ("none", "", ""),
    "RMSPropOptimizer": ("none", "", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.optimizer_v2.adadelta": {"AdadeltaOptimizer": "AdadeltaOptimizer"},
    "tf.contrib.optimizer_v2.adagrad": {"AdagradOptimizer": "AdagradOptimizer"},
    "tf.contrib.optimizer_v2.adam": {"AdamOptimizer": "AdamOptimizer"},
    "tf.contrib.optimizer_v2.gradient_descent": {
        "GradientDescentOptimizer": "GradientDescentOptimizer"
    },
    "tf.contrib.optimizer_v2.momentum": {"MomentumOptimizer": "MomentumOptimizer"},
    "tf.contrib.optimizer_v2.optimizer_v2": {"OptimizerV2": "OptimizerV2"},
    "tf.contrib.optimizer_v2.rmsprop": {"RMSPropOptimizer": "RMSPropOptimizer"},
}
