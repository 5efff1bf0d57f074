"""TF 1.x's `tensorflow.examples.tutorials.mnist.mnist` model, as a drop-in.

Mirrors TF 1.x's `tensorflow/examples/tutorials/mnist/mnist.py`: two hidden
ReLU layers and a linear softmax layer built from `tf.Variable`s under the
name scopes `hidden1`, `hidden2`, `softmax_linear` (so TF 1.x checkpoints of
the tutorial restore), the sparse softmax cross-entropy loss, plain gradient
descent with a `global_step`, and the in-top-1 count. It builds graph ops
through `tf.compat.v1`: call it inside `tf.Graph().as_default()` or after
`tf.compat.v1.disable_v2_behavior()`, as migrated scripts do::

    from estimator_multigpu.tutorials import mnist

    logits = mnist.inference(images, hidden1_units=128, hidden2_units=32)
    train_op = mnist.training(mnist.loss(logits, labels), learning_rate=0.01)
"""

from __future__ import annotations

import math

import tensorflow as tf

__all__ = [
    "IMAGE_PIXELS",
    "IMAGE_SIZE",
    "NUM_CLASSES",
    "evaluation",
    "inference",
    "loss",
    "training",
]

v1 = tf.compat.v1

NUM_CLASSES = 10  # the digits 0 through 9
IMAGE_SIZE = 28  # MNIST images are 28x28 pixels
IMAGE_PIXELS = IMAGE_SIZE * IMAGE_SIZE


def _layer(inputs, fan_in: int, units: int):
    """`inputs @ weights + biases` with TF 1.x's initialisers (stddev 1/sqrt(fan_in))."""
    weights = v1.Variable(
        v1.truncated_normal([fan_in, units], stddev=1.0 / math.sqrt(float(fan_in))),
        name="weights",
    )
    biases = v1.Variable(v1.zeros([units]), name="biases")
    return tf.matmul(inputs, weights) + biases


def inference(images, hidden1_units: int, hidden2_units: int):
    """Builds the model up to the logits.

    Args:
      images: float32 `[batch_size, IMAGE_PIXELS]`.
      hidden1_units: size of the first hidden layer.
      hidden2_units: size of the second hidden layer.

    Returns:
      Logits, float32 `[batch_size, NUM_CLASSES]`.
    """
    with v1.name_scope("hidden1"):
        hidden1 = tf.nn.relu(_layer(images, IMAGE_PIXELS, hidden1_units))
    with v1.name_scope("hidden2"):
        hidden2 = tf.nn.relu(_layer(hidden1, hidden1_units, hidden2_units))
    with v1.name_scope("softmax_linear"):
        return _layer(hidden2, hidden2_units, NUM_CLASSES)


def loss(logits, labels):
    """Mean sparse softmax cross-entropy.

    Args:
      logits: float32 `[batch_size, NUM_CLASSES]`.
      labels: int `[batch_size]` class ids.

    Returns:
      The scalar loss.
    """
    labels = tf.cast(labels, tf.int64)
    return v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)


def training(loss, learning_rate):
    """The train op: gradient descent on `loss`, counting `global_step`.

    Also adds the scalar summary `loss`, as TF 1.x's tutorial did.

    Args:
      loss: the scalar loss, from `loss()`.
      learning_rate: the gradient-descent step size.

    Returns:
      The op that runs one training step.
    """
    v1.summary.scalar("loss", loss)
    optimizer = v1.train.GradientDescentOptimizer(learning_rate)
    global_step = v1.Variable(0, name="global_step", trainable=False)
    return optimizer.minimize(loss, global_step=global_step)


def evaluation(logits, labels):
    """How many of the batch's logits rank the true label first.

    Args:
      logits: float32 `[batch_size, NUM_CLASSES]`.
      labels: int32 `[batch_size]` class ids in [0, NUM_CLASSES).

    Returns:
      Scalar int32: the number of correct predictions.
    """
    correct = v1.nn.in_top_k(logits, labels, 1)
    return tf.reduce_sum(tf.cast(correct, tf.int32))
