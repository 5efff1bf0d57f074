"""tf.contrib.metrics of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "delete (replaced with OO metrics)"
ADVICE = "tf.compat.v1.metrics, tf.keras.metrics; tf_slim.metrics keeps contrib's"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "accuracy": ("exact", "tf_slim.metrics.accuracy", ""),
    "aggregate_metric_map": ("exact", "tf_slim.metrics.aggregate_metric_map", ""),
    "aggregate_metrics": ("exact", "tf_slim.metrics.aggregate_metrics", ""),
    "auc_using_histogram": ("exact", "tf_slim.metrics.auc_using_histogram", ""),
    "auc_with_confidence_intervals": (
        "exact",
        "tf_slim.metrics.auc_with_confidence_intervals",
        "",
    ),
    "cohen_kappa": ("exact", "tf_slim.metrics.cohen_kappa", ""),
    "confusion_matrix": ("exact", "tf.compat.v1.confusion_matrix", ""),
    "count": ("exact", "tf_slim.metrics.count", ""),
    "f1_score": ("exact", "tf_slim.metrics.f1_score", ""),
    "precision_at_recall": ("exact", "tf_slim.metrics.precision_at_recall", ""),
    "precision_recall_at_equal_thresholds": (
        "exact",
        "tf_slim.metrics.precision_recall_at_equal_thresholds",
        "",
    ),
    "recall_at_precision": ("exact", "tf_slim.metrics.recall_at_precision", ""),
    "set_difference": ("exact", "tf.sets.difference", ""),
    "set_intersection": ("exact", "tf.sets.intersection", ""),
    "set_size": ("exact", "tf.sets.size", ""),
    "set_union": ("exact", "tf.sets.union", ""),
    "sparse_recall_at_top_k": ("exact", "tf_slim.metrics.sparse_recall_at_top_k", ""),
    "streaming_accuracy": (
        "exact",
        "tf.compat.v1.metrics.accuracy",
        "tf.compat.v1.metrics.accuracy",
    ),
    "streaming_auc": ("exact", "tf_slim.metrics.streaming_auc", ""),
    "streaming_concat": ("exact", "tf_slim.metrics.streaming_concat", ""),
    "streaming_covariance": ("exact", "tf_slim.metrics.streaming_covariance", ""),
    "streaming_curve_points": ("exact", "tf_slim.metrics.streaming_curve_points", ""),
    "streaming_dynamic_auc": ("exact", "tf_slim.metrics.streaming_dynamic_auc", ""),
    "streaming_false_negative_rate": (
        "exact",
        "tf_slim.metrics.streaming_false_negative_rate",
        "",
    ),
    "streaming_false_negative_rate_at_thresholds": (
        "exact",
        "tf_slim.metrics.streaming_false_negative_rate_at_thresholds",
        "",
    ),
    "streaming_false_negatives": (
        "exact",
        "tf_slim.metrics.streaming_false_negatives",
        "",
    ),
    "streaming_false_negatives_at_thresholds": (
        "exact",
        "tf_slim.metrics.streaming_false_negatives_at_thresholds",
        "",
    ),
    "streaming_false_positive_rate": (
        "exact",
        "tf_slim.metrics.streaming_false_positive_rate",
        "",
    ),
    "streaming_false_positive_rate_at_thresholds": (
        "exact",
        "tf_slim.metrics.streaming_false_positive_rate_at_thresholds",
        "",
    ),
    "streaming_false_positives": (
        "exact",
        "tf_slim.metrics.streaming_false_positives",
        "",
    ),
    "streaming_false_positives_at_thresholds": (
        "exact",
        "tf_slim.metrics.streaming_false_positives_at_thresholds",
        "",
    ),
    "streaming_mean": (
        "exact",
        "tf.compat.v1.metrics.mean",
        "tf.compat.v1.metrics.mean",
    ),
    "streaming_mean_absolute_error": (
        "exact",
        "tf_slim.metrics.streaming_mean_absolute_error",
        "",
    ),
    "streaming_mean_cosine_distance": (
        "exact",
        "tf_slim.metrics.streaming_mean_cosine_distance",
        "",
    ),
    "streaming_mean_iou": ("exact", "tf_slim.metrics.streaming_mean_iou", ""),
    "streaming_mean_relative_error": (
        "exact",
        "tf_slim.metrics.streaming_mean_relative_error",
        "",
    ),
    "streaming_mean_squared_error": (
        "exact",
        "tf_slim.metrics.streaming_mean_squared_error",
        "",
    ),
    "streaming_mean_tensor": ("exact", "tf_slim.metrics.streaming_mean_tensor", ""),
    "streaming_pearson_correlation": (
        "exact",
        "tf_slim.metrics.streaming_pearson_correlation",
        "",
    ),
    "streaming_percentage_less": (
        "exact",
        "tf_slim.metrics.streaming_percentage_less",
        "",
    ),
    "streaming_precision": ("exact", "tf_slim.metrics.streaming_precision", ""),
    "streaming_precision_at_thresholds": (
        "exact",
        "tf_slim.metrics.streaming_precision_at_thresholds",
        "",
    ),
    "streaming_recall": ("exact", "tf_slim.metrics.streaming_recall", ""),
    "streaming_recall_at_k": ("exact", "tf_slim.metrics.streaming_recall_at_k", ""),
    "streaming_recall_at_thresholds": (
        "exact",
        "tf_slim.metrics.streaming_recall_at_thresholds",
        "",
    ),
    "streaming_root_mean_squared_error": (
        "exact",
        "tf_slim.metrics.streaming_root_mean_squared_error",
        "",
    ),
    "streaming_sensitivity_at_specificity": (
        "exact",
        "tf_slim.metrics.streaming_sensitivity_at_specificity",
        "",
    ),
    "streaming_sparse_average_precision_at_k": (
        "exact",
        "tf_slim.metrics.streaming_sparse_average_precision_at_k",
        "",
    ),
    "streaming_sparse_average_precision_at_top_k": (
        "exact",
        "tf_slim.metrics.streaming_sparse_average_precision_at_top_k",
        "",
    ),
    "streaming_sparse_precision_at_k": (
        "exact",
        "tf_slim.metrics.streaming_sparse_precision_at_k",
        "",
    ),
    "streaming_sparse_precision_at_top_k": (
        "exact",
        "tf_slim.metrics.streaming_sparse_precision_at_top_k",
        "",
    ),
    "streaming_sparse_recall_at_k": (
        "exact",
        "tf_slim.metrics.streaming_sparse_recall_at_k",
        "",
    ),
    "streaming_specificity_at_sensitivity": (
        "exact",
        "tf_slim.metrics.streaming_specificity_at_sensitivity",
        "",
    ),
    "streaming_true_negatives": (
        "exact",
        "tf_slim.metrics.streaming_true_negatives",
        "",
    ),
    "streaming_true_negatives_at_thresholds": (
        "exact",
        "tf_slim.metrics.streaming_true_negatives_at_thresholds",
        "",
    ),
    "streaming_true_positives": (
        "exact",
        "tf_slim.metrics.streaming_true_positives",
        "",
    ),
    "streaming_true_positives_at_thresholds": (
        "exact",
        "tf_slim.metrics.streaming_true_positives_at_thresholds",
        "",
    ),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.metrics.python.metrics.classification": {
        "accuracy": "accuracy",
        "f1_score": "f1_score",
    },
    "tf.contrib.metrics.python.ops.confusion_matrix_ops": {
        "confusion_matrix": "confusion_matrix"
    },
    "tf.contrib.metrics.python.ops.histogram_ops": {
        "auc_using_histogram": "auc_using_histogram"
    },
    "tf.contrib.metrics.python.ops.metric_ops": {
        "aggregate_metric_map": "aggregate_metric_map",
        "aggregate_metrics": "aggregate_metrics",
        "auc_with_confidence_intervals": "auc_with_confidence_intervals",
        "cohen_kappa": "cohen_kappa",
        "count": "count",
        "precision_at_recall": "precision_at_recall",
        "precision_recall_at_equal_thresholds": "precision_recall_at_equal_thresholds",
        "recall_at_precision": "recall_at_precision",
        "sparse_recall_at_top_k": "sparse_recall_at_top_k",
        "streaming_accuracy": "streaming_accuracy",
        "streaming_auc": "streaming_auc",
        "streaming_concat": "streaming_concat",
        "streaming_covariance": "streaming_covariance",
        "streaming_curve_points": "streaming_curve_points",
        "streaming_dynamic_auc": "streaming_dynamic_auc",
        "streaming_false_negative_rate": "streaming_false_negative_rate",
        "streaming_false_negative_rate_at_thresholds": "streaming_false_negative_rate_at_thresholds",
        "streaming_false_negatives": "streaming_false_negatives",
        "streaming_false_negatives_at_thresholds": "streaming_false_negatives_at_thresholds",
        "streaming_false_positive_rate": "streaming_false_positive_rate",
        "streaming_false_positive_rate_at_thresholds": "streaming_false_positive_rate_at_thresholds",
        "streaming_false_positives": "streaming_false_positives",
        "streaming_false_positives_at_thresholds": "streaming_false_positives_at_thresholds",
        "streaming_mean": "streaming_mean",
        "streaming_mean_absolute_error": "streaming_mean_absolute_error",
        "streaming_mean_cosine_distance": "streaming_mean_cosine_distance",
        "streaming_mean_iou": "streaming_mean_iou",
        "streaming_mean_relative_error": "streaming_mean_relative_error",
        "streaming_mean_squared_error": "streaming_mean_squared_error",
        "streaming_mean_tensor": "streaming_mean_tensor",
        "streaming_pearson_correlation": "streaming_pearson_correlation",
        "streaming_percentage_less": "streaming_percentage_less",
        "streaming_precision": "streaming_precision",
        "streaming_precision_at_thresholds": "streaming_precision_at_thresholds",
        "streaming_recall": "streaming_recall",
        "streaming_recall_at_k": "streaming_recall_at_k",
        "streaming_recall_at_thresholds": "streaming_recall_at_thresholds",
        "streaming_root_mean_squared_error": "streaming_root_mean_squared_error",
        "streaming_sensitivity_at_specificity": "streaming_sensitivity_at_specificity",
        "streaming_sparse_average_precision_at_k": "streaming_sparse_average_precision_at_k",
        "streaming_sparse_average_precision_at_top_k": "streaming_sparse_average_precision_at_top_k",
        "streaming_sparse_precision_at_k": "streaming_sparse_precision_at_k",
        "streaming_sparse_precision_at_top_k": "streaming_sparse_precision_at_top_k",
        "streaming_sparse_recall_at_k": "streaming_sparse_recall_at_k",
        "streaming_specificity_at_sensitivity": "streaming_specificity_at_sensitivity",
        "streaming_true_negatives": "streaming_true_negatives",
        "streaming_true_negatives_at_thresholds": "streaming_true_negatives_at_thresholds",
        "streaming_true_positives": "streaming_true_positives",
        "streaming_true_positives_at_thresholds": "streaming_true_positives_at_thresholds",
    },
}
