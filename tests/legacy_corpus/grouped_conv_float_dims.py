"""AlexNet-style grouped convolutions in a TF 1.x graph: each group's filter
variable is [k, k, channels / groups, n], a true division, which TF 1.x's
Dimension turned into an int.

TF 2 refuses a float dimension (TypeError); after `emg-migrate --fix` each
such dimension is int(...) and the script runs on TF 2.x.
Usage: python grouped_conv_float_dims.py
"""

import numpy as np
import tensorflow as tf  # port: compat-v1


def conv(x, k, n, name, groups=1):
    channels = int(x.get_shape()[-1])
    with tf.variable_scope(name):
        weights = tf.get_variable("weights", shape=[k, k, channels / groups, n])  # port: float-dims
        biases = tf.get_variable("biases", [n], initializer=tf.zeros_initializer())
    inputs = tf.split(axis=3, num_or_size_splits=groups, value=x)
    kernels = tf.split(axis=3, num_or_size_splits=groups, value=weights)
    out = [
        tf.nn.conv2d(i, w, strides=[1, 1, 1, 1], padding="SAME")
        for i, w in zip(inputs, kernels)
    ]
    return tf.nn.relu(tf.concat(axis=3, values=out) + biases)


def main():
    size = 8
    with tf.Graph().as_default():
        images = tf.placeholder(tf.float32, [None, size, size, 4])
        pooled = tf.placeholder(tf.float32, (None, size / 2, size / 2, 4))  # port: float-dims, float-dims
        h = conv(images, 3, 4, "conv1")
        h = conv(h, 3, 6, "conv2", groups=2)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for v in tf.global_variables():
                print(v.name, v.shape.as_list())
            print("pooled", pooled.shape.as_list())
            out = sess.run(h, {images: np.ones((2, size, size, 4), np.float32)})
            print("output", list(out.shape))


if __name__ == "__main__":
    main()
