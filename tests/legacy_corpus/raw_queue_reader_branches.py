"""CIFAR-binary-style input over a raw queue fed from a reader (runnable).

Fixed-length records (a label byte, then three image bytes) are read from a
filename queue and decoded; the mode picks, in one `if`, both the
per-example preprocessing and the queue class (RandomShuffleQueue for
training, FIFOQueue for evaluation). Runner threads enqueue the decoded
examples and `dequeue_many` batches them.
Usage: python raw_queue_reader_branches.py DATA_DIR
"""

import os
import sys

import tensorflow.compat.v1 as tf

RECORDS_PER_FILE = 6


def write_files(data_dir):
    """Two files of six records each: label i % 3, image bytes i, i+1, i+2."""
    paths = []
    for f in range(2):
        path = os.path.join(data_dir, "data_%d.bin" % f)
        with open(path, "wb") as out:
            for r in range(RECORDS_PER_FILE):
                i = f * RECORDS_PER_FILE + r
                out.write(bytes([i % 3, i, i + 1, i + 2]))
        paths.append(path)
    return paths


def build_input(data_path, batch_size, mode):
    record_bytes = 4
    data_files = tf.gfile.Glob(data_path)
    file_queue = tf.train.string_input_producer(data_files, num_epochs=1, shuffle=False)  # expect: queue-producer
    # Read examples from files in the filename queue.
    reader = tf.FixedLengthRecordReader(record_bytes=record_bytes)  # expect: queue-reader
    _, value = reader.read(file_queue)

    # Decode the label and the image.
    record = tf.reshape(tf.decode_raw(value, tf.uint8), [record_bytes])
    label = tf.cast(tf.slice(record, [0], [1]), tf.int32)
    image = tf.cast(tf.slice(record, [1], [3]), tf.float32)

    if mode == "train":
        image = image * 2.0
        example_queue = tf.RandomShuffleQueue(  # expect: queue
            capacity=16 * batch_size,
            min_after_dequeue=2 * batch_size,
            dtypes=[tf.float32, tf.int32],
            shapes=[[3], [1]],
        )
        num_threads = 4
    else:
        image = image + 1.0
        example_queue = tf.FIFOQueue(  # expect: queue
            3 * batch_size, dtypes=[tf.float32, tf.int32], shapes=[[3], [1]]
        )
        num_threads = 1

    example_enqueue_op = example_queue.enqueue([image, label])
    tf.train.add_queue_runner(  # expect: queue-runner
        tf.train.queue_runner.QueueRunner(example_queue, [example_enqueue_op] * num_threads)  # expect: queue-runner
    )

    images, labels = example_queue.dequeue_many(batch_size)
    assert images.get_shape().as_list() == [batch_size, 3], images.get_shape()
    return images, tf.reshape(labels, [batch_size])


def examples(data_path, mode):
    """Every example the pipeline gives until its epoch ends, as text."""
    with tf.Graph().as_default():
        images, labels = build_input(data_path, batch_size=4, mode=mode)
        seen = []
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            coord = tf.train.Coordinator()  # expect: queue-runner
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)  # expect: queue-runner
            try:
                while True:
                    image_batch, label_batch = sess.run([images, labels])
                    print("batch", mode, image_batch.shape, label_batch.shape)
                    for image, label in zip(image_batch, label_batch):
                        seen.append("%s:%d" % ("/".join("%g" % v for v in image), label))
            except tf.errors.OutOfRangeError:
                pass
            coord.request_stop()
            coord.join(threads)
    return sorted(seen)


def main():
    write_files(sys.argv[1])
    data_path = os.path.join(sys.argv[1], "data_*.bin")
    for mode in ("train", "eval"):
        print("examples", mode, examples(data_path, mode))


if __name__ == "__main__":
    main()
