"""tf.contrib.model_pruning of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "move to core"
ADVICE = "the tensorflow-model-optimization package (tfmot.sparsity.keras)"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "MaskedBasicLSTMCell": ("none", "", ""),
    "MaskedLSTMCell": ("none", "", ""),
    "Pruning": ("none", "", ""),
    "apply_mask": ("none", "", ""),
    "get_masked_weights": ("none", "", ""),
    "get_masks": ("none", "", ""),
    "get_pruning_hparams": ("none", "", ""),
    "get_thresholds": ("none", "", ""),
    "get_weight_sparsity": ("none", "", ""),
    "get_weights": ("none", "", ""),
    "graph_def_from_checkpoint": ("none", "", ""),
    "masked_conv2d": ("none", "", ""),
    "masked_convolution": ("none", "", ""),
    "masked_fully_connected": ("none", "", ""),
    "strip_pruning_vars_fn": ("none", "", ""),
    "train": ("none", "", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.model_pruning.python.layers.layers": {
        "masked_convolution": "masked_convolution",
        "masked_fully_connected": "masked_fully_connected",
    },
    "tf.contrib.model_pruning.python.layers.rnn_cells": {
        "MaskedBasicLSTMCell": "MaskedBasicLSTMCell",
        "MaskedLSTMCell": "MaskedLSTMCell",
    },
    "tf.contrib.model_pruning.python.learning": {"train": "train"},
    "tf.contrib.model_pruning.python.pruning": {
        "Pruning": "Pruning",
        "apply_mask": "apply_mask",
        "get_masked_weights": "get_masked_weights",
        "get_masks": "get_masks",
        "get_pruning_hparams": "get_pruning_hparams",
        "get_thresholds": "get_thresholds",
        "get_weight_sparsity": "get_weight_sparsity",
        "get_weights": "get_weights",
    },
    "tf.contrib.model_pruning.python.strip_pruning_vars_lib": {
        "graph_def_from_checkpoint": "graph_def_from_checkpoint",
        "strip_pruning_vars_fn": "strip_pruning_vars_fn",
    },
}
