"""A language model's recurrent core on tf.contrib.rnn cells, as PTB-era scripts build it.

After `emg-migrate --fix` each cell and wrapper is its tf.compat.v1.nn.rnn_cell
name and static_rnn is tf.compat.v1.nn.static_rnn (TF 2.16+ serves the cells
from tf-keras: pip install tf-keras, run with TF_USE_LEGACY_KERAS=1).
Usage: TF_USE_LEGACY_KERAS=1 python contrib_rnn_cells.py
"""

import numpy as np
import tensorflow as tf
from tensorflow.contrib import rnn


def main():
    with tf.Graph().as_default():
        inputs = tf.constant(np.ones((2, 3, 4), np.float32))
        cells = [rnn.LSTMCell(5), rnn.GRUCell(5)]  # expect: contrib, contrib
        cell = rnn.MultiRNNCell(cells)  # expect: contrib
        wrapped = tf.contrib.rnn.DropoutWrapper(cell, output_keep_prob=1.0)  # expect: contrib
        outputs, state = tf.nn.dynamic_rnn(wrapped, inputs, dtype=tf.float32)
        steps = tf.unstack(inputs, axis=1)
        with tf.variable_scope("static"):
            simple = rnn.BasicRNNCell(3)  # expect: contrib
            static, _ = tf.contrib.rnn.static_rnn(simple, steps, dtype=tf.float32)  # expect: contrib
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            print("outputs", list(sess.run(outputs).shape))
            print("state", len(state), type(state[0]).__name__)
            print("static", len(static), list(sess.run(static[0]).shape))


if __name__ == "__main__":
    main()
