"""tf.contrib.feature_column of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "move to core (experimental)"
ADVICE = "tf.feature_column, or Keras preprocessing layers"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "sequence_categorical_column_with_hash_bucket": (
        "exact",
        "tf.feature_column.sequence_categorical_column_with_hash_bucket",
        "",
    ),
    "sequence_categorical_column_with_identity": (
        "exact",
        "tf.feature_column.sequence_categorical_column_with_identity",
        "",
    ),
    "sequence_categorical_column_with_vocabulary_file": (
        "exact",
        "tf.feature_column.sequence_categorical_column_with_vocabulary_file",
        "",
    ),
    "sequence_categorical_column_with_vocabulary_list": (
        "exact",
        "tf.feature_column.sequence_categorical_column_with_vocabulary_list",
        "",
    ),
    "sequence_input_layer": ("none", "", ""),
    "sequence_numeric_column": (
        "exact",
        "tf.feature_column.sequence_numeric_column",
        "",
    ),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.feature_column.python.feature_column.sequence_feature_column": {
        "sequence_categorical_column_with_hash_bucket": "sequence_categorical_column_with_hash_bucket",
        "sequence_categorical_column_with_identity": "sequence_categorical_column_with_identity",
        "sequence_categorical_column_with_vocabulary_file": "sequence_categorical_column_with_vocabulary_file",
        "sequence_categorical_column_with_vocabulary_list": "sequence_categorical_column_with_vocabulary_list",
        "sequence_input_layer": "sequence_input_layer",
        "sequence_numeric_column": "sequence_numeric_column",
    }
}
