"""The entry file: parses --num_gpus, makes the session with its own
ConfigProto, and only then builds the towers of model.py.

After `emg-migrate --fix` on both files, the towers are on
emg.devices.resolve(num_gpus=self.num_gpus)[i]; a session made from its own
ConfigProto before that sees one CPU, so this file resolves the devices
right after the flags are parsed and its session config keeps them: tower i
runs on device i. Usage: python main.py [--num_gpus=N]
"""

import argparse

import tensorflow as tf  # expect: compat-v1

from model import Model


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_gpus", type=int, default=2, help="towers")
    return parser.parse_args()


def main():
    args = parse_args()
    if args is None:
        exit()
    config = tf.ConfigProto(allow_soft_placement=True)
    with tf.Session(config=config) as sess:
        model = Model(sess, args)
        model.build()
        sess.run(tf.global_variables_initializer())
        first = sess.run(model.loss)
        meta = tf.RunMetadata()
        trace = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
        for _ in range(10):
            sess.run(model.train, options=trace, run_metadata=meta)
        print("improved", sess.run(model.loss) < first)
        ran = sorted({d.device.rsplit("/", 1)[-1] for d in meta.step_stats.dev_stats})
        print("ran on", ran)


if __name__ == "__main__":
    main()
