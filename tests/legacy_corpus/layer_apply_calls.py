"""Keras layers called through TF 1.x's Layer.apply, beside other `apply`s.

Runs on TF 1.x; after `emg-migrate --fix` it runs on TF 2.x: each
`layer.apply(x)` whose receiver is provably a layer (a layer class, a
functools.partial of one picked from a dict, a function returning a
Sequential, a name bound to a layer) becomes `layer(x)`; the moving
average's and the dataset's `apply` stay.
Usage: python layer_apply_calls.py
"""

import functools

import numpy as np
import tensorflow as tf


def stacked(units, **kwargs):
    block = tf.keras.Sequential([tf.keras.layers.Dense(units, **kwargs)])
    return block


LAYERS = {
    "dense": functools.partial(tf.keras.layers.Dense, use_bias=False),
    "stacked": functools.partial(stacked, use_bias=False),
}


def net(images, kind):
    ones = tf.keras.initializers.Ones()
    x = tf.keras.layers.Flatten().apply(images)
    x = LAYERS[kind](3, kernel_initializer=ones).apply(x)
    top = tf.keras.layers.Dense(1, kernel_initializer=ones, use_bias=False)
    return top.apply(x)


def main():
    with tf.Graph().as_default():
        images = tf.placeholder(tf.float32, [None, 2, 2])
        outputs = [net(images, kind) for kind in ("dense", "stacked")]
        step = tf.Variable(0.0)
        ema = tf.train.ExponentialMovingAverage(0.5)
        average = ema.apply([step])
        rows = tf.data.Dataset.from_tensors([[1, 2], [3, 4]]).apply(
            tf.data.experimental.unbatch()
        )
        row = tf.data.make_one_shot_iterator(rows).get_next()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            feed = {images: np.ones([1, 2, 2], np.float32)}
            print("outputs", [sess.run(o, feed).tolist() for o in outputs])
            sess.run(average)
            print("row", sess.run(row).tolist())


if __name__ == "__main__":
    main()
