"""The Inception training loop's tower shape (research/inception inception_train.py).

Each tower runs under `slim.arg_scope([slim.variable], device='/cpu:0')`, takes a
`reuse_variables` flag (None, then True) into its own variable scope, keeps its
batch-norm updates in a collection of its own read back with the tower's name
scope, averages its losses with an ExponentialMovingAverage in tower 0, and the
script keeps the last tower's summaries and updates, histograms of the averaged
gradients and moving averages of the variables.
Usage: python tower_loop_inception.py WORKDIR [NUM_GPUS]
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
UPDATE_OPS_COLLECTION = "_update_ops_"


def inference(images, scope):
    """A dense layer with a batch-norm-style moving mean (forward: fixed scale)."""
    w = slim.variable("w", [4, 3], initializer=tf.ones_initializer())
    moving_mean = slim.variable(
        "moving_mean", [4], initializer=tf.zeros_initializer(), trainable=False
    )
    mean = tf.reduce_mean(images, 0)
    update = tf.assign_sub(moving_mean, 0.1 * (moving_mean - mean))
    tf.add_to_collection(UPDATE_OPS_COLLECTION, update)
    return tf.matmul(images, w)


def _tower_loss(images, labels, scope, reuse_variables=None):
    with tf.variable_scope(tf.get_variable_scope(), reuse=reuse_variables):
        logits = inference(images, scope)
    xent = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    losses = tf.get_collection(tf.GraphKeys.LOSSES, scope)
    total_loss = tf.add_n(losses + [0.01 * tf.nn.l2_loss(tf.trainable_variables()[0])])
    if not reuse_variables:
        loss_averages = tf.train.ExponentialMovingAverage(0.9, name="avg")
        loss_averages_op = loss_averages.apply([xent, total_loss])
        for l in [xent, total_loss]:
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
            "global_step",
            [],
            initializer=tf.constant_initializer(0),
            trainable=False,
        )
        opt = tf.train.GradientDescentOptimizer(0.5)
        rng = np.random.RandomState(0)
        images = tf.constant(rng.randn(BATCH_SIZE, 4).astype(np.float32))
        labels = tf.constant(rng.randint(0, 3, BATCH_SIZE).astype(np.int32))
        input_summaries = list(tf.get_collection(tf.GraphKeys.SUMMARIES))
        images_splits = tf.split(axis=0, num_or_size_splits=NUM_GPUS, value=images)
        labels_splits = tf.split(axis=0, num_or_size_splits=NUM_GPUS, value=labels)

        # Calculate the gradients for each model tower.
        tower_grads = []
        reuse_variables = None
        for i in range(NUM_GPUS):  # expect: tower-loop
            with tf.device("/gpu:%d" % i):
                with tf.name_scope("%s_%d" % (TOWER_NAME, i)) as scope:
                    # Force all Variables to reside on the CPU.
                    with slim.arg_scope([slim.variable], device="/cpu:0"):
                        loss = _tower_loss(
                            images_splits[i], labels_splits[i], scope, reuse_variables
                        )

                    # Reuse variables for the next tower.
                    reuse_variables = True

                    # Retain the summaries from the final tower.
                    summaries = tf.get_collection(tf.GraphKeys.SUMMARIES, scope)

                    # Retain the batch-norm updates of the final tower only.
                    batchnorm_updates = tf.get_collection(UPDATE_OPS_COLLECTION, scope)

                    grads = opt.compute_gradients(loss)
                    tower_grads.append(grads)

        grads = _average_gradients(tower_grads)
        summaries.extend(input_summaries)
        for grad, var in grads:
            if grad is not None:
                summaries.append(tf.summary.histogram(var.op.name + "/gradients", grad))
        apply_gradient_op = opt.apply_gradients(grads, global_step=global_step)
        variable_averages = tf.train.ExponentialMovingAverage(0.9999, global_step)
        variables_to_average = tf.trainable_variables() + tf.moving_average_variables()
        variables_averages_op = variable_averages.apply(variables_to_average)
        batchnorm_updates_op = tf.group(*batchnorm_updates)
        train_op = tf.group(apply_gradient_op, variables_averages_op, batchnorm_updates_op)
        summary_op = tf.summary.merge(summaries)
        config = tf.ConfigProto(allow_soft_placement=True)
        with tf.Session(config=config) as sess:
            sess.run(tf.global_variables_initializer())
            for step in range(3):
                _, loss_value = sess.run([train_op, loss])
                print("loss %d %.6f" % (step, loss_value))
            sess.run(summary_op)
            print("w", " ".join("%.6f" % v for v in sess.run("w:0").ravel()))
            print("step", sess.run(global_step))
            print("moving_mean", " ".join("%.4f" % v for v in sess.run("moving_mean:0")))


if __name__ == "__main__":
    train()
