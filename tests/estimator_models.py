"""Shared model_fn, input_fns and a numpy reference for the estimator tests.

Holds no tests. The model is softmax regression, `logits = x @ W + b`, with
`x: [batch_size, 4]` and 3 classes, trained by momentum SGD; `numpy_train`
replays the same updates in numpy, so results are checked against an
independent implementation on every TF version.
"""

from __future__ import annotations

import os

import numpy as np
import tensorflow as tf

from estimator_multigpu import estimator as emg_estimator

NUM_FEATURES = 4
NUM_CLASSES = 3
LEARNING_RATE = 0.1
MOMENTUM = 0.9

EstimatorSpec = emg_estimator.EstimatorSpec
ModeKeys = emg_estimator.ModeKeys


def make_data(num_examples: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Features `[num_examples, 4]` float32 and int32 labels in [0, 3)."""
    rng = np.random.RandomState(seed)
    x = rng.randn(num_examples, NUM_FEATURES).astype(np.float32)
    y = (x.sum(axis=1) > 0).astype(np.int32) + (x[:, 0] > 1).astype(np.int32)
    return x, y


def initial_weights(seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.RandomState(seed)
    kernel = rng.uniform(-0.5, 0.5, (NUM_FEATURES, NUM_CLASSES)).astype(np.float32)
    bias = rng.uniform(-0.1, 0.1, NUM_CLASSES).astype(np.float32)
    return kernel, bias


def _variables():
    kernel = tf.compat.v1.get_variable(
        "dense/kernel",
        [NUM_FEATURES, NUM_CLASSES],
        initializer=tf.compat.v1.glorot_uniform_initializer(seed=1),
    )
    bias = tf.compat.v1.get_variable(
        "dense/bias", [NUM_CLASSES], initializer=tf.compat.v1.zeros_initializer()
    )
    return kernel, bias


def model_fn(features, labels, mode, params):
    """Softmax regression on `features['x']`; params['learning_rate'].

    With `params['tower_optimizer']` the optimizer is wrapped in
    `emg.TowerOptimizer`, as `replicate_model_fn` requires.
    """
    kernel, bias = _variables()
    logits = tf.matmul(features["x"], kernel) + bias
    predictions = {
        "class": tf.argmax(logits, axis=1),
        "probabilities": tf.nn.softmax(logits),
    }
    if mode == ModeKeys.PREDICT:
        return EstimatorSpec(mode, predictions=predictions)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    metrics = {"accuracy": tf.compat.v1.metrics.accuracy(labels, predictions["class"])}
    optimizer = tf.compat.v1.train.MomentumOptimizer(
        params.get("learning_rate", LEARNING_RATE), MOMENTUM
    )
    if params.get("tower_optimizer"):
        from estimator_multigpu.towers import TowerOptimizer

        optimizer = TowerOptimizer(optimizer)
    train_op = optimizer.minimize(loss, tf.compat.v1.train.get_global_step())
    return EstimatorSpec(
        mode,
        loss=loss,
        train_op=train_op,
        eval_metric_ops=metrics,
        predictions=predictions,
    )


def dataset_input_fn(x, y=None, batch_size=8, repeat=False):
    """An input_fn returning a Dataset of `({'x': x}, y)` (or features only)."""

    def input_fn():
        elements = {"x": x} if y is None else ({"x": x}, y)
        dataset = tf.data.Dataset.from_tensor_slices(elements).batch(batch_size)
        return dataset.repeat() if repeat else dataset

    return input_fn


def write_checkpoint(path: str, kernel: np.ndarray, bias: np.ndarray) -> str:
    """Writes `dense/kernel` and `dense/bias` to a checkpoint; returns its path."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with tf.Graph().as_default():
        variables = [
            tf.compat.v1.get_variable("dense/kernel", initializer=kernel),
            tf.compat.v1.get_variable("dense/bias", initializer=bias),
        ]
        saver = tf.compat.v1.train.Saver(variables)
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            return saver.save(session, path)


def _softmax(logits: np.ndarray) -> np.ndarray:
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


def numpy_loss(kernel, bias, x, y) -> float:
    """Mean sparse softmax cross-entropy of one batch."""
    probs = _softmax(x.astype(np.float64) @ kernel + bias)
    return float(-np.log(probs[np.arange(len(y)), y]).mean())


def numpy_train(kernel, bias, batches, learning_rate=LEARNING_RATE):
    """Momentum SGD over `batches` as TF does; returns (kernel, bias, losses)."""
    kernel, bias = kernel.astype(np.float64), bias.astype(np.float64)
    accum_k, accum_b = np.zeros_like(kernel), np.zeros_like(bias)
    losses = []
    for x, y in batches:
        losses.append(numpy_loss(kernel, bias, x, y))
        delta = _softmax(x @ kernel + bias)
        delta[np.arange(len(y)), y] -= 1.0
        delta /= len(y)
        accum_k = accum_k * MOMENTUM + x.T @ delta
        accum_b = accum_b * MOMENTUM + delta.sum(axis=0)
        kernel = kernel - learning_rate * accum_k
        bias = bias - learning_rate * accum_b
    return kernel, bias, losses


def batches(x, y, batch_size, num_steps, repeat_first=False):
    """The first `num_steps` batches of `x, y` repeated, as the dataset yields.

    Batch-then-repeat (a short batch ends each epoch) by default;
    `repeat_first` batches across epoch boundaries instead.
    """
    if repeat_first:
        reps = num_steps * batch_size // len(x) + 1
        x, y = np.concatenate([x] * reps), np.concatenate([y] * reps)
    out, start, n = [], 0, len(x)
    while len(out) < num_steps:
        end = min(start + batch_size, n)
        out.append((x[start:end], y[start:end]))
        start = 0 if end == n else end
    return out


class LossRecorder(tf.compat.v1.train.SessionRunHook):
    """Records the spec's loss per step: the Estimator adds it to LOSSES last."""

    def __init__(self):
        self.losses = []

    def begin(self):
        self._loss = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.LOSSES)[-1]

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self._loss)

    def after_run(self, run_context, run_values):
        self.losses.append(float(run_values.results))
