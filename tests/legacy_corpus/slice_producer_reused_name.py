"""Image folders read by a slice producer whose `label` reused a class counter.

One sub-folder per class; a Python loop counts the classes in `label`, then
`image, label = tf.train.slice_input_producer(...)` rebinds the name to the
example's label, and `tf.train.batch` batches the decoded images.
Usage: python slice_producer_reused_name.py WORKDIR
"""

import os
import sys

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()


def write_images(folder):
    """Two classes of three 6x5 JPEG images each."""
    with tf.Graph().as_default(), tf.Session() as sess:
        pixels = tf.placeholder(tf.uint8, [6, 5, 3])
        encoded = tf.image.encode_jpeg(pixels)
        for c in ("cats", "dogs"):
            os.makedirs(os.path.join(folder, c), exist_ok=True)
            for i in range(3):
                value = np.full([6, 5, 3], 40 * i + (100 if c == "dogs" else 0))
                data = sess.run(encoded, {pixels: value.astype(np.uint8)})
                with open(os.path.join(folder, c, f"{i}.jpg"), "wb") as f:
                    f.write(data)


def read_images(dataset_path, n):
    imagepaths, labels = list(), list()
    label = 0
    for c in sorted(os.listdir(dataset_path)):
        for sample in sorted(os.listdir(os.path.join(dataset_path, c))):
            imagepaths.append(os.path.join(dataset_path, c, sample))
            labels.append(label)
        label += 1
    imagepaths = tf.convert_to_tensor(imagepaths, dtype=tf.string)
    labels = tf.convert_to_tensor(labels, dtype=tf.int32)
    image, label = tf.train.slice_input_producer(  # expect: queue-producer
        [imagepaths, labels], shuffle=False
    )
    image = tf.read_file(image)
    image = tf.image.decode_jpeg(image, channels=3)
    image = tf.image.resize_images(image, [4, 4])
    X, Y = tf.train.batch([image, label], batch_size=n)  # expect: queue-batcher
    return X, Y


folder = os.path.join(sys.argv[1], "images")
write_images(folder)
X, Y = read_images(folder, 2)
with tf.Session() as sess:
    tf.train.start_queue_runners(sess=sess)  # expect: queue-runner
    for step in range(3):
        images, labels = sess.run([X, Y])
        print("batch", step, images.shape, labels.tolist())
