"""tf.contrib.checkpoint of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "move to core"
ADVICE = "tf.train.Checkpoint, tf.train.CheckpointManager and tf.Module track state"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "CheckpointManager": ("exact", "tf.train.CheckpointManager", ""),
    "Checkpointable": ("none", "", ""),
    "CheckpointableBase": ("none", "", ""),
    "CheckpointableObjectGraph": ("none", "", ""),
    "List": ("none", "", ""),
    "Mapping": ("none", "", ""),
    "NoDependency": ("none", "", ""),
    "NumpyState": ("none", "", ""),
    "PythonStateWrapper": ("exact", "tf.compat.v1.train.experimental.PythonState", ""),
    "UniqueNameTracker": ("none", "", ""),
    "capture_dependencies": ("none", "", ""),
    "dot_graph_from_checkpoint": ("none", "", ""),
    "list_objects": ("none", "", ""),
    "object_metadata": ("none", "", ""),
    "split_dependency": ("none", "", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.checkpoint.python.containers": {
        "UniqueNameTracker": "UniqueNameTracker"
    },
    "tf.contrib.checkpoint.python.python_state": {"NumpyState": "NumpyState"},
    "tf.contrib.checkpoint.python.split_dependency": {
        "split_dependency": "split_dependency"
    },
    "tf.contrib.checkpoint.python.visualize": {
        "dot_graph_from_checkpoint": "dot_graph_from_checkpoint"
    },
}
