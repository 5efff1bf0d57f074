"""A Caffe-converted network of the Python 2 era, in a TF 1.x graph: its
layers read a static dimension (`x.get_shape()[-1]`) and divide it with `/`
(a grouped convolution's filter depth, a pooled size), check their inputs
with `isinstance(name, basestring)` and measure a shape made by `map`.

Under Python 2, `Dimension / int` was a floor division, `basestring` a
builtin and `map` returned a list. Under Python 3 the graph fails to build:
TypeError (unsupported operand type(s) for /: 'Dimension' and 'int'), then
NameError, then TypeError (a map object has no len()). `emg-migrate --fix`
writes `//`, `str` and `list(map(...))`, and the script runs on TF 2.x.
Usage: python caffe_style_dimension_division.py
"""

import numpy as np
import tensorflow as tf  # port: compat-v1


def conv(x, k, c_o, name, group=1):
    c_i = x.get_shape()[-1]
    assert c_i % group == 0
    with tf.variable_scope(name):
        kernel = tf.get_variable("weights", shape=[k, k, c_i / group, c_o])  # port: dimension-division
        inputs = tf.split(axis=3, num_or_size_splits=group, value=x)
        kernels = tf.split(axis=3, num_or_size_splits=group, value=kernel)
        out = [
            tf.nn.conv2d(i, w, strides=[1, 1, 1, 1], padding="SAME")
            for i, w in zip(inputs, kernels)
        ]
    return tf.nn.relu(tf.concat(axis=3, values=out))


def feed(layers, name):
    if isinstance(name, basestring):  # port: python2-builtin
        return layers[name]
    return name


def main():
    with tf.Graph().as_default():
        layers = {"data": tf.placeholder(tf.float32, [None, 8, 8, 4])}
        h = conv(feed(layers, "data"), 3, 4, "conv1")
        h = conv(feed(layers, h), 3, 6, "conv2", group=2)
        half = h.get_shape()[1] / 2  # port: dimension-division
        dims = map(lambda v: v.value, h.get_shape())  # port: python2-builtin
        print("rank", len(dims), "channels", dims[-1])
        pooled = tf.image.resize_images(h, [half, half])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for v in tf.global_variables():
                print(v.name, v.shape.as_list())
            out = sess.run(pooled, {layers["data"]: np.ones((2, 8, 8, 4), np.float32)})
            print("pooled", list(out.shape))


if __name__ == "__main__":
    main()
