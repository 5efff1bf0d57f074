"""In-memory arrays through slice_input_producer and range_input_producer.

Usage: python numpy_slice_producer.py DATA_DIR   (DATA_DIR is unused)
"""

import sys

import numpy as np
import tensorflow.compat.v1 as tf
from tensorflow.compat.v1.train import batch, slice_input_producer


def array_input(images, labels, batch_size):
    image, label = slice_input_producer(  # expect: queue-producer
        [images, labels], num_epochs=1, shuffle=False
    )
    image = tf.cast(image, tf.float32) * 2.0
    return batch([image, label], batch_size=batch_size, allow_smaller_final_batch=True)  # expect: queue-batcher


def index_input(limit, batch_size):
    index = tf.train.range_input_producer(limit, num_epochs=2, shuffle=False).dequeue()  # expect: queue-producer
    squared = index * index
    return tf.train.batch([squared], batch_size)  # expect: queue-batcher


def kept_input(values, batch_size):
    (value,) = tf.train.slice_input_producer([values], num_epochs=1, shuffle=False)  # expect: queue-producer
    doubled = value * 2
    return tf.train.maybe_batch(  # expect: queue-batcher
        [doubled],
        keep_input=tf.equal(doubled % 4, 0),
        batch_size=batch_size,
        allow_smaller_final_batch=True,
    )


def run_until_done(sess, tensors):
    try:
        while True:
            print("value", sess.run(tensors))
    except tf.errors.OutOfRangeError:
        print("done")


def main(_):
    images = np.arange(14, dtype=np.int32).reshape(7, 2)
    labels = np.arange(7, dtype=np.int64) % 2
    with tf.Graph().as_default():
        image_batch, label_batch = array_input(images, labels, batch_size=3)
        squares = index_input(5, batch_size=3)
        evens = kept_input(np.arange(9, dtype=np.int32), batch_size=2)
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            threads = tf.train.start_queue_runners(sess)  # expect: queue-runner
            run_until_done(sess, [image_batch, label_batch])
            run_until_done(sess, squares)
            run_until_done(sess, evens)


if __name__ == "__main__":
    main(sys.argv[1:])
