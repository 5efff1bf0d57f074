"""A TF 1.x graph-mode trainer written against bare `tf.*` names (no queues).

Fits y = 3x - 1 with a dense layer, logs, writes summaries, prints the loss.
Usage: python bare_tf1_trainer.py LOG_DIR
"""

import sys

import numpy as np
import tensorflow as tf  # port: compat-v1

tf.logging.set_verbosity(tf.logging.ERROR)


def model(x):
    with tf.variable_scope("model"):
        return tf.layers.dense(x, 1, name="out")  # expect: layers  # port: layers


def main(log_dir):
    tf.set_random_seed(0)
    x = tf.placeholder(tf.float32, [None, 1])
    y = tf.placeholder(tf.float32, [None, 1])
    loss = tf.reduce_mean(tf.square(model(x) - y))
    tf.summary.scalar("loss", loss)  # port: summary-v1
    merged = tf.summary.merge_all()  # port: summary-v1
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    xs = np.linspace(-1, 1, 16, dtype=np.float32).reshape(-1, 1)
    feed = {x: xs, y: 3 * xs - 1}
    writer = tf.summary.FileWriter(log_dir)  # port: summary-v1
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(200):
            _, value, summary = sess.run([train_op, loss, merged], feed)
            writer.add_summary(summary, step)
            if step % 50 == 0:
                print("step", step, "loss", round(float(value), 4))
    writer.close()
    print("final loss", round(float(value), 4))


if __name__ == "__main__":
    main(sys.argv[1])
