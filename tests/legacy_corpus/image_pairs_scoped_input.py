"""Paired-image input read through several `with tf.name_scope(...)` blocks (runnable).

The producer, reader and decoding sit in one scope; the choice of direction,
a shared seed, a transform function and two more scopes follow it, then the
batcher. Usage: python image_pairs_scoped_input.py DATA_DIR
"""

import os
import random
import sys

import numpy as np
import tensorflow as tf

SIZE = 4


def write_data(data_dir, count=5):
    """PNG files, each the input (left half) beside the target (right half)."""
    rng = np.random.RandomState(3)
    paths = []
    with tf.Graph().as_default(), tf.compat.v1.Session() as sess:
        for i in range(count):
            a = rng.randint(0, 256, size=(SIZE, SIZE, 3)).astype(np.uint8)
            pair = np.concatenate([a, 255 - a], axis=1)
            path = os.path.join(data_dir, "%d.png" % i)
            sess.run(tf.io.write_file(path, tf.image.encode_png(pair)))
            paths.append(path)
    return paths


def load_examples(paths, direction, batch_size):
    with tf.name_scope("load_images"):
        path_queue = tf.compat.v1.train.string_input_producer(  # expect: queue-producer
            paths, num_epochs=1, shuffle=False
        )
        reader = tf.compat.v1.WholeFileReader()  # expect: queue-reader
        names, contents = reader.read(path_queue)
        raw = tf.image.convert_image_dtype(tf.image.decode_png(contents), tf.float32)
        raw.set_shape([None, None, 3])
        if direction == "gray":
            gray = tf.image.rgb_to_grayscale(raw)
            a_images = tf.image.grayscale_to_rgb(gray)
            b_images = raw
        else:
            width = tf.shape(raw)[1]
            a_images = raw[:, : width // 2, :]
            b_images = raw[:, width // 2 :, :]

    if direction == "AtoB":
        inputs, targets = [a_images, b_images]
    elif direction == "BtoA":
        inputs, targets = [b_images, a_images]
    else:
        raise ValueError("invalid direction")

    # the same seed for the input and the target
    seed = random.Random(0).randint(0, 2**31 - 1)

    def transform(image):
        image = tf.image.resize(image, [SIZE, SIZE])
        return image * 2 - 1 + 0 * seed

    with tf.name_scope("input_images"):
        input_images = transform(inputs)

    with tf.name_scope("target_images"):
        target_images = transform(targets)

    return tf.compat.v1.train.batch(  # expect: queue-batcher
        [names, input_images, target_images],
        batch_size=batch_size,
        allow_smaller_final_batch=True,
    )


def main(data_dir):
    paths = write_data(data_dir)
    with tf.Graph().as_default():
        names, inputs, targets = load_examples(paths, "BtoA", batch_size=2)
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.local_variables_initializer())
            coord = tf.compat.v1.train.Coordinator()  # expect: queue-runner
            threads = tf.compat.v1.train.start_queue_runners(sess=sess, coord=coord)  # expect: queue-runner
            try:
                while True:
                    batch = sess.run([names, inputs, targets])
                    print("batch", batch[1].shape, batch[2].shape)
                    for name, x, y in zip(*batch):
                        print(
                            "example",
                            os.path.basename(name.decode()),
                            "%.3f %.3f" % (float(x.sum()), float(y.sum())),
                        )
            except tf.errors.OutOfRangeError:
                print("done")
            coord.request_stop()
            coord.join(threads)


if __name__ == "__main__":
    main(sys.argv[1])
