"""A CSV pipeline whose per-example code changes decode_csv's columns in place.

The defaults list is made then changed item by item, and one string column
is replaced in the decoded list by a number (a "Present"/"Absent" flag),
as TF 1.x course examples did before stacking the features.
Usage: python csv_columns_in_place.py DATA_DIR
"""

import os
import sys

import tensorflow as tf

tf1 = tf.compat.v1
N_FEATURES = 3


def write_data(data_dir):
    path = os.path.join(data_dir, "heart.csv")
    with open(path, "w") as out:
        out.write("a,b,history,c,label\n")
        for row in range(6):
            flag = "Present" if row % 2 else "Absent"
            out.write(f"{row},{row + 1},{flag},{row + 2},{row % 2}\n")
    return [path]


def input_pipeline(filenames, batch_size):
    filename_queue = tf1.train.string_input_producer(  # expect: queue-producer
        filenames, num_epochs=1, shuffle=False
    )
    reader = tf1.TextLineReader(skip_header_lines=1)  # expect: queue-reader
    _, value = reader.read(filename_queue)
    record_defaults = [[1.0] for _ in range(N_FEATURES)]
    record_defaults.insert(2, [""])
    record_defaults.append([1])
    content = tf.io.decode_csv(value, record_defaults=record_defaults)
    content[2] = tf.cast(tf.equal(content[2], "Present"), tf.float32)
    features = tf.stack(content[: N_FEATURES + 1])
    label = content[-1]
    return tf1.train.batch([features, label], batch_size)  # expect: queue-batcher


def main(data_dir):
    filenames = write_data(data_dir)
    with tf.Graph().as_default():
        features, labels = input_pipeline(filenames, batch_size=2)
        init = tf1.local_variables_initializer()
        with tf1.Session() as sess:
            sess.run(init)
            coord = tf1.train.Coordinator()  # expect: queue-runner
            threads = tf1.train.start_queue_runners(coord=coord)  # expect: queue-runner
            try:
                while True:
                    x, y = sess.run([features, labels])
                    print("batch", x.shape, y.shape)
                    for row, label in zip(x.tolist(), y.tolist()):
                        print("example", row, label)
            except tf.errors.OutOfRangeError:
                print("done")
            coord.request_stop()
            coord.join(threads)


if __name__ == "__main__":
    main(sys.argv[1])
