"""tf.contrib.fused_conv of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "delete"
ADVICE = "tf.nn.conv2d then tf.nn.bias_add and the activation (XLA fuses them under jit_compile)"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {"fused_conv2d_bias_activation": ("none", "", "")}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.fused_conv.python.ops.fused_conv2d_bias_activation_op": {
        "fused_conv2d_bias_activation": "fused_conv2d_bias_activation"
    }
}
