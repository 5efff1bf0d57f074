"""A module-level tower loop whose device count is set after MNIST is read.

The TF 1.x MNIST tutorial reader (`input_data.read_data_sets`) loads the
idx files into NumPy arrays before the count and the towers; each tower
slices the fed batch, as the sliced multi-GPU examples do, and the global
batch comes from `mnist.train.next_batch`. The count is a constant, as a
TF1 script fixed it for its machine.
Usage: python tower_loop_after_mnist_read.py WORKDIR
"""

import gzip
import os
import sys

import numpy as np
import tensorflow as tf
from tensorflow.examples.tutorials.mnist import input_data


def write_mnist(folder, train, test):
    """MNIST's four idx .gz files of random digits (a band of rows per class)."""
    os.makedirs(folder, exist_ok=True)
    rng = np.random.RandomState(0)
    for prefix, n in (("train", train), ("t10k", test)):
        labels = rng.randint(0, 10, n)
        images = rng.randint(0, 128, (n, 28, 28))
        for i, label in enumerate(labels):
            images[i, 2 * label : 2 * label + 4] += 127
        for name, header, data in (
            ("images-idx3-ubyte", [2051, n, 28, 28], images),
            ("labels-idx1-ubyte", [2049, n], labels),
        ):
            with gzip.open(os.path.join(folder, f"{prefix}-{name}.gz"), "wb") as f:
                f.write(np.array(header, ">u4").tobytes())
                f.write(data.astype(np.uint8).tobytes())


write_mnist(os.path.join(sys.argv[1], "mnist"), 5016, 16)
mnist = input_data.read_data_sets(os.path.join(sys.argv[1], "mnist"), one_hot=True)
num_gpus = 2
batch_size = 8 // num_gpus  # Per GPU.


def average_gradients(tower_grads):  # expect: tower-loop
    average_grads = []
    for grad_and_vars in zip(*tower_grads):
        grads = [tf.expand_dims(g, 0) for g, _ in grad_and_vars]
        grad = tf.reduce_mean(tf.concat(grads, 0), 0)
        average_grads.append((grad, grad_and_vars[0][1]))
    return average_grads


tf.set_random_seed(0)
with tf.device("/cpu:0"):
    tower_grads = []
    X = tf.placeholder(tf.float32, [None, 784])
    Y = tf.placeholder(tf.float32, [None, 10])
    optimizer = tf.train.GradientDescentOptimizer(learning_rate=0.05)
    for i in range(num_gpus):  # expect: tower-loop
        with tf.device(f"/gpu:{i}"):
            _x = X[i * batch_size : (i + 1) * batch_size]
            _y = Y[i * batch_size : (i + 1) * batch_size]
            with tf.variable_scope("net", reuse=i > 0):
                w = tf.get_variable("w", [784, 10], initializer=tf.zeros_initializer())
                logits = tf.matmul(_x, w)
            loss_op = tf.reduce_mean(
                tf.nn.softmax_cross_entropy_with_logits(logits=logits, labels=_y)
            )
            tower_grads.append(optimizer.compute_gradients(loss_op))
    train_op = optimizer.apply_gradients(average_gradients(tower_grads))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(1, 4):
            batch_x, batch_y = mnist.train.next_batch(batch_size * num_gpus)
            _, loss = sess.run([train_op, loss_op], feed_dict={X: batch_x, Y: batch_y})
            print(f"loss {step} {loss:.6f}")
        print("devices", sorted({op.device for op in sess.graph.get_operations()}))
