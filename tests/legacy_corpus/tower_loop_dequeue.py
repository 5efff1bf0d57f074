"""Two towers that each take their own batch from one queue, tutorial style.

Each tower dequeues a batch, names its scope, sums the 'losses' of that scope
(the weight decay its model added) and keeps its summaries; the averaged
gradients get histograms before one apply_gradients updates the weights.
Usage: python tower_loop_dequeue.py WORKDIR [NUM_DEVICES]
"""

import sys

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
NUM_DEVICES = int(sys.argv[2]) if len(sys.argv) > 2 else 2
GLOBAL_BATCH = 8
TOWER_NAME = "tower"


class BatchQueue:
    """Hands out consecutive batches, as a prefetch queue of batches does."""

    def __init__(self, images, labels, batch_size):
        data = tf.data.Dataset.from_tensor_slices((images, labels))
        self._iterator = tf.data.make_one_shot_iterator(data.batch(batch_size).repeat())

    def dequeue(self):
        return self._iterator.get_next()


def tower_loss(scope, images, labels):
    w = tf.get_variable("w", [4, 3], initializer=tf.ones_initializer())
    tf.add_to_collection("losses", 0.01 * tf.nn.l2_loss(w))
    logits = tf.matmul(images, w)
    tf.add_to_collection("losses", tf.losses.sparse_softmax_cross_entropy(labels, logits))
    losses = tf.get_collection("losses", scope)
    total_loss = tf.add_n(losses, name="total_loss")
    tf.summary.scalar("total_loss", total_loss)
    return total_loss


def average_gradients(tower_grads):  # expect: tower-loop
    average_grads = []
    for grad_and_vars in zip(*tower_grads):
        grads = [tf.expand_dims(g, 0) for g, _ in grad_and_vars]
        grad = tf.reduce_mean(tf.concat(axis=0, values=grads), 0)
        average_grads.append((grad, grad_and_vars[0][1]))
    return average_grads


def train():
    rng = np.random.RandomState(0)
    images = rng.randn(4 * GLOBAL_BATCH, 4).astype(np.float32)
    labels = rng.randint(0, 3, size=4 * GLOBAL_BATCH).astype(np.int32)
    global_step = tf.train.get_or_create_global_step()
    opt = tf.train.GradientDescentOptimizer(0.5)
    batch_queue = BatchQueue(images, labels, GLOBAL_BATCH // NUM_DEVICES)
    tower_grads = []
    with tf.variable_scope(tf.get_variable_scope()):
        for i in range(NUM_DEVICES):  # expect: tower-loop
            with tf.device("/cpu:%d" % i):
                with tf.name_scope("%s_%d" % (TOWER_NAME, i)) as scope:
                    image_batch, label_batch = batch_queue.dequeue()
                    loss = tower_loss(scope, image_batch, label_batch)
                    tf.get_variable_scope().reuse_variables()
                    summaries = tf.get_collection(tf.GraphKeys.SUMMARIES, scope)
                    grads = opt.compute_gradients(loss)
                    tower_grads.append(grads)
    grads = average_gradients(tower_grads)
    for grad, var in grads:
        if grad is not None:
            summaries.append(tf.summary.histogram(var.op.name + "/gradients", grad))
    train_op = opt.apply_gradients(grads, global_step=global_step)
    summary_op = tf.summary.merge(summaries)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(summary_op)
        for _ in range(3):
            _, loss_value = sess.run([train_op, loss])
            print("loss", "%.5f" % loss_value)
        print("step", sess.run(global_step))
        print("w", " ".join("%.6f" % v for v in sess.run("w:0").ravel()))


if __name__ == "__main__":
    train()
