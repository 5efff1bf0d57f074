"""A TF 1.x trainer that writes summaries into its own --log_dir.

Usage: python train.py --log_dir=DIR [--logtostderr]
"""

import os

import numpy as np
import tensorflow as tf  # expect: compat-v1
from config import FLAGS


def main(_):
    x = tf.placeholder(tf.float32, [None, 1])
    y = tf.placeholder(tf.float32, [None, 1])
    w = tf.Variable(tf.zeros([1, 1]))
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
    tf.summary.scalar("loss", loss)  # expect: summary-v1
    merged = tf.summary.merge_all()  # expect: summary-v1
    train_op = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    xs = np.linspace(-1, 1, 8, dtype=np.float32).reshape(-1, 1)
    writer = tf.summary.FileWriter(FLAGS.log_dir)  # expect: summary-v1
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(FLAGS.steps):
            _, value, summary = sess.run([train_op, loss, merged], {x: xs, y: 2 * xs})
            writer.add_summary(summary, step)
    writer.close()
    if FLAGS.logtostderr:
        print("final loss", round(float(value), 4))
    print("summaries", len(os.listdir(FLAGS.log_dir)))


if __name__ == "__main__":
    tf.app.run()
