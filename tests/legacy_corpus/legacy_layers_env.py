"""A TF 1.x graph-mode classifier built with tf.layers and an RNN cell of
tf.nn.rnn_cell, run with a Session.

On TF 2.16+ both come from tf-keras, and only with TF_USE_LEGACY_KERAS=1;
`emg-migrate --fix` ports the module onto tf.compat.v1 and sets the variable
before its TensorFlow import, so the script runs without it in the shell.
Usage: python legacy_layers_env.py
"""

import numpy as np
import tensorflow as tf  # port: compat-v1


def model(inputs, sequence):
    hidden = tf.layers.dense(inputs, 8, activation=tf.nn.relu)  # expect: layers  # port: layers
    hidden = tf.layers.dropout(hidden, rate=0.0)  # expect: layers  # port: layers
    cell = tf.nn.rnn_cell.BasicLSTMCell(4)
    _, state = tf.nn.dynamic_rnn(cell, sequence, dtype=tf.float32)
    both = tf.concat([hidden, state.h], axis=1)
    return tf.layers.dense(both, 2, name="logits")  # expect: layers  # port: layers


def main():
    rng = np.random.RandomState(0)
    features = rng.randn(16, 3).astype(np.float32)
    steps = rng.randn(16, 5, 2).astype(np.float32)
    labels = (features[:, 0] > 0).astype(np.int64)
    with tf.Graph().as_default():
        tf.set_random_seed(0)
        x = tf.placeholder(tf.float32, [None, 3])
        s = tf.placeholder(tf.float32, [None, 5, 2])
        y = tf.placeholder(tf.int64, [None])
        logits = model(x, s)
        loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
        train = tf.train.AdamOptimizer(0.05).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            feed = {x: features, s: steps, y: labels}
            for step in range(3):
                value, _ = sess.run([loss, train], feed)
                print("step %d loss %.4f" % (step, value))


if __name__ == "__main__":
    main()
