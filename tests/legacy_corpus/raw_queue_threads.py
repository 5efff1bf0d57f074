"""Inception-style input over raw queues (runnable).

Serialized records sit in a FIFOQueue that a QueueRunner fills; several
preprocessing copies (one per thread id) dequeue from it and batch_join
joins them. A RandomShuffleQueue fed by two runner threads gives numbers.
Usage: python raw_queue_threads.py DATA_DIR (the folder is not used)
"""

import sys

import numpy as np
import tensorflow.compat.v1 as tf

RECORDS = ["%d,%d" % (i, i % 3) for i in range(6)]


def parse(record, thread_id):
    fields = tf.strings.split([record], ",").values
    image = tf.strings.to_number(fields[0]) * 2.0
    if thread_id % 2 == 0:  # Python-level choice per copy, as inception's color order
        image = image + 100.0
    else:
        image = image + 100.0 * tf.ones_like(image)
    label = tf.strings.to_number(fields[1], tf.int32)
    return image, label


def batch_inputs(batch_size, num_preprocess_threads):
    examples_queue = tf.FIFOQueue(capacity=16, dtypes=[tf.string], shapes=[[]])  # expect: queue
    enqueue = examples_queue.enqueue_many([tf.constant(RECORDS)])
    tf.train.queue_runner.add_queue_runner(tf.train.queue_runner.QueueRunner(examples_queue, [enqueue]))  # expect: queue-runner, queue-runner
    example_serialized = examples_queue.dequeue()

    images_and_labels = []
    for thread_id in range(num_preprocess_threads):
        # Each copy parses and preprocesses on its own.
        image, label = parse(example_serialized, thread_id)
        image.set_shape([])
        images_and_labels.append([image, label])

    images, labels = tf.train.batch_join(  # expect: queue-batcher
        images_and_labels,
        batch_size=batch_size,
        capacity=2 * num_preprocess_threads * batch_size,
    )
    return images, labels


def shuffled_numbers(batch_size):
    queue = tf.RandomShuffleQueue(  # expect: queue
        capacity=20, min_after_dequeue=4, dtypes=[tf.int32], shapes=[[]], seed=1
    )
    runner = tf.train.QueueRunner(queue, [queue.enqueue_many([tf.range(6)])] * 2)  # expect: queue-runner
    tf.train.add_queue_runner(runner)  # expect: queue-runner
    return queue.dequeue_many(batch_size)


def main():
    with tf.Graph().as_default():
        images, labels = batch_inputs(batch_size=4, num_preprocess_threads=2)
        numbers = shuffled_numbers(batch_size=3)
        with tf.Session() as sess:
            coord = tf.train.Coordinator()  # expect: queue-runner
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)  # expect: queue-runner
            seen = []
            for _ in range(6):
                image_batch, label_batch = sess.run([images, labels])
                print("batch", image_batch.shape, label_batch.shape)
                seen += ["%d:%d" % (int(i), int(l)) for i, l in zip(image_batch, label_batch)]
            print("counts", sorted({s: seen.count(s) for s in seen}.items()))
            number_batch = sess.run(numbers)
            print("numbers", number_batch.shape, bool(np.all(number_batch < 6)))
            coord.request_stop()
            coord.join(threads)


if __name__ == "__main__":
    main()
