"""CIFAR-10 input with each chain inside a `with tf.name_scope(...)` block (runnable).

The producer, reader and per-example code sit in the scope; the batch-helper
call comes after it. One input keeps the producer outside the scope. Usage:
python cifar10_scoped_input.py DATA_DIR
"""

import os
import sys

import numpy as np
import tensorflow as tf

IMAGE_SIZE = 6
NUM_EXAMPLES = 10


def write_data(data_dir, per_file=5):
    rng = np.random.RandomState(2)
    filenames = []
    for i in range(1, 3):
        labels = rng.randint(0, 10, size=(per_file, 1))
        images = rng.randint(0, 256, size=(per_file, 8 * 8 * 3))
        path = os.path.join(data_dir, "part_%d.bin" % i)
        np.concatenate([labels, images], axis=1).astype(np.uint8).tofile(path)
        filenames.append(path)
    return filenames


def read_record(filename_queue):
    """Reads one record into an object with `label` and `uint8image` fields."""

    class Record(object):
        pass

    result = Record()
    label_bytes = 1
    result.height, result.width, result.depth = 8, 8, 3
    image_bytes = result.height * result.width * result.depth
    reader = tf.compat.v1.FixedLengthRecordReader(record_bytes=label_bytes + image_bytes)  # expect: queue-reader
    result.key, value = reader.read(filename_queue)
    raw = tf.compat.v1.decode_raw(value, tf.uint8)
    result.label = tf.cast(tf.strided_slice(raw, [0], [label_bytes]), tf.int32)
    major = tf.reshape(
        tf.strided_slice(raw, [label_bytes], [label_bytes + image_bytes]),
        [result.depth, result.height, result.width],
    )
    result.uint8image = tf.transpose(major, [1, 2, 0])
    return result


def _make_batch(image, label, min_queue_examples, batch_size, shuffle):
    """Batches one example stream, shuffled or in order."""
    if shuffle:
        images, labels = tf.compat.v1.train.shuffle_batch(  # expect: queue-batcher
            [image, label],
            batch_size=batch_size,
            num_threads=1,
            capacity=min_queue_examples + 3 * batch_size,
            min_after_dequeue=min_queue_examples,
        )
    else:
        images, labels = tf.compat.v1.train.batch(  # expect: queue-batcher
            [image, label],
            batch_size=batch_size,
            num_threads=1,
            capacity=min_queue_examples + 3 * batch_size,
            allow_smaller_final_batch=True,
        )
    return images, tf.reshape(labels, [-1])


def augmented_inputs(filenames, batch_size):
    """Training input: the whole chain up to the batch inside one name scope."""
    with tf.name_scope("data_augmentation"):
        # Filenames, forever, shuffled.
        filename_queue = tf.compat.v1.train.string_input_producer(filenames)  # expect: queue-producer
        read_input = read_record(filename_queue)
        reshaped = tf.cast(read_input.uint8image, tf.float32)
        size = IMAGE_SIZE
        distorted = tf.image.random_crop(reshaped, [size, size, 3])
        distorted = tf.image.random_flip_left_right(distorted)
        float_image = tf.image.per_image_standardization(distorted)
        float_image.set_shape([size, size, 3])
        read_input.label.set_shape([1])
        min_queue_examples = int(NUM_EXAMPLES * 0.4)
        print("Filling queue with %d images." % min_queue_examples)

    return _make_batch(
        float_image, read_input.label, min_queue_examples, batch_size, shuffle=True
    )


def eval_inputs(filenames, batch_size):
    """Evaluation input: the producer before the scope, one epoch, in order."""
    filename_queue = tf.compat.v1.train.string_input_producer(  # expect: queue-producer
        filenames, num_epochs=1, shuffle=False
    )
    with tf.name_scope("input"):
        read_input = read_record(filename_queue)
        reshaped = tf.cast(read_input.uint8image, tf.float32)
        cropped = tf.image.resize_with_crop_or_pad(reshaped, IMAGE_SIZE, IMAGE_SIZE)
        float_image = tf.image.per_image_standardization(cropped)
        float_image.set_shape([IMAGE_SIZE, IMAGE_SIZE, 3])
        read_input.label.set_shape([1])
    min_queue_examples = 4
    return _make_batch(
        float_image, read_input.label, min_queue_examples, batch_size, shuffle=False
    )


def main(data_dir):
    filenames = write_data(data_dir)
    with tf.Graph().as_default():
        train_images, train_labels = augmented_inputs(filenames, batch_size=3)
        images, labels = eval_inputs(filenames, batch_size=4)
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.local_variables_initializer())
            coord = tf.compat.v1.train.Coordinator()  # expect: queue-runner
            threads = tf.compat.v1.train.start_queue_runners(sess=sess, coord=coord)  # expect: queue-runner
            shapes = sess.run([tf.shape(train_images), tf.shape(train_labels)])
            print("train batch", [list(s) for s in shapes])
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
