"""A TF 1.x GAN-style trainer of the SciPy 1.1 era: it fits a tiny generator,
saves its float samples as one image grid with scipy.misc.imsave (byte-scaled
from the samples' own minimum and maximum), reads the grid back with
misc.imread, shrinks it with imresize and byte-scales a second array.

SciPy removed these in 1.2 and 1.3; Python parses each and fails only when
the line runs, after the training. `emg-migrate --fix` writes
estimator_multigpu.scipy_misc's drop-ins.
Usage: python scipy_misc_images.py OUT_DIR
"""

import os
import sys

import numpy as np
import scipy.misc
import tensorflow as tf  # port: compat-v1
from scipy import misc
from scipy.misc import bytescale, imresize  # port: scipy-misc, scipy-misc


def merge(images, rows, cols):
    h, w = images.shape[1:3]
    grid = np.zeros((h * rows, w * cols, 3), images.dtype)
    for idx, image in enumerate(images):
        i, j = idx % cols, idx // cols
        grid[j * h : j * h + h, i * w : i * w + w] = image
    return grid


def main(out_dir):
    with tf.Graph().as_default():
        z = tf.constant(np.linspace(-1.0, 1.0, 4 * 8 * 8 * 3).reshape(4, 8, 8, 3))
        w = tf.Variable(0.5, dtype=tf.float64)
        samples = tf.tanh(w * z)
        loss = tf.reduce_mean(tf.square(samples - 0.25))
        train_op = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for step in range(3):
                _, l = sess.run([train_op, loss])
                print("step %d loss %.4f" % (step, l))
            images = sess.run(samples)
    path = os.path.join(out_dir, "samples.png")
    grid = merge(images, 2, 2)
    scipy.misc.imsave(path, grid)  # port: scipy-misc
    back = misc.imread(path)  # port: scipy-misc
    small = imresize(back, 50)
    gray = bytescale(grid[..., 0], cmin=-1.0, cmax=1.0)
    print("saved %s %s %d %d" % (back.shape, back.dtype, back.min(), back.max()))
    print("resized %s gray %d %d" % (small.shape, gray.min(), gray.max()))


if __name__ == "__main__":
    main(sys.argv[1])
