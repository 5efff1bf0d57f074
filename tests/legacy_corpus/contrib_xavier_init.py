"""A layer's weights made with tf.contrib.layers.xavier_initializer, the
Glorot initializer TF 1.x code of the era wrote everywhere.

contrib's uniform (default) form is tf.compat.v1.glorot_uniform_initializer:
the same limit sqrt(6 / (fan_in + fan_out)); after `emg-migrate --fix` each
call is that one, its seed and dtype kept by keyword.
Usage: python contrib_xavier_init.py
"""

import numpy as np
import tensorflow as tf


def main():
    with tf.Graph().as_default():
        w = tf.get_variable(
            "w",
            [300, 100],
            initializer=tf.contrib.layers.xavier_initializer(),  # expect: contrib
        )
        v = tf.get_variable(
            "v",
            [50, 50],
            initializer=tf.contrib.layers.xavier_initializer(  # expect: contrib
                True, 7
            ),
        )
        u = tf.get_variable(
            "u",
            [4, 4],
            initializer=tf.contrib.layers.xavier_initializer(  # expect: contrib
                uniform=True, seed=3, dtype=tf.float32
            ),
        )
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            w_, v_, u_ = sess.run([w, v, u])
    limit = np.sqrt(6.0 / 400)
    print(
        "w within limit",
        bool(np.abs(w_).max() <= limit),
        "spread",
        bool(w_.std() > limit / 2),
    )
    print("v within limit", bool(np.abs(v_).max() <= np.sqrt(6.0 / 100)))
    print("u", u_.dtype, u_.shape)


if __name__ == "__main__":
    main()
