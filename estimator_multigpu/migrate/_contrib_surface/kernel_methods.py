"""tf.contrib.kernel_methods of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "move to tensorflow/estimator?"
ADVICE = "tf.estimator is gone on TF 2.16+: write a model_fn and run it with emg.estimator.Estimator, or move to Keras"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "KernelLinearClassifier": ("none", "", ""),
    "RandomFourierFeatureMapper": ("none", "", ""),
    "sparse_multiclass_hinge_loss": ("none", "", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.kernel_methods.python.kernel_estimators": {
        "KernelLinearClassifier": "KernelLinearClassifier"
    },
    "tf.contrib.kernel_methods.python.losses": {
        "sparse_multiclass_hinge_loss": "sparse_multiclass_hinge_loss"
    },
    "tf.contrib.kernel_methods.python.mappers.random_fourier_features": {
        "RandomFourierFeatureMapper": "RandomFourierFeatureMapper"
    },
}
