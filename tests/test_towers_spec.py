"""The merged spec keeps tower 0's hooks and scaffold; one device runs as is."""

import re

import pytest
import tensorflow as tf
from conftest import ALL_DEVICES
from tensorflow.python.saved_model.model_utils import export_output

import estimator_multigpu as emg
from estimator_multigpu import per_device
from estimator_multigpu.estimator._spec import EstimatorSpec, ModeKeys


def model_fn(features, labels, mode):
    w = tf.compat.v1.get_variable("w", [2, 1])
    loss = tf.reduce_mean(tf.matmul(features, w))
    optimizer = emg.TowerOptimizer(tf.compat.v1.train.GradientDescentOptimizer(0.1))
    hook = tf.compat.v1.train.LoggingTensorHook({"loss": loss}, every_n_iter=1)
    chief = tf.compat.v1.train.StopAtStepHook(num_steps=5)
    local_init = tf.group(
        tf.compat.v1.local_variables_initializer(), name="user_local_init"
    )
    return EstimatorSpec(
        mode,
        loss=loss,
        train_op=optimizer.minimize(loss),
        training_hooks=[hook],
        training_chief_hooks=[chief],
        scaffold=tf.compat.v1.train.Scaffold(local_init_op=local_init),
    )


def _control_ancestors(op):
    names, stack = set(), [op]
    while stack:
        op = stack.pop()
        names.add(op.name)
        stack.extend(op.control_inputs)
    return names


def test_tower_zero_hooks_and_scaffold_are_kept():
    with tf.Graph().as_default():
        init = tf.no_op(name="input_init")
        per_device.register_initializer(init)
        replicated = emg.replicate_model_fn(model_fn, devices=ALL_DEVICES[:2])
        spec = replicated(tf.ones([4, 2]), None, ModeKeys.TRAIN)
        (hook,) = spec.training_hooks
        assert isinstance(hook, tf.compat.v1.train.LoggingTensorHook)
        assert not hook._tensors["loss"].name.startswith("tower_1")
        assert isinstance(
            spec.training_chief_hooks[0], tf.compat.v1.train.StopAtStepHook
        )
        assert {"user_local_init", "input_init"} <= _control_ancestors(
            spec.scaffold.local_init_op
        )


def test_single_device_unwraps_per_device_input():
    seen = {}

    def probe(features, mode):
        seen["features"] = features
        return EstimatorSpec(mode, predictions=features)

    with tf.Graph().as_default():
        shard = tf.ones([3, 2])
        inputs = emg.PerDevice([shard], ["/cpu:0"])
        spec = emg.replicate_model_fn(probe, devices=["/cpu:0"])(
            inputs, None, ModeKeys.PREDICT
        )
        assert seen["features"] is shard
        assert spec.predictions is shard


def test_every_tower_gets_the_same_params():
    seen = []

    def popping_model_fn(features, mode, params):
        seen.append(params.pop("scale"))
        return EstimatorSpec(mode, predictions=features * seen[-1])

    with tf.Graph().as_default():
        replicated = emg.replicate_model_fn(popping_model_fn, devices=ALL_DEVICES[:3])
        replicated(tf.ones([6, 2]), None, ModeKeys.PREDICT, params={"scale": 2.0})
    assert seen == [2.0, 2.0, 2.0]


def _replicated(model_fn, mode):
    """The merged spec of `model_fn` over 2 towers, in the current graph."""
    replicated = emg.replicate_model_fn(model_fn, devices=ALL_DEVICES[:2])
    return replicated(tf.reshape(tf.range(8.0), [4, 2]), None, mode)


def test_tensor_predictions_are_concatenated_and_empty_ones_kept():
    def tensor_model_fn(features, mode):
        return EstimatorSpec(mode, predictions=features * 2)

    def empty_model_fn(features, mode):
        return EstimatorSpec(mode, predictions={})

    with tf.Graph().as_default():
        spec = _replicated(tensor_model_fn, ModeKeys.PREDICT)
        assert spec.predictions.shape.as_list() == [4, 2]
        values = tf.compat.v1.Session().run(spec.predictions)
        assert values.tolist() == [[0, 2], [4, 6], [8, 10], [12, 14]]
        assert _replicated(empty_model_fn, ModeKeys.PREDICT).predictions == {}


class _OtherOutput(export_output.ExportOutput):
    def as_signature_def(self, receiver_tensors):
        raise NotImplementedError


def test_an_export_output_of_another_class_is_refused():
    def model_fn(features, mode):
        return EstimatorSpec(
            mode, predictions=features, export_outputs={"other": _OtherOutput()}
        )

    message = (
        "Cannot merge export output _OtherOutput across towers; use PredictOutput, "
        "ClassificationOutput or RegressionOutput."
    )
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
            _replicated(model_fn, ModeKeys.PREDICT)


def test_export_outputs_of_each_class_are_concatenated():
    def model_fn(features, mode):
        scores = features
        return EstimatorSpec(
            mode,
            predictions=features,
            export_outputs={
                "scores_only": export_output.ClassificationOutput(scores=scores),
                "classes_only": export_output.ClassificationOutput(
                    classes=tf.strings.as_string(scores)
                ),
                "regress": export_output.RegressionOutput(scores[:, 0]),
                "serving_default": export_output.PredictOutput({"x": features}),
            },
        )

    with tf.Graph().as_default():
        outputs = _replicated(model_fn, ModeKeys.PREDICT).export_outputs
        assert outputs["scores_only"].classes is None
        assert outputs["classes_only"].scores is None
        fetches = [
            outputs["scores_only"].scores,
            outputs["classes_only"].classes,
            outputs["regress"].value,
            outputs["serving_default"].outputs["x"],
        ]
        scores, classes, value, x = tf.compat.v1.Session().run(fetches)
    assert scores.shape == classes.shape == x.shape == (4, 2)
    assert value.tolist() == [0.0, 2.0, 4.0, 6.0]


def test_merged_loss_and_train_op_have_their_graph_names():
    # The names TensorBoard shows and v1 code fetches (get_tensor_by_name).
    with tf.Graph().as_default():
        spec = _replicated(model_fn, ModeKeys.TRAIN)
        assert spec.loss.op.name == "merge_tower_losses/loss"
        assert spec.train_op.name == "train_op"


def metric_model_fn(features, labels, mode, params):
    """EVAL with a metric per tower; with params["scaffold"], a scaffold of
    tower 0's own local_init_op."""
    total = tf.compat.v1.metrics.mean(features)
    scaffold = None
    if params["scaffold"]:
        local_init = tf.compat.v1.local_variables_initializer()
        scaffold = tf.compat.v1.train.Scaffold(local_init_op=local_init)
    return EstimatorSpec(
        mode,
        loss=tf.reduce_mean(features),
        eval_metric_ops={"mean": total},
        scaffold=scaffold,
    )


@pytest.mark.parametrize("own_scaffold", [True, False], ids=["scaffold", "none"])
def test_every_towers_metrics_are_initialised(own_scaffold):
    with tf.Graph().as_default():
        replicated = emg.replicate_model_fn(metric_model_fn, devices=ALL_DEVICES[:2])
        features = tf.reshape(tf.range(8.0), [4, 2])
        spec = replicated(features, None, ModeKeys.EVAL, {"scaffold": own_scaffold})
        value, update = spec.eval_metric_ops["mean"]
        with tf.compat.v1.Session() as session:
            if own_scaffold:  # Its local_init_op alone initialises.
                session.run(spec.scaffold.local_init_op)
            else:
                assert spec.scaffold is None or spec.scaffold.local_init_op is None
                session.run(tf.compat.v1.local_variables_initializer())
            session.run(update)
            assert session.run(value) == 3.5  # The mean of 0..7.


def test_train_op_runs_tower_zero_update_ops():
    def update_model_fn(features, labels, mode):
        seen = tf.compat.v1.get_variable(
            "seen", [], initializer=tf.compat.v1.zeros_initializer(), trainable=False
        )
        update = seen.assign_add(tf.reduce_sum(features))
        tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.UPDATE_OPS, update)
        return model_fn(features, labels, mode)

    with tf.Graph().as_default():
        spec = _replicated(update_model_fn, ModeKeys.TRAIN)
        (seen,) = [v for v in tf.compat.v1.global_variables() if v.op.name == "seen"]
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            session.run(spec.train_op)
            # Tower 0's update alone, once: its shard is rows 0 and 1 (0 + 1 + 2 + 3).
            assert session.run(seen) == 6.0


def test_scalar_predictions_come_from_tower_zero():
    def model_fn(features, mode):
        total = tf.reduce_sum(features)
        return EstimatorSpec(mode, predictions={"x": features, "total": total})

    with tf.Graph().as_default():
        spec = _replicated(model_fn, ModeKeys.PREDICT)
        assert tf.compat.v1.Session().run(spec.predictions["total"]) == 6.0
