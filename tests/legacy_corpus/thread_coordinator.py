"""A Coordinator that only joins Python worker threads (no queue runners).

Usage: python thread_coordinator.py OUT_DIR
"""

import sys
import threading

import tensorflow as tf


def has_gpu():
    return tf.test.is_gpu_available()  # port: device-lib


def worker(coord, index, results):
    while not coord.should_stop():
        results.append(index * index)
        if len(results) >= 6:
            coord.request_stop()


def main(out_dir):
    coord = tf.train.Coordinator()  # expect: queue-runner  (the passes drop it)
    results = []
    threads = [threading.Thread(target=worker, args=(coord, i, results)) for i in range(3)]
    for t in threads:
        t.start()
    coord.join(threads)
    print("gpu", has_gpu(), "out", out_dir)
    print("workers done", len(results) >= 6)


if __name__ == "__main__":
    main(sys.argv[1])
