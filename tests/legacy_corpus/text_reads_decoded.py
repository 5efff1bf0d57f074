"""A TF 1.x classifier of the era that reads its label names the Python 2
way: files opened in text mode ('r', or no mode) whose reads are decoded,
as TF-slim's dataset_utils.read_label_file did.

Python 3 (and TF 2's gfile) read a str there, which has no decode
(AttributeError when the line runs); `emg-migrate --fix` opens them 'rb'.
Usage: python text_reads_decoded.py [DATA_DIR]
"""

import os
import sys
import tempfile

import numpy as np
import tensorflow as tf  # port: compat-v1


def write_labels(folder):
    path = os.path.join(folder, "labels.txt")
    with tf.gfile.Open(path, "w") as f:
        f.write("0:daisy\n1:roses\n2:tulips\n")
    return path


def read_label_file(path):
    with tf.gfile.Open(path, "r") as f:  # port: text-read-decoded
        lines = f.read().decode()
    labels = {}
    for line in filter(None, lines.split("\n")):
        index = line.index(":")
        labels[int(line[:index])] = line[index + 1 :]
    return labels


def first_label(path):
    return open(path).readline().decode("utf-8").strip()  # port: text-read-decoded


def main(folder):
    path = write_labels(folder)
    labels = read_label_file(path)
    print("labels", sorted(labels.items()))
    print("first", first_label(path))
    rng = np.random.RandomState(0)
    x = rng.rand(12, 4).astype(np.float32)
    y = np.arange(12) % len(labels)
    with tf.Graph().as_default():
        tf.set_random_seed(0)
        w = tf.Variable(tf.zeros([4, len(labels)]))
        logits = tf.matmul(tf.constant(x), w)
        loss = tf.losses.sparse_softmax_cross_entropy(tf.constant(y), logits)
        train_op = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for step in range(3):
                _, value = sess.run([train_op, loss])
                print(f"step {step} loss {value:.4f}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp())
