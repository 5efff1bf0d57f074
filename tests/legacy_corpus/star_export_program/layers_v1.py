"""Layers of a TF 1.x program: its own `import tensorflow as tf`, TF1 names."""

import tensorflow as tf  # expect: compat-v1


def dense(x, units, name):
    with tf.variable_scope(name):
        w = tf.get_variable("w", [int(x.shape[-1]), units])
        return tf.matmul(x, w)
