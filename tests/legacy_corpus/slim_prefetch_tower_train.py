"""Towers that each dequeue their own batch from slim's prefetch queue, tutorial style.

The input is already tf.data (an iterator's get_next, then a reshape); slim's
prefetch_queue hands each tower the next batch. Usage:
python slim_prefetch_tower_train.py WORKDIR [NUM_DEVICES]
"""

import sys

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
NUM_DEVICES = int(sys.argv[2]) if len(sys.argv) > 2 else 2
GLOBAL_BATCH = 8
TOWER_NAME = "tower"


def distorted_inputs(batch_size):
    rng = np.random.RandomState(0)
    images = rng.randn(4 * GLOBAL_BATCH, 4).astype(np.float32)
    labels = rng.randint(0, 3, size=[4 * GLOBAL_BATCH, 1]).astype(np.int64)
    data = tf.data.Dataset.from_tensor_slices((images, labels))
    iterator = tf.data.make_one_shot_iterator(data.batch(batch_size).repeat())
    images, labels = iterator.get_next()
    return images, tf.cast(tf.reshape(labels, [batch_size]), tf.int32)


def tower_loss(scope, images, labels):
    w = tf.get_variable("w", [4, 3], initializer=tf.ones_initializer())
    logits = tf.matmul(images, w)
    tf.add_to_collection(
        "losses", tf.losses.sparse_softmax_cross_entropy(labels, logits)
    )
    losses = tf.get_collection("losses", scope)
    return tf.add_n(losses, name="total_loss")


def average_gradients(tower_grads):  # expect: tower-loop
    average_grads = []
    for grad_and_vars in zip(*tower_grads):
        grads = [tf.expand_dims(g, 0) for g, _ in grad_and_vars]
        grad = tf.reduce_mean(tf.concat(axis=0, values=grads), 0)
        average_grads.append((grad, grad_and_vars[0][1]))
    return average_grads


def train():
    global_step = tf.train.get_or_create_global_step()
    opt = tf.train.GradientDescentOptimizer(0.5)
    images, labels = distorted_inputs(GLOBAL_BATCH // NUM_DEVICES)
    batch_queue = (
        tf.contrib.slim.prefetch_queue.prefetch_queue(  # expect: slim-prefetch-queue
            [images, labels], capacity=2 * NUM_DEVICES
        )
    )
    tower_grads = []
    with tf.variable_scope(tf.get_variable_scope()):
        for i in range(NUM_DEVICES):  # expect: tower-loop
            with tf.device("/cpu:%d" % i):
                with tf.name_scope("%s_%d" % (TOWER_NAME, i)) as scope:
                    image_batch, label_batch = batch_queue.dequeue()
                    loss = tower_loss(scope, image_batch, label_batch)
                    tf.get_variable_scope().reuse_variables()
                    grads = opt.compute_gradients(loss)
                    tower_grads.append(grads)
    grads = average_gradients(tower_grads)
    train_op = opt.apply_gradients(grads, global_step=global_step)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(train_op)
        print("step", sess.run(global_step))
        print("w", " ".join("%.5f" % v for v in sess.run("w:0").ravel()))


if __name__ == "__main__":
    train()
