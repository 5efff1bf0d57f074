"""Pretrained weights as a NumPy pickle: a dict of layer name -> [weights,
biases] saved with np.save and read back with np.load(...).item(), the way
converted Caffe weights (bvlc_alexnet.npy) were shipped, then assigned to
the TF 1.x graph's variables.

NumPy 1.16.3 made np.load's allow_pickle default False (ValueError: Object
arrays cannot be loaded); after `emg-migrate --fix` the pickled loads pass
allow_pickle=True and the script runs on TF 2.x.
Usage: python numpy_pickled_weights.py
"""

import os
import tempfile

import numpy as np
import tensorflow as tf  # port: compat-v1


def main():
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "weights.npy")
    plain = os.path.join(folder, "mean.npy")
    np.save(path, {"fc": [np.ones((3, 2), np.float32), np.arange(2, dtype=np.float32)]})
    np.save(plain, np.array([0.5, 0.25], np.float32))

    weights = np.load(path, encoding="bytes").item()  # port: numpy-load-pickle
    again = np.load(path)[()]  # port: numpy-load-pickle
    mean = np.load(plain)
    with tf.Graph().as_default():
        with tf.variable_scope("fc"):
            w = tf.get_variable("weights", [3, 2])
            b = tf.get_variable("biases", [2])
        x = tf.placeholder(tf.float32, [None, 3])
        y = tf.matmul(x, w) + b - mean
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for var, value in zip((w, b), weights["fc"]):
                sess.run(var.assign(value))
            print("layers", sorted(again))
            print("y", sess.run(y, {x: np.ones((1, 3), np.float32)}).tolist())


if __name__ == "__main__":
    main()
