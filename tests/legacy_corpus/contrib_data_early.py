"""The early tf.contrib.data input pipeline (TF 1.2-1.3): Dataset, Iterator
and the file datasets from tensorflow.contrib.data, map's num_threads and
output_buffer_size, the dense_to_sparse_batch method, and a reinitializable
iterator for training and validation data.

Runs on TF 1.2/1.3; after `emg-migrate --fix` it runs on TF 2.x: each name
has its tf.compat.v1.data successor, map takes num_parallel_calls and
dense_to_sparse_batch is sparse_batch.
Usage: python contrib_data_early.py
"""

import os
import tempfile

import numpy as np
import tensorflow as tf
from tensorflow.contrib.data import Dataset, Iterator, TextLineDataset


def pairs(first, second):
    return first, second


def main():
    folder = tempfile.mkdtemp()
    text, binary = os.path.join(folder, "a.txt"), os.path.join(folder, "a.bin")
    with open(text, "w") as f:
        f.write("a 1\nb 2\n")
    with open(binary, "wb") as f:
        f.write(b"abcdefgh")

    even, odd = np.arange(0, 8, 2), np.arange(1, 8, 2)
    train = Dataset.from_tensor_slices((even, odd))  # expect: contrib
    train = train.map(pairs, num_threads=2, output_buffer_size=4).batch(2)  # expect: dataset-map-args
    valid = Dataset.from_tensor_slices((odd[:2], np.zeros(2, np.int64))).batch(2)  # expect: contrib
    iterator = Iterator.from_structure(train.output_types, train.output_shapes)  # expect: contrib
    next_batch = iterator.get_next()
    train_init = iterator.make_initializer(train)
    valid_init = iterator.make_initializer(valid)

    lines = TextLineDataset(text).batch(2).make_one_shot_iterator().get_next()  # expect: contrib
    records = tf.contrib.data.FixedLengthRecordDataset(binary, 4).batch(2)  # expect: contrib
    record_batch = records.make_one_shot_iterator().get_next()
    sparse = Dataset.range(1, 3).map(lambda n: tf.fill([n], n))  # expect: contrib
    sparse = sparse.dense_to_sparse_batch(2, [2])  # expect: dataset-sparse-batch
    sparse_batch = sparse.make_one_shot_iterator().get_next()

    with tf.Session() as sess:
        sess.run(train_init)
        for _ in range(2):
            a, b = sess.run(next_batch)
            print("train", a.tolist(), b.tolist())
        print("lines", sess.run(lines).tolist())
        print("records", sess.run(record_batch).tolist())
        value = sess.run(sparse_batch)
        print("sparse", value.indices.tolist(), value.values.tolist())
        sess.run(valid_init)
        a, b = sess.run(next_batch)
        print("valid", a.tolist(), b.tolist())


if __name__ == "__main__":
    main()
