"""tf.contrib.predictor of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "delete (replaced by tfhub)"
ADVICE = "tf.saved_model.load(path).signatures['serving_default']"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "from_contrib_estimator": ("none", "", ""),
    "from_estimator": ("none", "", ""),
    "from_saved_model": ("none", "", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.predictor.predictor_factories": {
        "from_contrib_estimator": "from_contrib_estimator",
        "from_estimator": "from_estimator",
        "from_saved_model": "from_saved_model",
    }
}
