"""Input of a two-file program: an image summary of each example before the batch.

The summary cannot move into a tf.data map function, so this chain stays a
queue after --fix; records_eval.py starts its queue runners.
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf

SIZE = 4


def write_data(data_dir, count=6):
    rng = np.random.RandomState(3)
    path = os.path.join(data_dir, "records.bin")
    labels = rng.randint(0, 10, size=(count, 1))
    pixels = rng.randint(0, 256, size=(count, SIZE * SIZE))
    np.concatenate([labels, pixels], axis=1).astype(np.uint8).tofile(path)
    return [path]


def inputs(filenames, batch_size):
    filename_queue = tf.train.string_input_producer(filenames, num_epochs=1, shuffle=False)
    reader = tf.FixedLengthRecordReader(record_bytes=1 + SIZE * SIZE)
    _, value = reader.read(filename_queue)
    record = tf.decode_raw(value, tf.uint8)
    label = tf.cast(record[0], tf.int32)
    image = tf.reshape(tf.cast(record[1:], tf.float32), [SIZE, SIZE, 1])
    tf.summary.image("example", image[None])
    return tf.train.batch([image, label], batch_size=batch_size, allow_smaller_final_batch=True)
