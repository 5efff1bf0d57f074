"""Towers placed by a tf.DeviceSpec, each with its own tf.data pipeline.

`with tf.device(tf.DeviceSpec(device_type="GPU", device_index=i))` names GPU
i as a DeviceSpec rather than a string; each tower reads a Dataset through
tf.contrib.data's shuffle_and_repeat and prefetch_to_device('/gpu:{}'), and
the towers' losses are averaged and minimized. `emg-migrate --fix` rewrites
both GPU names to emg.devices.resolve(num_gpus=N)[i] and the contrib
functions to their tf.data.experimental successors (the same arguments), so
the loop runs on 1 or N simulated devices on a machine without GPUs.
Usage: python tower_loop_device_spec.py [--num_gpus=N]
"""

import argparse

import numpy as np
import tensorflow as tf
from tensorflow.contrib.data import prefetch_to_device, shuffle_and_repeat


def build(num_gpus):
    values = np.arange(1, 9, dtype=np.float32)
    losses, batches = [], []
    for i in range(num_gpus):  # expect: tower-loop
        with tf.device(tf.DeviceSpec(device_type="GPU", device_index=i)):
            with tf.variable_scope(tf.get_variable_scope(), reuse=(i > 0)):
                device = "/gpu:{}".format(i)
                data = tf.data.Dataset.from_tensor_slices(values)
                data = data.apply(shuffle_and_repeat(8, seed=i))  # expect: contrib
                data = data.batch(4, drop_remainder=True)
                data = data.apply(prefetch_to_device(device, None))  # expect: contrib
                batch = data.make_one_shot_iterator().get_next()
                w = tf.get_variable("w", initializer=tf.constant(2.0))
                losses.append(tf.reduce_mean(tf.square(w * batch - batch)))
                batches.append(batch)
    loss = tf.reduce_mean(losses)
    train = tf.train.GradientDescentOptimizer(0.01).minimize(
        loss, colocate_gradients_with_ops=num_gpus > 1
    )
    return loss, train, tf.concat(batches, 0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_gpus", type=int, default=2)
    num_gpus = parser.parse_args().num_gpus
    loss, train, batch = build(num_gpus)
    config = tf.ConfigProto(allow_soft_placement=True)
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss)
        for _ in range(20):
            sess.run(train)
        values = sess.run(batch).tolist()
        print("batch", len(values), set(values) <= set(range(1, 9)))
        print("improved", sess.run(loss) < first)
        towers = {op.device.rsplit("/", 1)[-1] for op in
                  tf.get_default_graph().get_operations() if op.type == "Square"}
        print("towers", sorted(towers))


if __name__ == "__main__":
    main()
