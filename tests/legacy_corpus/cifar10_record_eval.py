"""CIFAR-10 evaluation input with a record-object reader, tutorial style.

read_cifar10 returns an empty-class record whose attributes hold the fields;
the eval loop starts the graph's queue runners' threads by hand.
Usage: python cifar10_record_eval.py DATA_DIR
"""

import os
import sys

import numpy as np
import tensorflow.compat.v1 as tf

IMAGE_SIZE = 8
BATCH_SIZE = 4


def write_data(data_dir, per_file=6):
    rng = np.random.RandomState(1)
    labels = rng.randint(0, 10, size=(per_file, 1)).astype(np.uint8)
    images = rng.randint(0, 256, size=(per_file, 3 * IMAGE_SIZE * IMAGE_SIZE))
    path = os.path.join(data_dir, "test_batch.bin")
    np.concatenate([labels, images.astype(np.uint8)], axis=1).tofile(path)
    return [path]


def read_cifar10(filename_queue):
    """Reads one record; returns an object with its fields."""

    class CIFAR10Record(object):
        pass

    result = CIFAR10Record()
    label_bytes = 1
    result.height = IMAGE_SIZE
    result.width = IMAGE_SIZE
    result.depth = 3
    image_bytes = result.height * result.width * result.depth
    reader = tf.FixedLengthRecordReader(record_bytes=label_bytes + image_bytes)  # expect: queue-reader
    result.key, value = reader.read(filename_queue)
    record_bytes = tf.decode_raw(value, tf.uint8)
    result.label = tf.cast(tf.strided_slice(record_bytes, [0], [label_bytes]), tf.int32)
    depth_major = tf.reshape(
        tf.strided_slice(record_bytes, [label_bytes], [label_bytes + image_bytes]),
        [result.depth, result.height, result.width],
    )
    result.uint8image = tf.transpose(depth_major, [1, 2, 0])
    return result


def inputs(filenames, batch_size):
    filename_queue = tf.train.string_input_producer(filenames, num_epochs=1, shuffle=False)  # expect: queue-producer
    read_input = read_cifar10(filename_queue)
    image = tf.cast(read_input.uint8image, tf.float32) / 255.0
    image.set_shape([IMAGE_SIZE, IMAGE_SIZE, 3])
    read_input.label.set_shape([1])
    images, labels = tf.train.batch([image, read_input.label], batch_size=batch_size, capacity=3 * batch_size)  # expect: queue-batcher
    return images, tf.reshape(labels, [-1])


def evaluate(filenames):
    with tf.Graph().as_default():
        images, labels = inputs(filenames, BATCH_SIZE)
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            threads = []
            for qr in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS):  # expect: queue-runner
                threads.extend(qr.create_threads(sess, daemon=True, start=True))
            try:
                while True:
                    image_batch, label_batch = sess.run([images, labels])
                    print("batch", image_batch.shape, label_batch.shape)
                    for image, label in zip(image_batch, label_batch):
                        print("example", int(label), int(np.round(image * 255.0).sum()))
            except tf.errors.OutOfRangeError:
                print("done")
            for thread in threads:
                thread.join(10)


if __name__ == "__main__":
    evaluate(write_data(sys.argv[1]))
