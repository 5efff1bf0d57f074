"""One device is pinned like N: the model's ops run where `devices` says."""

import pytest
import tensorflow as tf
from conftest import ALL_DEVICES

import estimator_multigpu as emg
from estimator_multigpu._model_fn import EstimatorSpec, ModeKeys
from estimator_multigpu.estimator import RunConfig, _model_fn_args


def model_fn(features, labels, mode):
    w = tf.compat.v1.get_variable("w", [2, 1])
    loss = tf.reduce_mean(tf.square(tf.matmul(features, w) - labels))
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    train_op = optimizer.minimize(loss)
    return EstimatorSpec(mode, loss=loss, train_op=train_op)


def _model_ops(replicated):
    """`(ops the model_fn built, names of the global variables)`."""
    with tf.Graph().as_default() as graph:
        features, labels = tf.ones([4, 2]), tf.ones([4, 1])
        first = len(graph.get_operations())
        replicated(features, labels, ModeKeys.TRAIN)
        variables = [v.op.name for v in tf.compat.v1.global_variables()]
        return graph.get_operations()[first:], variables


def _spec(device):
    return tf.DeviceSpec.from_string(device)


# The model's own ops; TensorFlow leaves a variable's initializer and reads
# unpinned (colocated with the variable, or placed by the runtime).
_MODEL_OPS = ("VarHandleOp", "MatMul", "Mean", "ResourceApplyGradientDescent")


def _check_pinned(ops, expected):
    """Every pinned op on `expected`; the model's own ops all pinned."""
    elsewhere = [op.name for op in ops if op.device and _spec(op.device) != expected]
    assert not elsewhere, f"ops on other devices than {expected}: {elsewhere}"
    model_ops = [op for op in ops if op.type in _MODEL_OPS]
    unpinned = [op.name for op in model_ops if not op.device]
    assert {op.type for op in model_ops} == set(_MODEL_OPS)
    assert not unpinned, f"model ops left to default placement: {unpinned}"


@pytest.mark.tf_compat
@pytest.mark.parametrize(
    "device, expected",
    [
        ("/cpu:0", "/device:CPU:0"),
        ("/device:CPU:0", "/device:CPU:0"),
        (ALL_DEVICES[1], "/device:CPU:1"),
    ],
    ids=["cpu0", "device_cpu0", "logical_cpu1"],
)
def test_one_device_pins_the_model(device, expected):
    ops, _ = _model_ops(emg.replicate_model_fn(model_fn, devices=[device]))
    _check_pinned(ops, _spec(expected))


@pytest.mark.tf_compat
def test_num_gpus_zero_pins_the_model_to_the_cpu():
    config = RunConfig(num_gpus=0)
    assert config.compute_devices == ["/cpu:0"]
    ops, _ = _model_ops(_model_fn_args.maybe_replicate(model_fn, config))
    _check_pinned(ops, _spec("/device:CPU:0"))


@pytest.mark.tf_compat
@pytest.mark.parametrize("device", ["/cpu:0", ALL_DEVICES[1]], ids=["cpu0", "cpu1"])
def test_pinning_keeps_the_single_device_variable_names(device):
    _, variables = _model_ops(emg.replicate_model_fn(model_fn, devices=[device]))
    assert variables == ["w"]
