"""tf.contrib.data of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "delete (moved to core)"
ADVICE = "tf.data and tf.data.experimental"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "AUTOTUNE": ("exact", "tf.data.AUTOTUNE", "tf.data.AUTOTUNE"),
    "CheckpointInputPipelineHook": ("none", "", ""),
    "Counter": ("exact", "tf.data.experimental.Counter", ""),
    "CsvDataset": ("exact", "tf.data.experimental.CsvDataset", ""),
    "LMDBDataset": ("none", "", ""),
    "Optional": ("exact", "tf.compat.v1.data.experimental.Optional", ""),
    "RandomDataset": ("exact", "tf.data.experimental.RandomDataset", ""),
    "Reducer": ("exact", "tf.data.experimental.Reducer", ""),
    "SqlDataset": ("exact", "tf.data.experimental.SqlDataset", ""),
    "TFRecordWriter": ("exact", "tf.data.experimental.TFRecordWriter", ""),
    "assert_element_shape": ("none", "", ""),
    "batch_and_drop_remainder": (
        "exact",
        "dataset.batch",
        "dataset.batch(batch_size, drop_remainder=True)",
    ),
    "bucket_by_sequence_length": (
        "exact",
        "tf.data.experimental.bucket_by_sequence_length",
        "",
    ),
    "choose_from_datasets": ("exact", "tf.data.experimental.choose_from_datasets", ""),
    "copy_to_device": (
        "exact",
        "tf.data.experimental.copy_to_device",
        "tf.data.experimental.copy_to_device(target_device, source_device='/cpu:0') (the same arguments; emg-migrate --fix writes it)",
    ),
    "dense_to_sparse_batch": (
        "exact",
        "tf.data.experimental.dense_to_sparse_batch",
        "",
    ),
    "enumerate_dataset": ("exact", "tf.data.experimental.enumerate_dataset", ""),
    "get_next_as_optional": ("exact", "tf.data.experimental.get_next_as_optional", ""),
    "get_single_element": ("exact", "tf.data.experimental.get_single_element", ""),
    "group_by_reducer": ("exact", "tf.data.experimental.group_by_reducer", ""),
    "group_by_window": ("exact", "tf.data.experimental.group_by_window", ""),
    "ignore_errors": (
        "exact",
        "tf.data.experimental.ignore_errors",
        "tf.data.experimental.ignore_errors() or dataset.ignore_errors()",
    ),
    "make_batched_features_dataset": (
        "exact",
        "tf.data.experimental.make_batched_features_dataset",
        "",
    ),
    "make_csv_dataset": ("exact", "tf.data.experimental.make_csv_dataset", ""),
    "make_saveable_from_iterator": (
        "exact",
        "tf.data.experimental.make_saveable_from_iterator",
        "",
    ),
    "map_and_batch": (
        "exact",
        "tf.data.experimental.map_and_batch",
        "tf.data.experimental.map_and_batch(map_func, batch_size, "
        "num_parallel_batches=None, drop_remainder=False, "
        "num_parallel_calls=None) (the same arguments; emg-migrate "
        "--fix writes it), or dataset.map(map_func, "
        "num_parallel_calls=...).batch(batch_size, "
        "drop_remainder=...)",
    ),
    "padded_batch_and_drop_remainder": ("none", "", ""),
    "parallel_interleave": (
        "exact",
        "tf.data.experimental.parallel_interleave",
        "tf.data.experimental.parallel_interleave(map_func, "
        "cycle_length, block_length=1, sloppy=False, "
        "buffer_output_elements=None, "
        "prefetch_input_elements=None) (the same arguments; "
        "emg-migrate --fix writes it), or "
        "dataset.interleave(map_func, cycle_length, "
        "block_length, num_parallel_calls=tf.data.AUTOTUNE, "
        "deterministic=not sloppy)",
    ),
    "parse_example_dataset": (
        "exact",
        "tf.data.experimental.parse_example_dataset",
        "",
    ),
    "prefetch_to_device": (
        "exact",
        "tf.data.experimental.prefetch_to_device",
        "tf.data.experimental.prefetch_to_device(device, buffer_size=None) (the same arguments; emg-migrate --fix writes it)",
    ),
    "read_batch_features": ("none", "", ""),
    "reduce_dataset": ("none", "", ""),
    "rejection_resample": ("exact", "tf.data.experimental.rejection_resample", ""),
    "sample_from_datasets": ("exact", "tf.data.experimental.sample_from_datasets", ""),
    "scan": ("exact", "tf.data.experimental.scan", ""),
    "shuffle_and_repeat": (
        "exact",
        "tf.data.experimental.shuffle_and_repeat",
        "tf.data.experimental.shuffle_and_repeat(buffer_size, count=None, seed=None) (the same arguments; emg-migrate --fix writes it), or dataset.shuffle(buffer_size, seed).repeat(count)",
    ),
    "sliding_window_batch": ("none", "", ""),
    "sloppy_interleave": ("none", "", ""),
    "unbatch": ("exact", "tf.data.experimental.unbatch", ""),
    "unique": ("exact", "tf.data.experimental.unique", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.data.python.ops.batching": {
        "assert_element_shape": "assert_element_shape",
        "batch_and_drop_remainder": "batch_and_drop_remainder",
        "dense_to_sparse_batch": "dense_to_sparse_batch",
        "map_and_batch": "map_and_batch",
        "padded_batch_and_drop_remainder": "padded_batch_and_drop_remainder",
        "unbatch": "unbatch",
    },
    "tf.contrib.data.python.ops.counter": {"Counter": "Counter"},
    "tf.contrib.data.python.ops.enumerate_ops": {
        "enumerate_dataset": "enumerate_dataset"
    },
    "tf.contrib.data.python.ops.error_ops": {"ignore_errors": "ignore_errors"},
    "tf.contrib.data.python.ops.get_single_element": {
        "get_single_element": "get_single_element",
        "reduce_dataset": "reduce_dataset",
    },
    "tf.contrib.data.python.ops.grouping": {
        "Reducer": "Reducer",
        "bucket_by_sequence_length": "bucket_by_sequence_length",
        "group_by_reducer": "group_by_reducer",
        "group_by_window": "group_by_window",
    },
    "tf.contrib.data.python.ops.interleave_ops": {
        "choose_from_datasets": "choose_from_datasets",
        "parallel_interleave": "parallel_interleave",
        "sample_from_datasets": "sample_from_datasets",
        "sloppy_interleave": "sloppy_interleave",
    },
    "tf.contrib.data.python.ops.iterator_ops": {
        "CheckpointInputPipelineHook": "CheckpointInputPipelineHook",
        "make_saveable_from_iterator": "make_saveable_from_iterator",
    },
    "tf.contrib.data.python.ops.parsing_ops": {
        "parse_example_dataset": "parse_example_dataset"
    },
    "tf.contrib.data.python.ops.prefetching_ops": {
        "copy_to_device": "copy_to_device",
        "prefetch_to_device": "prefetch_to_device",
    },
    "tf.contrib.data.python.ops.random_ops": {"RandomDataset": "RandomDataset"},
    "tf.contrib.data.python.ops.readers": {
        "CsvDataset": "CsvDataset",
        "LMDBDataset": "LMDBDataset",
        "SqlDataset": "SqlDataset",
        "make_batched_features_dataset": "make_batched_features_dataset",
        "make_csv_dataset": "make_csv_dataset",
        "read_batch_features": "read_batch_features",
    },
    "tf.contrib.data.python.ops.resampling": {
        "rejection_resample": "rejection_resample"
    },
    "tf.contrib.data.python.ops.scan_ops": {"scan": "scan"},
    "tf.contrib.data.python.ops.shuffle_ops": {
        "shuffle_and_repeat": "shuffle_and_repeat"
    },
    "tf.contrib.data.python.ops.sliding": {
        "sliding_window_batch": "sliding_window_batch"
    },
    "tf.contrib.data.python.ops.unique": {"unique": "unique"},
    "tf.contrib.data.python.ops.writers": {"TFRecordWriter": "TFRecordWriter"},
}
