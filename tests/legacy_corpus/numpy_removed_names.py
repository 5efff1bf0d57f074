"""A TF 1.x trainer of the NumPy 1.x era: it scales uint8 pixels with
np.cast, keeps its best loss from np.Inf, reads scalars with np.asscalar and
writes its statistics with the builtin aliases np.float and np.int.

NumPy 2 (which TensorFlow 2.21 needs) removed those names; Python parses
them and fails only when the line runs (AttributeError). `emg-migrate --fix`
writes their successors.
Usage: python numpy_removed_names.py
"""

import numpy as np
import tensorflow as tf  # port: compat-v1


def main():
    rng = np.random.RandomState(0)
    pixels = rng.randint(0, 256, (8, 4)).astype(np.uint8)
    x = np.cast[np.float32]((pixels - 127.5) / 127.5)  # port: numpy-removed
    target = x.sum(axis=1, dtype=np.float_)  # port: numpy-removed
    with tf.Graph().as_default():
        inputs = tf.placeholder(tf.float32, [None, 4])
        labels = tf.placeholder(tf.float32, [None])
        w = tf.Variable(tf.zeros([4]))
        loss = tf.reduce_mean(tf.square(tf.reduce_sum(inputs * w, 1) - labels))
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        best = np.Inf  # port: numpy-removed
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for step in range(3):
                _, l = sess.run([train_op, loss], {inputs: x, labels: target})
                best = min(best, np.asscalar(l))  # port: numpy-removed
                loss_value = np.float(l)  # port: numpy-removed
                print("step %d loss %.4f" % (step, loss_value))
    steps = np.int(step) + 1  # port: numpy-removed
    missing = np.isnan(np.NaN)  # port: numpy-removed
    print("best %.4f after %d steps; nan %s" % (best, steps, missing))


if __name__ == "__main__":
    main()
