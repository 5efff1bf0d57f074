"""A reader whose batcher depends on a flag, all inline (common in TF1 code).

Usage: python branching_batchers.py DATA_DIR
"""

import os
import sys

import numpy as np
import tensorflow.compat.v1 as tf

RECORD = 5


def write_data(data_dir):
    path = os.path.join(data_dir, "records.bin")
    np.arange(7 * RECORD, dtype=np.uint8).tofile(path)
    return [path]


def load(filenames, batch_size, shuffle):
    with tf.name_scope("input"):
        input_queue = tf.train.string_input_producer(filenames, num_epochs=2, shuffle=False)  # expect: queue-producer
        reader = tf.FixedLengthRecordReader(RECORD)  # expect: queue-reader
        key, value = reader.read(input_queue)
        record = tf.decode_raw(value, tf.uint8)
        label = tf.cast(record[0], tf.int32)
#        features = tf.image.random_flip_left_right(features)  (disabled)
        features = tf.cast(record[1:], tf.float32) / 2.0
        features.set_shape([RECORD - 1])

        if shuffle:
            feature_batch, label_batch = tf.train.shuffle_batch(  # expect: queue-batcher
                [features, label], batch_size=batch_size, capacity=20, min_after_dequeue=5
            )
        else:
            feature_batch, label_batch = tf.train.batch(  # expect: queue-batcher
                [features, label], batch_size=batch_size, capacity=20
            )
        label_batch = tf.one_hot(label_batch, depth=40)
        return feature_batch, tf.argmax(label_batch, axis=1)


def main(data_dir):
    filenames = write_data(data_dir)
    with tf.Graph().as_default():
        features, labels = load(filenames, batch_size=3, shuffle=False)
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            tf.train.start_queue_runners(sess)  # expect: queue-runner
            try:
                while True:
                    f, l = sess.run([features, labels])
                    print("batch", f.shape, l.shape)
                    for row, label in zip(f, l):
                        print("example", row.tolist(), int(label))
            except tf.errors.OutOfRangeError:
                print("done")


if __name__ == "__main__":
    main(sys.argv[1])
