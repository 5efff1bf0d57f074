"""Towers over /gpu:i, then a session with its own ConfigProto.

Usage: SCRIPT NUM_GPUS session|monitored. The session runs a few steps, then
one traced step, and prints where each tower's MatMul ran (from the step's
RunMetadata): `tower_1 MatMul ran on CPU:1`.
"""

import sys

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
BATCH_SIZE = 8


def tower_loss(features, labels):
    w = tf.get_variable("w", [4, 2], initializer=tf.zeros_initializer())
    logits = tf.matmul(features, w)
    return tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    )


def average_gradients(tower_grads):  # expect: tower-loop
    average_grads = []
    for grad_and_vars in zip(*tower_grads):
        grads = [tf.expand_dims(g, 0) for g, _ in grad_and_vars]
        grad = tf.reduce_mean(tf.concat(axis=0, values=grads), 0)
        average_grads.append((grad, grad_and_vars[0][1]))
    return average_grads


def ran_on(run_metadata):
    """{(tower, device)} for the towers' MatMul ops in a traced step."""
    out = set()
    for stats in run_metadata.step_stats.dev_stats:
        for node in stats.node_stats:
            scope, _, op = node.node_name.partition("/")
            if scope.startswith("tower_") and op.startswith("MatMul"):
                out.add((scope, stats.device.rsplit("device:", 1)[1]))
    return sorted(out)


def report(sess, fetches):
    for step in range(3):
        print("step", step, "%.6f" % sess.run(fetches)[1])
    options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    run_metadata = tf.RunMetadata()
    sess.run(fetches, options=options, run_metadata=run_metadata)
    for tower, device in ran_on(run_metadata):
        print(tower, "MatMul ran on", device)


def train(num_gpus, session):
    """One tower per GPU over the split batch."""
    with tf.Graph().as_default(), tf.device("/cpu:0"):
        global_step = tf.train.get_or_create_global_step()
        opt = tf.train.GradientDescentOptimizer(0.5)
        rng = np.random.RandomState(0)
        features = tf.constant(rng.rand(BATCH_SIZE, 4).astype(np.float32))
        labels = tf.constant(rng.randint(0, 2, BATCH_SIZE).astype(np.int32))
        features_splits = tf.split(features, num_gpus)
        labels_splits = tf.split(labels, num_gpus)
        tower_grads = []
        with tf.variable_scope(tf.get_variable_scope()):
            for i in range(num_gpus):  # expect: tower-loop
                with tf.device("/gpu:%d" % i):
                    with tf.name_scope("tower_%d" % i):
                        loss = tower_loss(features_splits[i], labels_splits[i])
                        tf.get_variable_scope().reuse_variables()
                        grads = opt.compute_gradients(loss)
                        tower_grads.append(grads)
        grads = average_gradients(tower_grads)
        train_op = opt.apply_gradients(grads, global_step=global_step)
        config = tf.ConfigProto(allow_soft_placement=True)
        if session == "session":
            with tf.Session(config=tf.ConfigProto(allow_soft_placement=True)) as sess:
                sess.run(tf.global_variables_initializer())
                report(sess, [train_op, loss])
        else:
            with tf.train.MonitoredTrainingSession(config=config) as sess:
                report(sess, [train_op, loss])


if __name__ == "__main__":
    train(int(sys.argv[1]), sys.argv[2])
