"""Metrics: `import tensorflow as tf` and only names TF 2 keeps, so no finding."""

import tensorflow as tf


def squared_error(prediction, target):
    return tf.reduce_mean(tf.square(prediction - target))
