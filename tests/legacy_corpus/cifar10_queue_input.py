"""CIFAR-10 binary input with queues, in the style of the TF 1.x tutorial.

Usage: python cifar10_queue_input.py DATA_DIR
Writes two tiny CIFAR-10 binary files into DATA_DIR, reads them back through
the queue pipeline and prints one line per example.
"""

import os
import sys

import numpy as np
import tensorflow.compat.v1 as tf

IMAGE_SIZE = 8
NUM_CLASSES = 10
BATCH_SIZE = 4


def write_data(data_dir, num_files=2, per_file=6):
    rng = np.random.RandomState(0)
    filenames = []
    for i in range(num_files):
        labels = rng.randint(0, NUM_CLASSES, size=(per_file, 1)).astype(np.uint8)
        images = rng.randint(0, 256, size=(per_file, 3 * IMAGE_SIZE * IMAGE_SIZE))
        path = os.path.join(data_dir, "data_batch_%d.bin" % (i + 1))
        np.concatenate([labels, images.astype(np.uint8)], axis=1).tofile(path)
        filenames.append(path)
    return filenames


def inputs(filenames, batch_size):
    """Constructs input for CIFAR evaluation using the Reader ops."""
    label_bytes = 1
    image_bytes = IMAGE_SIZE * IMAGE_SIZE * 3
    record_bytes = label_bytes + image_bytes

    # Create a queue that produces the filenames to read.
    filename_queue = tf.train.string_input_producer(  # expect: queue-producer
        filenames, num_epochs=1, shuffle=False
    )
    reader = tf.FixedLengthRecordReader(record_bytes=record_bytes)  # expect: queue-reader
    key, value = reader.read(filename_queue)

    # Convert from a string to a vector of uint8 that is record_bytes long.
    record = tf.decode_raw(value, tf.uint8)
    label = tf.cast(tf.strided_slice(record, [0], [label_bytes]), tf.int32)
    depth_major = tf.reshape(
        tf.strided_slice(record, [label_bytes], [record_bytes]),
        [3, IMAGE_SIZE, IMAGE_SIZE],
    )
    uint8image = tf.transpose(depth_major, [1, 2, 0])
    float_image = tf.cast(uint8image, tf.float32) / 255.0
    float_image.set_shape([IMAGE_SIZE, IMAGE_SIZE, 3])
    label.set_shape([1])

    num_preprocess_threads = 1
    images, label_batch = tf.train.batch(  # expect: queue-batcher
        [float_image, label],
        batch_size=batch_size,
        num_threads=num_preprocess_threads,
        capacity=3 * batch_size,
    )
    return images, tf.reshape(label_batch, [batch_size])


def main(data_dir):
    filenames = write_data(data_dir)
    with tf.Graph().as_default():
        images, labels = inputs(filenames, BATCH_SIZE)
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            coord = tf.train.Coordinator()  # expect: queue-runner
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)  # expect: queue-runner
            try:
                while not coord.should_stop():
                    image_batch, label_batch = sess.run([images, labels])
                    print("batch", image_batch.shape, label_batch.shape)
                    for image, label in zip(image_batch, label_batch):
                        pixels = int(np.round(image * 255.0).sum())
                        print("example", int(label), pixels)
            except tf.errors.OutOfRangeError:
                print("done")
            finally:
                coord.request_stop()
            coord.join(threads)


if __name__ == "__main__":
    main(sys.argv[1])
