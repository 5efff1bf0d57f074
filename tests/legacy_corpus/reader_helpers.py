"""Reader helpers that return one tensor, or a tuple made by another function.

Usage: python reader_helpers.py DATA_DIR
"""

import os
import sys

import tensorflow.compat.v1 as tf


def write_data(data_dir):
    paths = []
    for i, text in enumerate(["a", "bb", "ccc", "dddd", "eeeee"]):
        path = os.path.join(data_dir, "doc%d.txt" % i)
        with open(path, "w") as f:
            f.write(text)
        paths.append(path)
    return paths


def read_length(queue):
    reader = tf.WholeFileReader()  # expect: queue-reader
    _, contents = reader.read(queue)
    return tf.strings.length(contents)


def _decode(key, value):
    return tf.strings.length(key) > 0, tf.strings.upper(value)


def read_pair(queue, skip):
    reader = tf.TextLineReader(skip_header_lines=skip)  # expect: queue-reader
    key, value = reader.read(queue)
    return _decode(key, value)


def lengths(paths):
    queue = tf.train.string_input_producer(paths, num_epochs=2, shuffle=False)  # expect: queue-producer
    length = read_length(queue)
    return tf.train.batch([length * 10], 3, allow_smaller_final_batch=True)  # expect: queue-batcher


def pairs(paths):
    has_key, upper = read_pair(tf.train.string_input_producer(paths, num_epochs=1, shuffle=False), 0)  # expect: queue-producer
    return tf.train.batch({"ok": has_key, "text": upper}, 2)  # expect: queue-batcher


def main(data_dir):
    paths = write_data(data_dir)
    with tf.Graph().as_default():
        batches = [lengths(paths), pairs(paths)]
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            coord = tf.train.Coordinator()  # expect: queue-runner
            threads = tf.train.start_queue_runners(sess, coord)  # expect: queue-runner
            for batch in batches:
                try:
                    while True:
                        print("value", sess.run(batch))
                except tf.errors.OutOfRangeError:
                    print("done")
            coord.request_stop()
            coord.join(threads)


if __name__ == "__main__":
    main(sys.argv[1])
