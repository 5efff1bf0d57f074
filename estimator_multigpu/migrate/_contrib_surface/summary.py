"""tf.contrib.summary of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "move to core, replacing tf.summary"
ADVICE = "tf.summary (TF 2's summary API: create_file_writer, as_default, step=)"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "SummaryWriter": (
        "none",
        "tf.summary.SummaryWriter",
        "tf.summary.SummaryWriter has its name, but its arguments "
        "could not be compared with contrib's",
    ),
    "all_summary_ops": ("exact", "tf.compat.v1.summary.all_v2_summary_ops", ""),
    "always_record_summaries": ("none", "", ""),
    "audio": (
        "none",
        "tf.summary.audio",
        "tf.summary.audio has its name, but it takes (name, data, "
        "sample_rate, step, max_outputs, encoding, description), contrib's "
        "took (name, tensor, sample_rate, max_outputs, family, step)",
    ),
    "create_db_writer": ("none", "", ""),
    "create_file_writer": ("exact", "tf.summary.create_file_writer", ""),
    "create_summary_file_writer": ("none", "", ""),
    "eval_dir": ("none", "", ""),
    "flush": ("exact", "tf.summary.flush", ""),
    "generic": ("none", "", ""),
    "graph": (
        "none",
        "tf.summary.graph",
        "tf.summary.graph has its name, but it takes (graph_data), "
        "contrib's took (param, step, name)",
    ),
    "histogram": (
        "none",
        "tf.summary.histogram",
        "tf.summary.histogram has its name, but it takes (name, data, "
        "step, buckets, description), contrib's took (name, tensor, "
        "family, step)",
    ),
    "image": (
        "none",
        "tf.summary.image",
        "tf.summary.image has its name, but it takes (name, data, step, "
        "max_outputs, description), contrib's took (name, tensor, "
        "bad_color, max_images, family, step)",
    ),
    "import_event": ("none", "", ""),
    "initialize": ("exact", "tf.compat.v1.summary.initialize", ""),
    "never_record_summaries": ("none", "", ""),
    "record_summaries_every_n_global_steps": ("none", "", ""),
    "scalar": (
        "none",
        "tf.summary.scalar",
        "tf.summary.scalar has its name, but it takes (name, data, step, "
        "description), contrib's took (name, tensor, family, step)",
    ),
    "should_record_summaries": ("exact", "tf.summary.should_record_summaries", ""),
    "summary_writer_initializer_op": ("none", "", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {}
