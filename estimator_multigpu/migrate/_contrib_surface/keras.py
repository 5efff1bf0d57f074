"""tf.contrib.keras of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "delete (moved to tf.keras)"
ADVICE = "tf.keras (or tf_keras, pip install tf-keras, for Keras 2)"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "activations": ("exact", "tf.keras.activations", ""),
    "applications": ("exact", "tf.keras.applications", ""),
    "backend": ("exact", "tf.keras.backend", ""),
    "callbacks": ("exact", "tf.keras.callbacks", ""),
    "constraints": ("exact", "tf.keras.constraints", ""),
    "datasets": ("exact", "tf.keras.datasets", ""),
    "initializers": ("exact", "tf.keras.initializers", ""),
    "layers": ("exact", "tf.keras.layers", ""),
    "losses": ("exact", "tf.keras.losses", ""),
    "metrics": ("exact", "tf.keras.metrics", ""),
    "models": ("exact", "tf.keras.models", ""),
    "optimizers": ("exact", "tf.keras.optimizers", ""),
    "preprocessing": ("exact", "tf.keras.preprocessing", ""),
    "regularizers": ("exact", "tf.keras.regularizers", ""),
    "utils": ("exact", "tf.keras.utils", ""),
    "wrappers": ("exact", "tf.keras.wrappers", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.keras.api.keras.activations": {"": "activations"},
    "tf.contrib.keras.api.keras.applications": {"": "applications"},
    "tf.contrib.keras.api.keras.backend": {"": "backend"},
    "tf.contrib.keras.api.keras.callbacks": {"": "callbacks"},
    "tf.contrib.keras.api.keras.constraints": {"": "constraints"},
    "tf.contrib.keras.api.keras.datasets": {"": "datasets"},
    "tf.contrib.keras.api.keras.initializers": {"": "initializers"},
    "tf.contrib.keras.api.keras.layers": {"": "layers"},
    "tf.contrib.keras.api.keras.losses": {"": "losses"},
    "tf.contrib.keras.api.keras.metrics": {"": "metrics"},
    "tf.contrib.keras.api.keras.models": {"": "models"},
    "tf.contrib.keras.api.keras.optimizers": {"": "optimizers"},
    "tf.contrib.keras.api.keras.preprocessing": {"": "preprocessing"},
    "tf.contrib.keras.api.keras.regularizers": {"": "regularizers"},
    "tf.contrib.keras.api.keras.utils": {"": "utils"},
    "tf.contrib.keras.api.keras.wrappers": {"": "wrappers"},
}
