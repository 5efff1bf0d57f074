"""tf.contrib.learn of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "delete (replaced by tensorflow/estimator)"
ADVICE = "emg.estimator (Estimator, RunConfig, Experiment, learn_runner) and tf.data input_fns"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "BaseEstimator": ("none", "", ""),
    "DNNClassifier": ("none", "", ""),
    "DNNEstimator": ("none", "", ""),
    "DNNLinearCombinedClassifier": ("none", "", ""),
    "DNNLinearCombinedEstimator": ("none", "", ""),
    "DNNLinearCombinedRegressor": ("none", "", ""),
    "DNNRegressor": ("none", "", ""),
    "DynamicRnnEstimator": ("none", "", ""),
    "Estimator": ("none", "", ""),
    "Evaluable": ("none", "", ""),
    "Experiment": (
        "emg",
        "emg.estimator.Experiment",
        "emg.estimator.Experiment (the same train/evaluate schedules; "
        "eval_metrics, export_strategies, local_eval_frequency, "
        "train_steps_per_iteration, checkpoint_and_export and "
        "delay_workers_by_global_step are refused: metrics go in the "
        "model_fn's eval_metric_ops, exports through "
        "estimator.export_saved_model)",
    ),
    "ExportStrategy": ("none", "", ""),
    "Head": ("none", "", ""),
    "InputFnOps": ("none", "", ""),
    "KMeansClustering": ("none", "", ""),
    "LinearClassifier": ("none", "", ""),
    "LinearEstimator": ("none", "", ""),
    "LinearRegressor": ("none", "", ""),
    "LogisticRegressor": ("none", "", ""),
    "MetricSpec": ("none", "", ""),
    "ModeKeys": ("emg", "emg.estimator.LearnModeKeys", ""),
    "ModelFnOps": ("none", "", ""),
    "NanLossDuringTrainingError": ("none", "", ""),
    "PredictionKey": ("none", "", ""),
    "ProblemType": ("none", "", ""),
    "RunConfig": (
        "emg",
        "emg.estimator.RunConfig",
        "emg.estimator.RunConfig (same checkpoint and summary "
        "arguments; session_config for "
        "gpu_memory_fraction/log_device_placement)",
    ),
    "SKCompat": ("none", "", ""),
    "SVM": ("none", "", ""),
    "TaskType": ("none", "", ""),
    "Trainable": ("none", "", ""),
    "binary_svm_head": ("none", "", ""),
    "build_parsing_serving_input_fn": ("none", "", ""),
    "datasets": ("none", "", ""),
    "evaluate": ("none", "", ""),
    "extract_dask_data": ("none", "", ""),
    "extract_dask_labels": ("none", "", ""),
    "extract_pandas_data": ("none", "", ""),
    "extract_pandas_labels": ("none", "", ""),
    "extract_pandas_matrix": ("none", "", ""),
    "graph_actions": ("none", "", ""),
    "infer": ("none", "", ""),
    "infer_real_valued_columns_from_input": ("none", "", ""),
    "infer_real_valued_columns_from_input_fn": ("none", "", ""),
    "io": ("exact", "tf.io", ""),
    "learn_runner": ("none", "", ""),
    "make_export_strategy": ("none", "", ""),
    "models": ("none", "", ""),
    "monitors": ("none", "", ""),
    "multi_class_head": ("none", "", ""),
    "multi_head": ("none", "", ""),
    "multi_label_head": ("none", "", ""),
    "no_op_train_fn": ("none", "", ""),
    "ops": ("none", "", ""),
    "poisson_regression_head": ("none", "", ""),
    "preprocessing": ("none", "", ""),
    "read_batch_examples": ("none", "", ""),
    "read_batch_features": ("none", "", ""),
    "read_batch_record_features": ("none", "", ""),
    "read_keyed_batch_examples": ("none", "", ""),
    "read_keyed_batch_examples_shared_queue": ("none", "", ""),
    "read_keyed_batch_features": ("none", "", ""),
    "read_keyed_batch_features_shared_queue": ("none", "", ""),
    "regression_head": ("none", "", ""),
    "run_feeds": ("none", "", ""),
    "run_n": ("none", "", ""),
    "train": ("none", "", ""),
    "utils": ("none", "", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.learn.python.learn.datasets": {"": "datasets"},
    "tf.contrib.learn.python.learn.estimators.constants": {
        "ProblemType": "ProblemType"
    },
    "tf.contrib.learn.python.learn.estimators.dnn": {
        "DNNClassifier": "DNNClassifier",
        "DNNEstimator": "DNNEstimator",
        "DNNRegressor": "DNNRegressor",
    },
    "tf.contrib.learn.python.learn.estimators.dnn_linear_combined": {
        "DNNLinearCombinedClassifier": "DNNLinearCombinedClassifier",
        "DNNLinearCombinedEstimator": "DNNLinearCombinedEstimator",
        "DNNLinearCombinedRegressor": "DNNLinearCombinedRegressor",
    },
    "tf.contrib.learn.python.learn.estimators.dynamic_rnn_estimator": {
        "DynamicRnnEstimator": "DynamicRnnEstimator"
    },
    "tf.contrib.learn.python.learn.estimators.estimator": {
        "BaseEstimator": "BaseEstimator",
        "Estimator": "Estimator",
        "SKCompat": "SKCompat",
        "infer_real_valued_columns_from_input": "infer_real_valued_columns_from_input",
        "infer_real_valued_columns_from_input_fn": "infer_real_valued_columns_from_input_fn",
    },
    "tf.contrib.learn.python.learn.estimators.head": {
        "Head": "Head",
        "binary_svm_head": "binary_svm_head",
        "multi_class_head": "multi_class_head",
        "multi_head": "multi_head",
        "multi_label_head": "multi_label_head",
        "no_op_train_fn": "no_op_train_fn",
        "poisson_regression_head": "poisson_regression_head",
        "regression_head": "regression_head",
    },
    "tf.contrib.learn.python.learn.estimators.kmeans": {
        "KMeansClustering": "KMeansClustering"
    },
    "tf.contrib.learn.python.learn.estimators.linear": {
        "LinearClassifier": "LinearClassifier",
        "LinearEstimator": "LinearEstimator",
        "LinearRegressor": "LinearRegressor",
    },
    "tf.contrib.learn.python.learn.estimators.logistic_regressor": {
        "LogisticRegressor": "LogisticRegressor"
    },
    "tf.contrib.learn.python.learn.estimators.model_fn": {
        "ModeKeys": "ModeKeys",
        "ModelFnOps": "ModelFnOps",
    },
    "tf.contrib.learn.python.learn.estimators.prediction_key": {
        "PredictionKey": "PredictionKey"
    },
    "tf.contrib.learn.python.learn.estimators.run_config": {
        "RunConfig": "RunConfig",
        "TaskType": "TaskType",
    },
    "tf.contrib.learn.python.learn.estimators.svm": {"SVM": "SVM"},
    "tf.contrib.learn.python.learn.evaluable": {"Evaluable": "Evaluable"},
    "tf.contrib.learn.python.learn.experiment": {"Experiment": "Experiment"},
    "tf.contrib.learn.python.learn.export_strategy": {
        "ExportStrategy": "ExportStrategy"
    },
    "tf.contrib.learn.python.learn.graph_actions": {
        "": "graph_actions",
        "evaluate": "evaluate",
        "infer": "infer",
        "run_feeds": "run_feeds",
        "run_n": "run_n",
        "train": "train",
    },
    "tf.contrib.learn.python.learn.learn_io": {"": "io"},
    "tf.contrib.learn.python.learn.learn_io.dask_io": {
        "extract_dask_data": "extract_dask_data",
        "extract_dask_labels": "extract_dask_labels",
    },
    "tf.contrib.learn.python.learn.learn_io.graph_io": {
        "read_batch_examples": "read_batch_examples",
        "read_batch_features": "read_batch_features",
        "read_batch_record_features": "read_batch_record_features",
        "read_keyed_batch_examples": "read_keyed_batch_examples",
        "read_keyed_batch_examples_shared_queue": "read_keyed_batch_examples_shared_queue",
        "read_keyed_batch_features": "read_keyed_batch_features",
        "read_keyed_batch_features_shared_queue": "read_keyed_batch_features_shared_queue",
    },
    "tf.contrib.learn.python.learn.learn_io.pandas_io": {
        "extract_pandas_data": "extract_pandas_data",
        "extract_pandas_labels": "extract_pandas_labels",
        "extract_pandas_matrix": "extract_pandas_matrix",
    },
    "tf.contrib.learn.python.learn.learn_runner_lib": {"": "learn_runner"},
    "tf.contrib.learn.python.learn.metric_spec": {"MetricSpec": "MetricSpec"},
    "tf.contrib.learn.python.learn.models": {"": "models"},
    "tf.contrib.learn.python.learn.monitors": {
        "": "monitors",
        "NanLossDuringTrainingError": "NanLossDuringTrainingError",
    },
    "tf.contrib.learn.python.learn.ops": {"": "ops"},
    "tf.contrib.learn.python.learn.preprocessing": {"": "preprocessing"},
    "tf.contrib.learn.python.learn.trainable": {"Trainable": "Trainable"},
    "tf.contrib.learn.python.learn.utils": {"": "utils"},
    "tf.contrib.learn.python.learn.utils.input_fn_utils": {
        "InputFnOps": "InputFnOps",
        "build_parsing_serving_input_fn": "build_parsing_serving_input_fn",
    },
    "tf.contrib.learn.python.learn.utils.saved_model_export_utils": {
        "make_export_strategy": "make_export_strategy"
    },
}
