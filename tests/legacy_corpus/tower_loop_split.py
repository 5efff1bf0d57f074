"""Two-tower training with the hand-written loop of the TF1 multi-GPU tutorial.

The global batch is split with tf.split, each tower computes gradients on its
shard, a helper averages them and one apply_gradients updates the weights.
Usage: python tower_loop_split.py WORKDIR [NUM_DEVICES]
"""

import sys

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
NUM_DEVICES = int(sys.argv[2]) if len(sys.argv) > 2 else 2


def tower_loss(images, labels, weight_decay):
    w = tf.get_variable("w", [4, 3], initializer=tf.ones_initializer())
    logits = tf.matmul(images, w)
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    return loss + weight_decay * tf.nn.l2_loss(w)


def average_gradients(tower_grads):  # expect: tower-loop
    average_grads = []
    for grad_and_vars in zip(*tower_grads):
        grads = [tf.expand_dims(g, 0) for g, _ in grad_and_vars]
        grad = tf.reduce_mean(tf.concat(axis=0, values=grads), 0)
        average_grads.append((grad, grad_and_vars[0][1]))
    return average_grads


def train():
    rng = np.random.RandomState(0)
    images = tf.constant(rng.randn(8, 4).astype(np.float32))
    labels = tf.constant(rng.randint(0, 3, size=8).astype(np.int32))
    global_step = tf.train.get_or_create_global_step()
    opt = tf.train.GradientDescentOptimizer(0.5)
    image_splits = tf.split(images, NUM_DEVICES)
    label_splits = tf.split(labels, NUM_DEVICES)
    # One tower per device, sharing the variables.
    tower_grads = []
    with tf.variable_scope(tf.get_variable_scope()):
        for i in range(NUM_DEVICES):  # expect: tower-loop
            with tf.device("/cpu:%d" % i):
                with tf.name_scope("tower_%d" % i):
                    loss = tower_loss(image_splits[i], label_splits[i], 0.01)
                    tf.get_variable_scope().reuse_variables()
                    grads = opt.compute_gradients(loss)
                    tower_grads.append(grads)
    grads = average_gradients(tower_grads)
    train_op = opt.apply_gradients(grads, global_step=global_step)  # the update
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(train_op)
        print("step", sess.run(global_step))
        print("w", " ".join("%.6f" % v for v in sess.run("w:0").ravel()))


if __name__ == "__main__":
    train()
