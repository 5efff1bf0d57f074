"""tf.contrib.tensor_forest of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "delete (moving to core)"
ADVICE = "tf.estimator is gone on TF 2.16+: write a model_fn and run it with emg.estimator.Estimator, or move to Keras"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "data_ops": ("none", "", ""),
    "eval_metrics": ("none", "", ""),
    "model_ops": ("none", "", ""),
    "random_forest": ("none", "", ""),
    "stats_ops": ("none", "", ""),
    "tensor_forest": ("none", "", ""),
    "tensor_forest_ops": ("none", "", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.tensor_forest.client.eval_metrics": {"": "eval_metrics"},
    "tf.contrib.tensor_forest.client.random_forest": {"": "random_forest"},
    "tf.contrib.tensor_forest.python.ops.data_ops": {"": "data_ops"},
    "tf.contrib.tensor_forest.python.ops.model_ops": {"": "model_ops"},
    "tf.contrib.tensor_forest.python.ops.stats_ops": {"": "stats_ops"},
    "tf.contrib.tensor_forest.python.ops.tensor_forest_ops": {"": "tensor_forest_ops"},
    "tf.contrib.tensor_forest.python.tensor_forest": {"": "tensor_forest"},
}
