"""A module-level tower loop that slices the fed batch per tower (MNIST multi-GPU example shape).

Each tower takes `X[i * batch_size:(i + 1) * batch_size]` of placeholders fed
`batch_size * num_gpus` examples, builds its optimizer in the loop, passes a
`reuse` flag set to True after the first tower, and computes the accuracy in
tower 0 only; a device function keeps the variables on the CPU.
Usage: python tower_loop_slices.py WORKDIR [NUM_GPUS]
"""

import sys

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
num_gpus = int(sys.argv[2]) if len(sys.argv) > 2 else 2
batch_size = 4 // num_gpus  # Per GPU.
PS_OPS = ["Variable", "VariableV2", "AutoReloadVariable", "VarHandleOp"]


def assign_to_device(device, ps_device="/cpu:0"):
    def _assign(op):
        node_def = op if isinstance(op, tf.NodeDef) else op.node_def
        if node_def.op in PS_OPS:
            return ps_device
        return device

    return _assign


def net(x, reuse):
    with tf.variable_scope("net", reuse=reuse):
        w = tf.get_variable("w", [4, 3], initializer=tf.ones_initializer())
        b = tf.get_variable("b", [3], initializer=tf.zeros_initializer())
        return tf.matmul(x, w) + b


def average_gradients(tower_grads):  # expect: tower-loop
    average_grads = []
    for grad_and_vars in zip(*tower_grads):
        grads = []
        for g, _ in grad_and_vars:
            grads.append(tf.expand_dims(g, 0))
        grad = tf.reduce_mean(tf.concat(grads, 0), 0)
        average_grads.append((grad, grad_and_vars[0][1]))
    return average_grads


with tf.device("/cpu:0"):
    tower_grads = []
    reuse_vars = False
    X = tf.placeholder(tf.float32, [None, 4])
    Y = tf.placeholder(tf.float32, [None, 3])
    for i in range(num_gpus):  # expect: tower-loop
        with tf.device(assign_to_device("/gpu:{}".format(i), ps_device="/cpu:0")):
            # Split data between GPUs
            _x = X[i * batch_size : (i + 1) * batch_size]
            _y = Y[i * batch_size : (i + 1) * batch_size]
            logits_train = net(_x, reuse=reuse_vars)
            logits_test = net(_x, reuse=True)
            loss_op = tf.reduce_mean(
                tf.nn.softmax_cross_entropy_with_logits(logits=logits_train, labels=_y)
            )
            optimizer = tf.train.GradientDescentOptimizer(learning_rate=0.5)
            grads = optimizer.compute_gradients(loss_op)
            # Only the first GPU computes the accuracy.
            if i == 0:
                correct_pred = tf.equal(tf.argmax(logits_test, 1), tf.argmax(_y, 1))
                accuracy = tf.reduce_mean(tf.cast(correct_pred, tf.float32))
            reuse_vars = True
            tower_grads.append(grads)
    tower_grads = average_gradients(tower_grads)
    train_op = optimizer.apply_gradients(tower_grads)
    init = tf.global_variables_initializer()
    rng = np.random.RandomState(0)
    batch_x = rng.randn(batch_size * num_gpus, 4).astype(np.float32)
    batch_y = np.eye(3, dtype=np.float32)[rng.randint(0, 3, batch_size * num_gpus)]
    config = tf.ConfigProto(allow_soft_placement=True)
    with tf.Session(config=config) as sess:
        sess.run(init)
        for step in range(1, 4):
            feed = {X: batch_x, Y: batch_y}
            _, loss = sess.run([train_op, loss_op], feed_dict=feed)
            print("loss %d %.6f" % (step, loss))
        acc = sess.run(accuracy, feed_dict={X: batch_x, Y: batch_y})
        print("accuracy of tower 0 %.3f" % acc)
        print("w", " ".join("%.6f" % v for v in sess.run("net/w:0").ravel()))
