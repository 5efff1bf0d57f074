"""tf.contrib.estimator of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "move to tensorflow/estimator"
ADVICE = "tf.estimator is gone on TF 2.16+: write a model_fn and run it with emg.estimator.Estimator, or move to Keras"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "DNNClassifierWithLayerAnnotations": ("none", "", ""),
    "DNNRegressorWithLayerAnnotations": ("none", "", ""),
    "InMemoryEvaluatorHook": ("none", "", ""),
    "RNNClassifier": ("none", "", ""),
    "RNNEstimator": ("none", "", ""),
    "SavedModelEstimator": ("none", "", ""),
    "TowerOptimizer": ("emg", "emg.TowerOptimizer", "emg.TowerOptimizer"),
    "add_metrics": ("none", "", ""),
    "binary_classification_head": ("none", "", ""),
    "boosted_trees_classifier_train_in_memory": ("none", "", ""),
    "boosted_trees_regressor_train_in_memory": ("none", "", ""),
    "build_raw_supervised_input_receiver_fn": ("none", "", ""),
    "build_supervised_input_receiver_fn_from_input_fn": ("none", "", ""),
    "call_logit_fn": ("none", "", ""),
    "clip_gradients_by_norm": ("none", "", ""),
    "dnn_logit_fn_builder": ("none", "", ""),
    "export_all_saved_models": ("none", "", ""),
    "export_saved_model_for_mode": ("none", "", ""),
    "forward_features": ("none", "", ""),
    "linear_logit_fn_builder": ("none", "", ""),
    "logistic_regression_head": ("none", "", ""),
    "make_early_stopping_hook": ("none", "", ""),
    "make_stop_at_checkpoint_step_hook": ("none", "", ""),
    "multi_class_head": ("none", "", ""),
    "multi_head": ("none", "", ""),
    "multi_label_head": ("none", "", ""),
    "poisson_regression_head": ("none", "", ""),
    "read_eval_metrics": ("none", "", ""),
    "regression_head": ("none", "", ""),
    "replicate_model_fn": ("emg", "emg.replicate_model_fn", "emg.replicate_model_fn"),
    "stop_if_higher_hook": ("none", "", ""),
    "stop_if_lower_hook": ("none", "", ""),
    "stop_if_no_decrease_hook": ("none", "", ""),
    "stop_if_no_increase_hook": ("none", "", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.estimator": {
        "DNNClassifierWithLayerAnnotations": "DNNClassifierWithLayerAnnotations",
        "DNNRegressorWithLayerAnnotations": "DNNRegressorWithLayerAnnotations",
        "InMemoryEvaluatorHook": "InMemoryEvaluatorHook",
        "RNNClassifier": "RNNClassifier",
        "RNNEstimator": "RNNEstimator",
        "SavedModelEstimator": "SavedModelEstimator",
        "TowerOptimizer": "TowerOptimizer",
        "add_metrics": "add_metrics",
        "binary_classification_head": "binary_classification_head",
        "boosted_trees_classifier_train_in_memory": "boosted_trees_classifier_train_in_memory",
        "boosted_trees_regressor_train_in_memory": "boosted_trees_regressor_train_in_memory",
        "build_raw_supervised_input_receiver_fn": "build_raw_supervised_input_receiver_fn",
        "build_supervised_input_receiver_fn_from_input_fn": "build_supervised_input_receiver_fn_from_input_fn",
        "call_logit_fn": "call_logit_fn",
        "clip_gradients_by_norm": "clip_gradients_by_norm",
        "dnn_logit_fn_builder": "dnn_logit_fn_builder",
        "export_all_saved_models": "export_all_saved_models",
        "export_saved_model_for_mode": "export_saved_model_for_mode",
        "forward_features": "forward_features",
        "linear_logit_fn_builder": "linear_logit_fn_builder",
        "logistic_regression_head": "logistic_regression_head",
        "make_early_stopping_hook": "make_early_stopping_hook",
        "make_stop_at_checkpoint_step_hook": "make_stop_at_checkpoint_step_hook",
        "multi_class_head": "multi_class_head",
        "multi_head": "multi_head",
        "multi_label_head": "multi_label_head",
        "poisson_regression_head": "poisson_regression_head",
        "read_eval_metrics": "read_eval_metrics",
        "regression_head": "regression_head",
        "replicate_model_fn": "replicate_model_fn",
        "stop_if_higher_hook": "stop_if_higher_hook",
        "stop_if_lower_hook": "stop_if_lower_hook",
        "stop_if_no_decrease_hook": "stop_if_no_decrease_hook",
        "stop_if_no_increase_hook": "stop_if_no_increase_hook",
    }
}
