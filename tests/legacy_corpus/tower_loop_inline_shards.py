"""A tower loop written tersely: shards from one tuple assignment, read inside
the tower's own expression, the gradients appended inline, the loss collected
per tower and summarised, and the averaging nested in the update (one
statement builds the update from the averaged list).
Usage: python tower_loop_inline_shards.py WORKDIR [NUM_DEVICES]
"""

import sys

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
NUM_DEVICES = int(sys.argv[2]) if len(sys.argv) > 2 else 2


def average_gradients(tower_grads):  # expect: tower-loop
    average_grads = []
    for grad_and_vars in zip(*tower_grads):
        grads = [tf.expand_dims(g, 0) for g, _ in grad_and_vars]
        grad = tf.reduce_mean(tf.concat(axis=0, values=grads), 0)
        average_grads.append((grad, grad_and_vars[0][1]))
    return average_grads


def train():
    rng = np.random.RandomState(0)
    x = tf.constant(rng.randn(8, 3).astype(np.float32))
    y = tf.constant(rng.randn(8, 1).astype(np.float32))
    opt = tf.train.GradientDescentOptimizer(0.1)
    w = tf.get_variable("w", [3, 1], initializer=tf.ones_initializer())
    xs, ys = tf.split(x, NUM_DEVICES), tf.split(y, NUM_DEVICES)
    tower_grads = []
    losses = []
    for i in range(NUM_DEVICES):  # expect: tower-loop
        with tf.device("/cpu:%d" % i):
            with tf.name_scope("tower_%d" % i):
                loss = tf.reduce_mean(tf.square(tf.matmul(xs[i], w) - ys[i]))
                losses.append(loss)
                tf.summary.scalar("loss", loss)
                tower_grads.append(opt.compute_gradients(loss))
    train_op = opt.apply_gradients(average_gradients(tower_grads))
    mean_loss = tf.reduce_mean(losses)
    summaries = tf.summary.merge_all()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(3):
            _, value, _ = sess.run([train_op, mean_loss, summaries])
            print("loss %d %.6f" % (step, value))
        print("w", " ".join("%.6f" % v for v in sess.run(w).ravel()))


if __name__ == "__main__":
    train()
