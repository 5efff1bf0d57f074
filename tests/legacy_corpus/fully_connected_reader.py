"""Train-input half of the TF 1.x fully_connected_reader.py example (TFRecords).

Usage: python fully_connected_reader.py DATA_DIR
"""

import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()
tf = tf.compat.v1

TRAIN_FILE = "train.tfrecords"
IMAGE_PIXELS = 16


def convert_to(data_dir, num_examples=12):
    filename = os.path.join(data_dir, TRAIN_FILE)
    with tf.python_io.TFRecordWriter(filename) as writer:
        for index in range(num_examples):
            image_raw = (np.arange(IMAGE_PIXELS, dtype=np.uint8) + index).tobytes()
            example = tf.train.Example(
                features=tf.train.Features(
                    feature={
                        "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[index % 10])),
                        "image_raw": tf.train.Feature(bytes_list=tf.train.BytesList(value=[image_raw])),
                    }
                )
            )
            writer.write(example.SerializeToString())
    return filename


def read_and_decode(filename_queue):
    reader = tf.TFRecordReader()  # expect: queue-reader
    _, serialized_example = reader.read(filename_queue)
    features = tf.parse_single_example(
        serialized_example,
        # Defaults are not specified since both keys are required.
        features={
            "image_raw": tf.FixedLenFeature([], tf.string),
            "label": tf.FixedLenFeature([], tf.int64),
        },
    )
    image = tf.decode_raw(features["image_raw"], tf.uint8)
    image.set_shape([IMAGE_PIXELS])
    # Convert from [0, 255] -> [-0.5, 0.5] floats.
    image = tf.cast(image, tf.float32) * (1.0 / 255) - 0.5
    label = tf.cast(features["label"], tf.int32)
    return image, label


def inputs(filename, batch_size, num_epochs):
    if not num_epochs:
        num_epochs = None
    with tf.name_scope("input"):
        filename_queue = tf.train.string_input_producer(  # expect: queue-producer
            [filename], num_epochs=num_epochs
        )
        image, label = read_and_decode(filename_queue)
        images, sparse_labels = tf.train.shuffle_batch(  # expect: queue-batcher
            [image, label],
            batch_size=batch_size,
            num_threads=2,
            capacity=1000 + 3 * batch_size,
            min_after_dequeue=5,
        )
        return images, sparse_labels


def main(data_dir):
    filename = convert_to(data_dir)
    images, labels = inputs(filename, batch_size=4, num_epochs=2)
    init_op = tf.group(tf.global_variables_initializer(), tf.local_variables_initializer())
    sess = tf.Session()
    sess.run(init_op)
    coord = tf.train.Coordinator()  # expect: queue-runner
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)  # expect: queue-runner
    try:
        while not coord.should_stop():
            image_batch, label_batch = sess.run([images, labels])
            print("batch", image_batch.shape, label_batch.shape)
            for image, label in zip(image_batch, label_batch):
                print("example", np.round((image + 0.5) * 255).astype(int).tolist(), int(label))
    except tf.errors.OutOfRangeError:
        print("done")
    finally:
        coord.request_stop()
    coord.join(threads)
    sess.close()


if __name__ == "__main__":
    main(sys.argv[1])
