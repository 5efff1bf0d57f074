"""tf.contrib.nn of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "partial move to tensorflow/contrib?"
ADVICE = "tf.nn, TensorFlow Addons carried some of it until its end of life (2024); keep the TF 1.15 implementation in your code (Apache-2.0) or rewrite it with core ops"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "alpha_dropout": ("none", "", ""),
    "conv1d_transpose": ("exact", "tf.nn.conv1d_transpose", ""),
    "deprecated_flipped_sigmoid_cross_entropy_with_logits": ("none", "", ""),
    "deprecated_flipped_softmax_cross_entropy_with_logits": ("none", "", ""),
    "deprecated_flipped_sparse_softmax_cross_entropy_with_logits": ("none", "", ""),
    "nth_element": ("none", "", ""),
    "rank_sampled_softmax_loss": ("none", "", ""),
    "sampled_sparse_softmax_loss": ("none", "", ""),
    "scaled_softplus": ("none", "", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.nn.python.ops.alpha_dropout": {"alpha_dropout": "alpha_dropout"},
    "tf.contrib.nn.python.ops.cross_entropy": {
        "deprecated_flipped_sigmoid_cross_entropy_with_logits": "deprecated_flipped_sigmoid_cross_entropy_with_logits",
        "deprecated_flipped_softmax_cross_entropy_with_logits": "deprecated_flipped_softmax_cross_entropy_with_logits",
        "deprecated_flipped_sparse_softmax_cross_entropy_with_logits": "deprecated_flipped_sparse_softmax_cross_entropy_with_logits",
    },
    "tf.contrib.nn.python.ops.sampling_ops": {
        "rank_sampled_softmax_loss": "rank_sampled_softmax_loss",
        "sampled_sparse_softmax_loss": "sampled_sparse_softmax_loss",
    },
    "tf.contrib.nn.python.ops.scaled_softplus": {"scaled_softplus": "scaled_softplus"},
}
