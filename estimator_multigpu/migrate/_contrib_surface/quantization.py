"""tf.contrib.quantization of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "delete (absorbed into tflite)"
ADVICE = "tf.quantization"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "dequantize": ("exact", "tf.quantization.dequantize", ""),
    "quantize_v2": (
        "none",
        "tf.compat.v1.quantize_v2",
        "tf.compat.v1.quantize_v2 has its name, but it takes (input, "
        "min_range, max_range, T, mode, name, round_mode, "
        "narrow_range, axis, ensure_minimum_range), contrib's took "
        "(input, min_range, max_range, T, mode, round_mode, name)",
    ),
    "quantized_array_ops": ("none", "", ""),
    "quantized_concat": ("exact", "tf.quantization.quantized_concat", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {"tf.contrib.quantization.python.array_ops": {"": "quantized_array_ops"}}
