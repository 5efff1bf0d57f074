"""tf.contrib.autograph of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "move to core"
ADVICE = "tf.autograph and tf.function"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "AutoGraphError": ("none", "", ""),
    "ConversionOptions": ("none", "", ""),
    "Feature": ("exact", "tf.compat.v1.autograph.experimental.Feature", ""),
    "StackTraceMapper": ("none", "", ""),
    "convert": ("none", "", ""),
    "converted_call": ("none", "", ""),
    "do_not_convert": ("exact", "tf.autograph.experimental.do_not_convert", ""),
    "set_element_type": ("none", "", ""),
    "set_loop_options": (
        "none",
        "tf.autograph.experimental.set_loop_options",
        "tf.autograph.experimental.set_loop_options has its "
        "name, but it takes (parallel_iterations, swap_memory, "
        "maximum_iterations, shape_invariants), contrib's took "
        "(parallel_iterations, back_prop, swap_memory, "
        "maximum_iterations)",
    ),
    "stack": (
        "none",
        "tf.stack",
        "tf.stack has its name, but it takes (values, axis, name), "
        "contrib's took (list_or_tensor, element_dtype, strict)",
    ),
    "to_code": ("exact", "tf.autograph.to_code", ""),
    "to_graph": ("exact", "tf.autograph.to_graph", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {}
