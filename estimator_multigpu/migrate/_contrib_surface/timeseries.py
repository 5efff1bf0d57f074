"""tf.contrib.timeseries of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "move to tensorflow/estimator"
ADVICE = "tf.estimator is gone on TF 2.16+: write a model_fn and run it with emg.estimator.Estimator, or move to Keras"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "ARModel": ("none", "", ""),
    "ARRegressor": ("none", "", ""),
    "CSVReader": ("none", "", ""),
    "FilteringResults": ("none", "", ""),
    "NumpyReader": ("none", "", ""),
    "OneShotPredictionHead": ("none", "", ""),
    "RandomWindowInputFn": ("none", "", ""),
    "StructuralEnsembleRegressor": ("none", "", ""),
    "TimeSeriesRegressor": ("none", "", ""),
    "TrainEvalFeatures": ("none", "", ""),
    "WholeDatasetInputFn": ("none", "", ""),
    "predict_continuation_input_fn": ("none", "", ""),
    "saved_model_utils": ("none", "", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.timeseries.python.timeseries.ar_model": {"ARModel": "ARModel"},
    "tf.contrib.timeseries.python.timeseries.estimators": {
        "ARRegressor": "ARRegressor",
        "StructuralEnsembleRegressor": "StructuralEnsembleRegressor",
        "TimeSeriesRegressor": "TimeSeriesRegressor",
    },
    "tf.contrib.timeseries.python.timeseries.feature_keys": {
        "FilteringResults": "FilteringResults",
        "TrainEvalFeatures": "TrainEvalFeatures",
    },
    "tf.contrib.timeseries.python.timeseries.head": {
        "OneShotPredictionHead": "OneShotPredictionHead"
    },
    "tf.contrib.timeseries.python.timeseries.input_pipeline": {
        "CSVReader": "CSVReader",
        "NumpyReader": "NumpyReader",
        "RandomWindowInputFn": "RandomWindowInputFn",
        "WholeDatasetInputFn": "WholeDatasetInputFn",
        "predict_continuation_input_fn": "predict_continuation_input_fn",
    },
    "tf.contrib.timeseries.python.timeseries.saved_model_utils": {
        "": "saved_model_utils"
    },
}
