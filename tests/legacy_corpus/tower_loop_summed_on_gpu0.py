"""A tower loop written by hand whose gradients are summed on the first GPU.

Each tower is fed its own placeholder and takes `tf.gradients` of its loss;
after the loop, `with tf.device('/gpu:0'):` adds the towers' gradients and
applies them with a hand-written momentum update (its own slot variables
made there). `emg-migrate --fix` leaves the loop for a hand rewrite but names
its devices by emg.devices.resolve(num_gpus=N)[i] - and the first GPU's block
after it by [0], so it runs on a machine without GPUs.
Usage: python tower_loop_summed_on_gpu0.py [--num_gpus=N]
"""

import argparse

import numpy as np
import tensorflow as tf

parser = argparse.ArgumentParser()
parser.add_argument("--num_gpus", type=int, default=1)
args = parser.parse_args()


def momentum_updates(params, grads, lr=0.1, mom=0.9):
    updates = []
    for p, g in zip(params, grads):
        v = tf.Variable(tf.zeros(p.get_shape()), trainable=False)
        v_t = mom * v + g
        updates.append(v.assign(v_t))
        updates.append(p.assign_sub(lr * v_t))
    return tf.group(*updates)


w = tf.get_variable("w", [3, 1], initializer=tf.ones_initializer())
xs = [tf.placeholder(tf.float32, [4, 3]) for i in range(args.num_gpus)]
ys = [tf.placeholder(tf.float32, [4, 1]) for i in range(args.num_gpus)]
losses, grads = [], []
for i in range(args.num_gpus):  # expect: tower-loop
    with tf.device("/gpu:%d" % i):
        losses.append(tf.reduce_mean(tf.square(tf.matmul(xs[i], w) - ys[i])))
        grads.append(tf.gradients(losses[i], [w]))
with tf.device("/gpu:0"):
    for i in range(1, args.num_gpus):
        losses[0] += losses[i]
        for j in range(len(grads[0])):
            grads[0][j] += grads[i][j]
    train_op = momentum_updates([w], [g / args.num_gpus for g in grads[0]])
loss = losses[0] / args.num_gpus

rng = np.random.RandomState(0)
x = rng.randn(4, 3).astype(np.float32)
y = rng.randn(4, 1).astype(np.float32)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(3):
        # Every tower takes the same 4 examples: the step is the same on N.
        feed = {p: x[:4] for p in xs}
        feed.update({p: y[:4] for p in ys})
        value, _ = sess.run([loss, train_op], feed)
        print("loss %d %.6f" % (step, value))
