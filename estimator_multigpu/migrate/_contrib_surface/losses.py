"""tf.contrib.losses of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "partial move to tensorflow/contrib"
ADVICE = "tf.compat.v1.losses or tf.keras.losses; tf_slim.losses keeps contrib's"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "absolute_difference": ("exact", "tf_slim.losses.absolute_difference", ""),
    "add_loss": ("exact", "tf_slim.losses.add_loss", ""),
    "compute_weighted_loss": ("exact", "tf_slim.losses.compute_weighted_loss", ""),
    "cosine_distance": ("exact", "tf_slim.losses.cosine_distance", ""),
    "get_losses": ("exact", "tf_slim.losses.get_losses", ""),
    "get_regularization_losses": (
        "exact",
        "tf_slim.losses.get_regularization_losses",
        "",
    ),
    "get_total_loss": ("exact", "tf_slim.losses.get_total_loss", ""),
    "hinge_loss": ("exact", "tf_slim.losses.hinge_loss", ""),
    "log_loss": ("exact", "tf_slim.losses.log_loss", ""),
    "mean_pairwise_squared_error": (
        "exact",
        "tf_slim.losses.mean_pairwise_squared_error",
        "",
    ),
    "mean_squared_error": ("exact", "tf_slim.losses.mean_squared_error", ""),
    "metric_learning": ("exact", "tf_slim.losses.metric_learning", ""),
    "sigmoid_cross_entropy": ("exact", "tf_slim.losses.sigmoid_cross_entropy", ""),
    "softmax_cross_entropy": ("exact", "tf_slim.losses.softmax_cross_entropy", ""),
    "sparse_softmax_cross_entropy": (
        "exact",
        "tf_slim.losses.sparse_softmax_cross_entropy",
        "",
    ),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.losses.python.losses.loss_ops": {
        "absolute_difference": "absolute_difference",
        "add_loss": "add_loss",
        "compute_weighted_loss": "compute_weighted_loss",
        "cosine_distance": "cosine_distance",
        "get_losses": "get_losses",
        "get_regularization_losses": "get_regularization_losses",
        "get_total_loss": "get_total_loss",
        "hinge_loss": "hinge_loss",
        "log_loss": "log_loss",
        "mean_pairwise_squared_error": "mean_pairwise_squared_error",
        "mean_squared_error": "mean_squared_error",
        "sigmoid_cross_entropy": "sigmoid_cross_entropy",
        "softmax_cross_entropy": "softmax_cross_entropy",
        "sparse_softmax_cross_entropy": "sparse_softmax_cross_entropy",
    },
    "tf.contrib.losses.python.metric_learning": {"": "metric_learning"},
}
