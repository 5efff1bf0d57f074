"""CIFAR-10 input as the TF 1.x tutorial split it: a reader helper, a batch helper.

The chain crosses functions (the filename queue is an argument of
read_cifar10), so a migration tool must report it for a manual rewrite.
"""

import os

import tensorflow as tf

IMAGE_SIZE = 24
NUM_EXAMPLES_PER_EPOCH_FOR_TRAIN = 50000


def read_cifar10(filename_queue):
    """Reads and parses examples from CIFAR10 data files."""

    class CIFAR10Record(object):
        pass

    result = CIFAR10Record()
    label_bytes = 1
    result.height = 32
    result.width = 32
    result.depth = 3
    image_bytes = result.height * result.width * result.depth
    record_bytes = label_bytes + image_bytes

    reader = tf.FixedLengthRecordReader(record_bytes=record_bytes)  # expect: queue-reader
    result.key, value = reader.read(filename_queue)
    record_bytes = tf.decode_raw(value, tf.uint8)
    result.label = tf.cast(tf.strided_slice(record_bytes, [0], [label_bytes]), tf.int32)
    depth_major = tf.reshape(
        tf.strided_slice(record_bytes, [label_bytes], [label_bytes + image_bytes]),
        [result.depth, result.height, result.width],
    )
    result.uint8image = tf.transpose(depth_major, [1, 2, 0])
    return result


def _generate_image_and_label_batch(image, label, min_queue_examples, batch_size, shuffle):
    num_preprocess_threads = 16
    if shuffle:
        images, label_batch = tf.train.shuffle_batch(  # expect: queue-batcher
            [image, label],
            batch_size=batch_size,
            num_threads=num_preprocess_threads,
            capacity=min_queue_examples + 3 * batch_size,
            min_after_dequeue=min_queue_examples,
        )
    else:
        images, label_batch = tf.train.batch(  # expect: queue-batcher
            [image, label],
            batch_size=batch_size,
            num_threads=num_preprocess_threads,
            capacity=min_queue_examples + 3 * batch_size,
        )
    tf.summary.image("images", images)
    return images, tf.reshape(label_batch, [batch_size])


def distorted_inputs(data_dir, batch_size):
    filenames = [os.path.join(data_dir, "data_batch_%d.bin" % i) for i in range(1, 6)]
    for f in filenames:
        if not tf.gfile.Exists(f):
            raise ValueError("Failed to find file: " + f)
    filename_queue = tf.train.string_input_producer(filenames)  # expect: queue-producer
    read_input = read_cifar10(filename_queue)
    reshaped_image = tf.cast(read_input.uint8image, tf.float32)
    distorted_image = tf.random_crop(reshaped_image, [IMAGE_SIZE, IMAGE_SIZE, 3])
    distorted_image = tf.image.random_flip_left_right(distorted_image)
    float_image = tf.image.per_image_standardization(distorted_image)
    float_image.set_shape([IMAGE_SIZE, IMAGE_SIZE, 3])
    read_input.label.set_shape([1])
    min_queue_examples = int(NUM_EXAMPLES_PER_EPOCH_FOR_TRAIN * 0.4)
    return _generate_image_and_label_batch(
        float_image, read_input.label, min_queue_examples, batch_size, shuffle=True
    )
