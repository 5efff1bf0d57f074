"""TFRecord examples through TFRecordReader + shuffle_batch with two threads.

Usage: python tfrecord_shuffle_batch.py DATA_DIR
The order is random (two threads, shuffling), so compare the examples as a set.
"""

import os
import sys

import numpy as np
import tensorflow.compat.v1 as tf
from tensorflow.compat.v1 import train

tf.disable_eager_execution()


def _int64(value):
    return tf.train.Feature(int64_list=tf.train.Int64List(value=[value]))


def _bytes(value):
    return tf.train.Feature(bytes_list=tf.train.BytesList(value=[value]))


def write_data(data_dir, num_files=3, per_file=4):
    filenames = []
    for f in range(num_files):
        path = os.path.join(data_dir, "train-%05d.tfrecord" % f)
        with tf.python_io.TFRecordWriter(path) as writer:
            for i in range(per_file):
                n = f * per_file + i
                image = np.full([2, 2], n, dtype=np.uint8)
                example = tf.train.Example(
                    features=tf.train.Features(
                        feature={"image_raw": _bytes(image.tobytes()), "label": _int64(n % 5)}
                    )
                )
                writer.write(example.SerializeToString())
        filenames.append(path)
    return filenames


def read_and_decode(filenames, batch_size, num_epochs):
    filename_queue = train.string_input_producer(  # expect: queue-producer
        filenames, num_epochs=num_epochs, seed=7
    )
    reader = tf.TFRecordReader()  # expect: queue-reader
    _, serialized_example = reader.read(filename_queue)
    features = tf.parse_single_example(
        serialized_example,
        features={
            "image_raw": tf.FixedLenFeature([], tf.string),
            "label": tf.FixedLenFeature([], tf.int64),
        },
    )
    image = tf.decode_raw(features["image_raw"], tf.uint8)
    image.set_shape([4])
    image = tf.cast(image, tf.int32) * 10
    label = tf.cast(features["label"], tf.int32)
    min_after_dequeue = 5
    capacity = min_after_dequeue + 3 * batch_size
    images, labels = train.shuffle_batch(  # expect: queue-batcher
        [image, label],
        batch_size=batch_size,
        num_threads=2,
        capacity=capacity,
        min_after_dequeue=min_after_dequeue,
        seed=3,
    )
    return images, labels


def main(data_dir):
    filenames = write_data(data_dir)
    images, labels = read_and_decode(filenames, batch_size=3, num_epochs=2)
    init_op = tf.group(tf.global_variables_initializer(), tf.local_variables_initializer())
    sess = tf.Session()
    sess.run(init_op)
    coord = train.Coordinator()  # expect: queue-runner
    threads = train.start_queue_runners(sess=sess, coord=coord)  # expect: queue-runner
    try:
        step = 0
        while not coord.should_stop():
            image_batch, label_batch = sess.run([images, labels])
            print("batch", image_batch.shape, label_batch.shape)
            for image, label in zip(image_batch, label_batch):
                print("example", image.tolist(), int(label))
            step += 1
    except tf.errors.OutOfRangeError:
        print("done after %d steps" % step)
    finally:
        coord.request_stop()
    coord.join(threads)
    sess.close()


if __name__ == "__main__":
    main(sys.argv[1])
