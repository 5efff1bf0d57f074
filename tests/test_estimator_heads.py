"""emg.estimator's heads: the threshold and per-class metrics, by hand.

The golden comparisons with tf.estimator's heads (through the canned
estimators) are in tests/test_estimator_canned_golden.py; these tests run
on every TensorFlow and check the values against numpy.
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from estimator_multigpu import estimator as est
from estimator_multigpu.estimator import ModeKeys

LOGITS = np.array(
    [[2.0, -1.0, 0.0], [-0.5, 0.3, 1.5], [0.1, -2.0, -0.2], [1.0, 1.0, -1.0]]
)
LABELS = np.array([[1, 0, 1], [0, 1, 1], [1, 0, 0], [0, 1, 0]])
WEIGHTS = np.array([[1.0], [0.5], [3.0], [0.0]])


def _metrics(head, logits, labels, weights=None):
    """The head's EVAL metric values on one batch."""
    with tf.Graph().as_default():
        features = {} if weights is None else {"w": tf.constant(weights, tf.float32)}
        spec = head.create_estimator_spec(
            features=features,
            mode=ModeKeys.EVAL,
            logits=tf.constant(logits, tf.float32),
            labels=tf.constant(labels),
        )
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.local_variables_initializer())
            session.run(tf.compat.v1.tables_initializer())
            session.run([update for _, update in spec.eval_metric_ops.values()])
            return session.run({k: v for k, (v, _) in spec.eval_metric_ops.items()})


def _weighted(values, weights):
    weights = np.broadcast_to(weights, values.shape)
    return (values * weights).sum() / weights.sum()


def test_multi_label_threshold_and_class_metrics_are_the_weighted_counts():
    head = est.MultiLabelHead(
        3,
        weight_column="w",
        thresholds=[0.3, 0.5],
        classes_for_class_based_metrics=[0, 2],
    )
    got = _metrics(head, LOGITS, LABELS, WEIGHTS)
    probabilities = 1 / (1 + np.exp(-LOGITS))
    w = np.broadcast_to(WEIGHTS, LABELS.shape)
    for threshold in (0.3, 0.5):
        positive = probabilities > threshold
        expected_accuracy = _weighted((positive == LABELS).astype(float), WEIGHTS)
        true_positive = (w * (positive & (LABELS == 1))).sum()
        key = f"positive_threshold_{threshold:g}"
        np.testing.assert_allclose(got[f"accuracy/{key}"], expected_accuracy, rtol=1e-6)
        np.testing.assert_allclose(
            got[f"precision/{key}"], true_positive / (w * positive).sum(), rtol=1e-6
        )
        np.testing.assert_allclose(
            got[f"recall/{key}"], true_positive / (w * (LABELS == 1)).sum(), rtol=1e-6
        )
    for class_id in (0, 2):
        np.testing.assert_allclose(
            got[f"probability_mean/class{class_id}"],
            _weighted(probabilities[:, class_id : class_id + 1], WEIGHTS),
            rtol=1e-6,
        )
        assert 0.0 <= got[f"auc/class{class_id}"] <= 1.0
        assert 0.0 <= got[f"auc_precision_recall/class{class_id}"] <= 1.0
    assert "probability_mean/class1" not in got


def test_multi_label_class_metrics_take_the_vocabulary_names():
    head = est.MultiLabelHead(
        3,
        label_vocabulary=["u", "v", "t"],
        classes_for_class_based_metrics=["t"],
    )
    got = _metrics(head, LOGITS, LABELS)
    assert {"probability_mean/t", "auc/t", "auc_precision_recall/t"} <= set(got)
    # Class 2 alone: labels [1, 1, 0, 0] ranked by its logits [0, 1.5, -0.2, -1].
    np.testing.assert_allclose(got["auc/t"], 1.0, rtol=1e-6)


@pytest.mark.parametrize(
    ("v1", "accuracy"),
    [(False, 0.0), (True, 1.0)],
    ids=["v2_above_only", "v1_accuracy_counts_equal"],
)
def test_a_probability_at_the_threshold_is_positive_only_in_v1_accuracy(v1, accuracy):
    """Keras's metrics (the v2 heads) count a prediction positive above the
    threshold; the v1 head's accuracy counts one at it too (its precision
    and recall do not)."""
    head = est.BinaryClassHead(thresholds=[0.5], v1=v1, loss_reduction=_reduction(v1))
    got = _metrics(head, np.zeros([2, 1]), np.array([[1], [1]]))
    np.testing.assert_allclose(got["accuracy/positive_threshold_0.5"], accuracy)
    np.testing.assert_allclose(got["recall/positive_threshold_0.5"], 0.0)


def _reduction(v1):
    return tf.compat.v1.losses.Reduction.SUM if v1 else "sum_over_batch_size"


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (
            {"thresholds": [0.5, 1.0]},
            r"thresholds must be in the open range \(0, 1\); received 1\.0",
        ),
        (
            {"classes_for_class_based_metrics": ["a"]},
            r"label_vocabulary must be provided when classes_for_class_based_metrics are strings \(\['a'\]\)",
        ),
        (
            {"label_vocabulary": ["a", "b"], "classes_for_class_based_metrics": ["c"]},
            r"classes_for_class_based_metrics \['c'\] are not in label_vocabulary \['a', 'b'\]",
        ),
        (
            {"classes_for_class_based_metrics": [2]},
            r"must be in range \[0, 1\]. Given: 2",
        ),
    ],
    ids=["threshold", "names_without_vocabulary", "unknown_name", "class_id"],
)
def test_bad_metric_arguments_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        est.MultiLabelHead(2, **kwargs)
