"""The Inception tower loop as research/inception trains it, summaries and all.

Beyond tower_loop_inception.py: the input pipeline adds summaries before the
towers (kept aside as `input_summaries`), every tower averages its losses with
its own ExponentialMovingAverage and writes loss summaries, the last tower's
summaries are read back through the tower's name scope and merged with the
input ones, and a plain Session initializes with global_variables_initializer
and runs the merged summaries every step.
Usage: python tower_loop_inception_every_tower.py WORKDIR [NUM_GPUS]
"""

import re
import sys

import numpy as np
import tensorflow.compat.v1 as tf
import tf_slim as slim

tf.disable_v2_behavior()
NUM_GPUS = int(sys.argv[2]) if len(sys.argv) > 2 else 2
BATCH_SIZE = 8
TOWER_NAME = "tower"


def batch_inputs():
    """Constant images and labels, with an input summary like a queue's fill level."""
    rng = np.random.RandomState(0)
    images = tf.constant(rng.randn(BATCH_SIZE, 4).astype(np.float32))
    labels = tf.constant(rng.randint(0, 3, BATCH_SIZE).astype(np.int32))
    with tf.name_scope("batch_processing"):
        tf.summary.scalar("fraction_full", tf.reduce_mean(images))
    return images, labels


def _tower_loss(images, labels, scope, reuse_variables=None):
    with tf.variable_scope(tf.get_variable_scope(), reuse=reuse_variables):
        w = slim.variable("w", [4, 3], initializer=tf.ones_initializer())
        logits = tf.matmul(images, w)
    tf.losses.sparse_softmax_cross_entropy(labels, logits)
    losses = tf.get_collection(tf.GraphKeys.LOSSES, scope)
    total_loss = tf.add_n(losses, name="total_loss")
    loss_averages = tf.train.ExponentialMovingAverage(0.9, name="avg")
    loss_averages_op = loss_averages.apply(losses + [total_loss])
    for l in losses + [total_loss]:
        loss_name = re.sub("%s_[0-9]*/" % TOWER_NAME, "", l.op.name)
        tf.summary.scalar(loss_name + " (raw)", l)
        tf.summary.scalar(loss_name, loss_averages.average(l))
    with tf.control_dependencies([loss_averages_op]):
        total_loss = tf.identity(total_loss)
    return total_loss


def _average_gradients(tower_grads):  # expect: tower-loop
    average_grads = []
    for grad_and_vars in zip(*tower_grads):
        grads = [tf.expand_dims(g, 0) for g, _ in grad_and_vars]
        grad = tf.reduce_mean(tf.concat(axis=0, values=grads), 0)
        average_grads.append((grad, grad_and_vars[0][1]))
    return average_grads


def train():
    with tf.Graph().as_default(), tf.device("/cpu:0"):
        global_step = tf.get_variable(
            "global_step", [], initializer=tf.constant_initializer(0), trainable=False
        )
        opt = tf.train.GradientDescentOptimizer(0.5)
        images, labels = batch_inputs()
        input_summaries = list(tf.get_collection(tf.GraphKeys.SUMMARIES))
        images_splits = tf.split(axis=0, num_or_size_splits=NUM_GPUS, value=images)
        labels_splits = tf.split(axis=0, num_or_size_splits=NUM_GPUS, value=labels)

        tower_grads = []
        reuse_variables = None
        for i in range(NUM_GPUS):  # expect: tower-loop
            with tf.device("/gpu:%d" % i):
                with tf.name_scope("%s_%d" % (TOWER_NAME, i)) as scope:
                    with slim.arg_scope([slim.variable], device="/cpu:0"):
                        loss = _tower_loss(
                            images_splits[i], labels_splits[i], scope, reuse_variables
                        )
                    reuse_variables = True
                    # Retain the summaries from the final tower.
                    summaries = tf.get_collection(tf.GraphKeys.SUMMARIES, scope)
                    grads = opt.compute_gradients(loss)
                    tower_grads.append(grads)

        grads = _average_gradients(tower_grads)
        summaries.extend(input_summaries)
        for grad, var in grads:
            if grad is not None:
                summaries.append(tf.summary.histogram(var.op.name + "/gradients", grad))
        apply_gradient_op = opt.apply_gradients(grads, global_step=global_step)
        summary_op = tf.summary.merge(summaries)
        init = tf.global_variables_initializer()
        config = tf.ConfigProto(allow_soft_placement=True)
        with tf.Session(config=config) as sess:
            sess.run(init)
            for step in range(3):
                _, loss_value, _ = sess.run([apply_gradient_op, loss, summary_op])
                print("loss %d %.6f" % (step, loss_value))
            print("summaries %d" % len(summaries))
            print("w", " ".join("%.6f" % v for v in sess.run("w:0").ravel()))
            print("step", sess.run(global_step))


if __name__ == "__main__":
    train()
