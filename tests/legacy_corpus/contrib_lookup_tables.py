"""Vocabulary tables of tf.contrib.lookup in a graph, with contrib HParams.

Runs on TF 1.x (tf.contrib); after `emg-migrate --fix` it runs on TF 2.x:
every lookup builder has an emg.inputs.lookup drop-in with its arguments,
and HParams imported by its module path becomes emg.estimator.HParams.
Usage: python contrib_lookup_tables.py DATA_DIR
"""

import os
import sys

import tensorflow as tf
from tensorflow.contrib.lookup import lookup_ops
from tensorflow.contrib.training.python.training import hparam


def main(data_dir):
    vocab = os.path.join(data_dir, "vocab.words.txt")
    with open(vocab, "w") as f:
        f.write("New\nLondon\nYork\n")
    params = hparam.HParams(lstm_size=4, dropout=0.5)  # expect: contrib-learn
    with tf.Graph().as_default():
        words = tf.contrib.lookup.index_table_from_file(  # expect: contrib
            vocab, num_oov_buckets=1)
        tags = lookup_ops.index_table_from_tensor(  # expect: contrib
            tf.constant(["O", "B", "I"]), default_value=-1)
        names = tf.contrib.lookup.index_to_string_table_from_file(vocab)  # expect: contrib
        ids = tf.contrib.lookup.string_to_index(  # expect: contrib
            tf.constant(["B", "X"]), mapping=tf.constant(["O", "B"]))
        strings = tf.contrib.lookup.index_to_string(  # expect: contrib
            tf.constant([1, 9], tf.int64), mapping=tf.constant(["O", "B"]))
        with tf.Session() as sess:
            sess.run(tf.tables_initializer())
            print("words", sess.run(words.lookup(tf.constant(["New", "York", "Paris"]))).tolist())
            print("tags", sess.run(tags.lookup(tf.constant(["B", "O", "I"]))).tolist())
            print("names", sess.run(names.lookup(tf.constant([2, 7], tf.int64))).tolist())
            print("mapped", sess.run(ids).tolist(), sess.run(strings).tolist())
    print("hparams", params.lstm_size, params.dropout)


if __name__ == "__main__":
    main(sys.argv[1])
