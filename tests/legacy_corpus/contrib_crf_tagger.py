"""A CRF tagging loss and its decoding through tf.contrib.crf, in a graph.

Runs on TF 1.x (tf.contrib); after `emg-migrate --fix` it runs on TF 2.x:
every tf.contrib.crf name has an emg.crf drop-in with its arguments.
Usage: python contrib_crf_tagger.py
"""

import numpy as np
import tensorflow as tf


def main():
    unary = np.array([[[2.0, 0.0], [0.0, 1.0], [1.0, 0.0]]], np.float32)
    with tf.Graph().as_default():
        logits = tf.constant(unary)
        lengths = tf.constant([3])
        tags = tf.constant([[0, 1, 0]])
        with tf.variable_scope("crf"):
            log_likelihood, transitions = tf.contrib.crf.crf_log_likelihood(  # expect: contrib
                logits, tags, lengths)
        best, score = tf.contrib.crf.crf_decode(logits, transitions, lengths)  # expect: contrib
        with tf.Session() as sess:
            sess.run(tf.assign(transitions, tf.zeros([2, 2])))
            ll, best, score, matrix = sess.run([log_likelihood, best, score, transitions])
    path, _ = tf.contrib.crf.viterbi_decode(unary[0], matrix)  # expect: contrib
    print("transitions", transitions.name)
    print("log_likelihood %.4f" % ll[0])
    print("decode", best.tolist(), "%.1f" % score[0])
    print("viterbi", [int(t) for t in path])


if __name__ == "__main__":
    main()
