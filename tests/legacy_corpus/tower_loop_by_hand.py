"""Evaluation towers written by hand: each GPU scores its slice of the batch.

The loops have no optimizer for emg.TowerOptimizer, so `emg-migrate --fix`
leaves them for a hand rewrite; it rewrites their GPU names (every spelling:
%, .format, f-string, /device:GPU, concatenation) to
emg.devices.resolve(num_gpus=N)[i], so they run on a machine without GPUs, on
1 or N simulated devices, where '/gpu:0' fails ("Cannot assign a device").
Usage: python tower_loop_by_hand.py [--num_gpus=N]
"""

import argparse

import numpy as np
import tensorflow as tf


def model(x):
    with tf.variable_scope("model", reuse=tf.AUTO_REUSE):
        w = tf.get_variable("w", initializer=tf.constant([[1.0], [2.0]]))
    return tf.matmul(x, w)


def scores_percent(batches, num_gpus):
    out = []
    for i in range(num_gpus):  # expect: tower-loop
        with tf.device("/gpu:%d" % i):
            out.append(model(batches[i]))
    return out


def scores_format(batches, num_gpus):
    out = []
    for i in range(num_gpus):  # expect: tower-loop
        with tf.device("/gpu:{}".format(i)):
            out.append(model(batches[i]) + 1.0)
    return out


def scores_fstring(batches, num_gpus):
    out = []
    for i in range(num_gpus):  # expect: tower-loop
        with tf.device(f"/gpu:{i}"):
            out.append(model(batches[i]) + 2.0)
    return out


def scores_device_gpu(batches, num_gpus):
    out = []
    for i in range(num_gpus):  # expect: tower-loop
        device = "/device:GPU:%d" % i
        with tf.device(device):
            out.append(model(batches[i]) + 3.0)
    return out


def scores_concat(batches, num_gpus):
    out = []
    for i in range(num_gpus):  # expect: tower-loop
        with tf.device("/gpu:" + str(i)):
            out.append(model(batches[i]) + 4.0)
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_gpus", type=int, default=2)
    num_gpus = parser.parse_args().num_gpus
    x = tf.constant(np.arange(8, dtype=np.float32).reshape(4, 2))
    batches = tf.split(x, num_gpus)
    forms = [
        scores_percent,
        scores_format,
        scores_fstring,
        scores_device_gpu,
        scores_concat,
    ]
    results = [tf.concat(form(batches, num_gpus), 0) for form in forms]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for form, result in zip(forms, results):
            print(form.__name__, sess.run(result).ravel().tolist())
        towers = {op.device for op in tf.get_default_graph().get_operations()
                  if op.type == "MatMul"}
        print("towers", len(towers))


if __name__ == "__main__":
    main()
