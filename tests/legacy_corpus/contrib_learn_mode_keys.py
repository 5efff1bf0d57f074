"""One graph builder for the train, eval and infer graphs, keyed by
tf.contrib.learn.ModeKeys (dropout only in TRAIN, labels only outside INFER).

Runs on TF 1.x (tf.contrib); after `emg-migrate --fix` it runs on TF 2.x:
ModeKeys, by any spelling, becomes emg.estimator.LearnModeKeys (the same
TRAIN, EVAL and INFER strings).
Usage: python contrib_learn_mode_keys.py
"""

import numpy as np
import tensorflow as tf
from tensorflow.contrib.learn import ModeKeys
from tensorflow.contrib.learn.python.learn.estimators import model_fn


def build(mode):
    features = tf.placeholder(tf.float32, [None, 3])
    keep = 0.5 if mode == tf.contrib.learn.ModeKeys.TRAIN else 1.0  # expect: contrib
    hidden = tf.layers.dense(features, 4, name="hidden")  # expect: layers
    hidden = tf.nn.dropout(hidden, keep)
    logits = tf.layers.dense(hidden, 2, name="logits")  # expect: layers
    if mode == ModeKeys.INFER:  # expect: contrib
        return features, None, tf.argmax(logits, 1)
    labels = tf.placeholder(tf.int64, [None])
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    return features, labels, loss


def main():
    x = np.ones((2, 3), np.float32)
    for mode in (
        model_fn.ModeKeys.TRAIN,  # expect: contrib
        model_fn.ModeKeys.EVAL,  # expect: contrib
        tf.contrib.learn.ModeKeys.INFER,  # expect: contrib
    ):
        with tf.Graph().as_default():
            tf.set_random_seed(1)
            features, labels, out = build(mode)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                feed = {features: x}
                if labels is not None:
                    feed[labels] = [0, 1]
                print(mode, sess.run(out, feed).shape)


if __name__ == "__main__":
    main()
