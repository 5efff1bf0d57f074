"""A small TF 1.x slim model trained with a Session (slim layers, arg_scope).

Usage: python slim_model_train.py OUT_DIR
"""

import sys

import numpy as np
import tensorflow as tf  # port: compat-v1
import tensorflow.contrib.slim as slim


def net(images):
    with slim.arg_scope([slim.conv2d], padding="SAME", activation_fn=tf.nn.relu):  # expect: contrib-slim, contrib-slim  # port: contrib-slim
        x = slim.conv2d(images, 4, [3, 3], scope="conv1")  # expect: contrib-slim
        x = slim.max_pool2d(x, [2, 2], scope="pool1")  # expect: contrib-slim
        x = slim.flatten(x)  # expect: contrib-slim
        return slim.fully_connected(x, 2, activation_fn=None, scope="logits")  # expect: contrib-slim


def main(out_dir):
    tf.set_random_seed(1)
    images = tf.placeholder(tf.float32, [None, 8, 8, 1])
    labels = tf.placeholder(tf.int64, [None])
    logits = net(images)
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    rng = np.random.RandomState(0)
    xs = rng.rand(32, 8, 8, 1).astype(np.float32)
    ys = (xs.mean(axis=(1, 2, 3)) > 0.5).astype(np.int64)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss, {images: xs, labels: ys})
        for _ in range(60):
            last, _ = sess.run([loss, train_op], {images: xs, labels: ys})
    print("variables", len(slim.get_model_variables()), "out", out_dir)  # expect: contrib-slim
    print("loss went down", bool(last < first))


if __name__ == "__main__":
    main(sys.argv[1])
