"""TF 1.x's threading guide: a FIFOQueue fed from numpy arrays by a
QueueRunner whose threads the program starts itself with create_threads.

The arrays are numpy's float64 and int64; the queue holds float32 and int32,
as TF 1.x's enqueue converted them.
Usage: python queue_runner_threads_by_hand.py DATA_DIR
"""

import sys

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1


def main(data_dir):
    del data_dir  # the data is made here
    data = np.arange(12, dtype=np.float64).reshape(6, 2) / 4
    target = np.arange(6) % 2
    with tf.Graph().as_default():
        queue = tf1.FIFOQueue(  # expect: queue
            capacity=5, dtypes=[tf.float32, tf.int32], shapes=[[2], []]
        )
        enqueue_op = queue.enqueue_many([data, target])
        x, y = queue.dequeue()
        qr = tf1.train.QueueRunner(queue, [enqueue_op])  # expect: queue-runner
        with tf1.Session() as sess:
            coord = tf1.train.Coordinator()  # expect: queue-runner
            threads = qr.create_threads(sess, coord=coord, start=True)
            for _ in range(8):
                values, label = sess.run([x, y])
                print("example", values.tolist(), int(label), values.dtype)
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=5)


if __name__ == "__main__":
    main(sys.argv[1])
