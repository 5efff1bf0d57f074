"""tf.contrib.lookup of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "move to core"
ADVICE = "tf.lookup"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "FastHashSpec": ("emg", "emg.inputs.lookup.FastHashSpec", ""),
    "HashTable": ("none", "", ""),
    "HasherSpec": ("emg", "emg.inputs.lookup.HasherSpec", ""),
    "IdTableWithHashBuckets": ("none", "", ""),
    "InitializableLookupTableBase": ("none", "", ""),
    "KeyValueTensorInitializer": ("exact", "tf.lookup.KeyValueTensorInitializer", ""),
    "LookupInterface": ("none", "", ""),
    "MutableDenseHashTable": (
        "none",
        "tf.lookup.experimental.DenseHashTable",
        "tf.lookup.experimental.DenseHashTable has its "
        "name, but it takes (), contrib's took (key_dtype, "
        "value_dtype, default_value, empty_key, "
        "deleted_key, initial_num_buckets, name, "
        "checkpoint)",
    ),
    "MutableHashTable": (
        "none",
        "tf.lookup.experimental.MutableHashTable",
        "tf.lookup.experimental.MutableHashTable has its name, "
        "but it takes (), contrib's took (key_dtype, "
        "value_dtype, default_value, name, checkpoint)",
    ),
    "StrongHashSpec": ("emg", "emg.inputs.lookup.StrongHashSpec", ""),
    "TableInitializerBase": ("none", "", ""),
    "TextFileIdTableInitializer": ("none", "", ""),
    "TextFileIndex": ("exact", "tf.compat.v1.lookup.TextFileIndex", ""),
    "TextFileInitializer": ("exact", "tf.lookup.TextFileInitializer", ""),
    "TextFileStringTableInitializer": ("none", "", ""),
    "index_table_from_file": ("emg", "emg.inputs.lookup.index_table_from_file", ""),
    "index_table_from_tensor": ("emg", "emg.inputs.lookup.index_table_from_tensor", ""),
    "index_to_string": ("emg", "emg.inputs.lookup.index_to_string", ""),
    "index_to_string_table_from_file": (
        "emg",
        "emg.inputs.lookup.index_to_string_table_from_file",
        "",
    ),
    "index_to_string_table_from_tensor": (
        "emg",
        "emg.inputs.lookup.index_to_string_table_from_tensor",
        "",
    ),
    "string_to_index": ("emg", "emg.inputs.lookup.string_to_index", ""),
    "string_to_index_table_from_file": (
        "emg",
        "emg.inputs.lookup.string_to_index_table_from_file",
        "",
    ),
    "string_to_index_table_from_tensor": (
        "emg",
        "emg.inputs.lookup.string_to_index_table_from_tensor",
        "",
    ),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.lookup.lookup_ops": {
        "HashTable": "HashTable",
        "index_table_from_tensor": "index_table_from_tensor",
        "index_to_string": "index_to_string",
        "index_to_string_table_from_tensor": "index_to_string_table_from_tensor",
        "string_to_index": "string_to_index",
        "string_to_index_table_from_file": "string_to_index_table_from_file",
        "string_to_index_table_from_tensor": "string_to_index_table_from_tensor",
    }
}
