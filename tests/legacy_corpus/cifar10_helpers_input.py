"""CIFAR-10 input split into helpers as in the TF 1.x tutorial (runnable).

read_cifar10 reads and decodes one record; _generate_image_and_label_batch
batches with shuffle_batch or batch. Usage: python cifar10_helpers_input.py DATA_DIR
"""

import os
import sys

import numpy as np
import tensorflow as tf

IMAGE_SIZE = 6
NUM_CLASSES = 10


def write_data(data_dir, per_file=5):
    rng = np.random.RandomState(1)
    filenames = []
    for i in range(1, 3):
        labels = rng.randint(0, NUM_CLASSES, size=(per_file, 1))
        images = rng.randint(0, 256, size=(per_file, 8 * 8 * 3))
        path = os.path.join(data_dir, "data_batch_%d.bin" % i)
        np.concatenate([labels, images], axis=1).astype(np.uint8).tofile(path)
        filenames.append(path)
    return filenames


def read_cifar10(filename_queue):
    """Reads one CIFAR-10 record: uint8 image [8, 8, 3] and int32 label [1]."""
    label_bytes = 1
    height, width, depth = 8, 8, 3
    image_bytes = height * width * depth
    record_bytes = label_bytes + image_bytes
    reader = tf.compat.v1.FixedLengthRecordReader(record_bytes=record_bytes)  # expect: queue-reader
    key, value = reader.read(filename_queue)
    record = tf.compat.v1.decode_raw(value, tf.uint8)
    label = tf.cast(tf.strided_slice(record, [0], [label_bytes]), tf.int32)
    depth_major = tf.reshape(
        tf.strided_slice(record, [label_bytes], [label_bytes + image_bytes]),
        [depth, height, width],
    )
    uint8image = tf.transpose(depth_major, [1, 2, 0])
    return uint8image, label


def _generate_image_and_label_batch(image, label, min_queue_examples, batch_size, shuffle):
    """Construct a queued batch of images and labels."""
    num_preprocess_threads = 1
    if shuffle:
        images, label_batch = tf.compat.v1.train.shuffle_batch(  # expect: queue-batcher
            [image, label],
            batch_size=batch_size,
            num_threads=num_preprocess_threads,
            capacity=min_queue_examples + 3 * batch_size,
            min_after_dequeue=min_queue_examples,
        )
    else:
        images, label_batch = tf.compat.v1.train.batch(  # expect: queue-batcher
            [image, label],
            batch_size=batch_size,
            num_threads=num_preprocess_threads,
            capacity=min_queue_examples + 3 * batch_size,
            allow_smaller_final_batch=True,
        )
    tf.compat.v1.summary.image("images", images)
    return images, tf.reshape(label_batch, [-1])


def inputs(filenames, batch_size):
    """Evaluation input: center crop, standardization, file order."""
    filename_queue = tf.compat.v1.train.string_input_producer(  # expect: queue-producer
        filenames, num_epochs=1, shuffle=False
    )
    read_image, read_label = read_cifar10(filename_queue)
    reshaped_image = tf.cast(read_image, tf.float32)
    resized_image = tf.image.resize_with_crop_or_pad(reshaped_image, IMAGE_SIZE, IMAGE_SIZE)
    float_image = tf.image.per_image_standardization(resized_image)
    float_image.set_shape([IMAGE_SIZE, IMAGE_SIZE, 3])
    read_label.set_shape([1])
    min_queue_examples = 4
    return _generate_image_and_label_batch(
        float_image, read_label, min_queue_examples, batch_size, shuffle=False
    )


def main(data_dir):
    filenames = write_data(data_dir)
    with tf.Graph().as_default():
        images, labels = inputs(filenames, batch_size=4)
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.local_variables_initializer())
            coord = tf.compat.v1.train.Coordinator()  # expect: queue-runner
            threads = tf.compat.v1.train.start_queue_runners(sess=sess, coord=coord)  # expect: queue-runner
            try:
                while True:
                    image_batch, label_batch = sess.run([images, labels])
                    print("batch", image_batch.shape, label_batch.shape)
                    for image, label in zip(image_batch, label_batch):
                        print("example", int(label), "%.2f" % float(np.abs(image).sum()))
            except tf.errors.OutOfRangeError:
                print("done")
            coord.request_stop()
            coord.join(threads)


if __name__ == "__main__":
    main(sys.argv[1])
