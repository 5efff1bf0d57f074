"""Eval script of a two-file program: it starts the queue runners of records_input.

Usage: python records_eval.py DATA_DIR
"""

import sys

import records_input
import tensorflow.compat.v1 as tf


def evaluate(data_dir):
    with tf.Graph().as_default():
        images, labels = records_input.inputs(records_input.write_data(data_dir), 4)
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            coord = tf.train.Coordinator()
            threads = []
            for qr in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS):
                threads.extend(qr.create_threads(sess, coord=coord, daemon=True, start=True))
            try:
                while not coord.should_stop():
                    image_batch, label_batch = sess.run([images, labels])
                    for image, label in zip(image_batch, label_batch):
                        print("example", int(label), int(image.sum()))
            except tf.errors.OutOfRangeError:
                print("done")
            coord.request_stop()
            coord.join(threads)


if __name__ == "__main__":
    evaluate(sys.argv[1])
