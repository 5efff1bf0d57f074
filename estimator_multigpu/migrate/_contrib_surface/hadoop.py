"""tf.contrib.hadoop of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "move to tensorflow/io?"
ADVICE = "the tensorflow-io package (pip install tensorflow-io; import tensorflow_io as tfio) has tf.data readers for this source; check its arguments, they differ"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {"SequenceFileDataset": ("none", "", "")}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.hadoop.python.ops.hadoop_dataset_ops": {
        "SequenceFileDataset": "SequenceFileDataset"
    }
}
