"""A character model of the char-RNN era: --model picks the cell, and one
choice, NAS, is a research cell only tf.contrib had (no TF 2 successor);
--reduce=nccl sums the towers' values with contrib's NCCL all-reduce, which
has no public TF 2 name either.

On TF 2.x the module-level contrib import fails for every --model; after
`emg-migrate --fix` the module imports, the default path (an LSTM, summed
with add_n) runs, and --model=nas or --reduce=nccl stops where it reaches
the name, with what to do.
Usage: python contrib_gone.py [--model=lstm|nas] [--reduce=sum|nccl]
"""

import argparse

import numpy as np
import tensorflow as tf
from tensorflow.contrib import rnn


def cell_for(model, size):
    if model == "lstm":
        return rnn.BasicLSTMCell(size)  # expect: contrib
    if model == "nas":
        return rnn.NASCell(size)  # expect: contrib
    raise ValueError(f"--model={model}: one of lstm, nas")


def all_sum(values, how):
    if how == "nccl":
        return tf.contrib.nccl.all_sum(values)  # expect: contrib
    return [tf.add_n(values)] * len(values)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="lstm")
    parser.add_argument("--reduce", default="sum")
    args = parser.parse_args()
    with tf.Graph().as_default():
        inputs = tf.constant(np.ones((2, 3, 4), np.float32))
        cell = cell_for(args.model, 5)
        outputs, _ = tf.nn.dynamic_rnn(cell, inputs, dtype=tf.float32)
        towers = [tf.reduce_sum(outputs), tf.reduce_sum(outputs)]
        summed = all_sum(towers, args.reduce)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            print("outputs", outputs.shape.as_list(), "towers", len(sess.run(summed)))


if __name__ == "__main__":
    main()
