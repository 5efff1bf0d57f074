"""Reading CSV files with TextLineReader and decode_csv (TF 1.x "Reading data").

Usage: python csv_text_line_reader.py DATA_DIR
"""

import os
import sys

import tensorflow as tf

tf1 = tf.compat.v1


def write_data(data_dir):
    filenames = []
    for f in range(2):
        path = os.path.join(data_dir, "part-%d.csv" % f)
        with open(path, "w") as out:
            out.write("a,b,c,label\n")
            for row in range(5):
                n = 10 * f + row
                out.write("%d,%d,%d,%d\n" % (n, n + 1, n + 2, n % 3))
        filenames.append(path)
    return filenames


def input_pipeline(filenames, batch_size, num_epochs):
    filename_queue = tf1.train.string_input_producer(  # expect: queue-producer
        filenames, num_epochs=num_epochs, shuffle=False
    )
    reader = tf1.TextLineReader(skip_header_lines=1)  # expect: queue-reader
    _, line = reader.read(filename_queue)
    record_defaults = [[0], [0], [0], [0]]
    col1, col2, col3, label = tf.io.decode_csv(line, record_defaults=record_defaults)
    features = {"x": tf.stack([col1, col2, col3]), "label": label}
    return tf1.train.batch(  # expect: queue-batcher
        features, batch_size, allow_smaller_final_batch=True
    )


def main(data_dir):
    filenames = write_data(data_dir)
    with tf.Graph().as_default():
        batch = input_pipeline(filenames, batch_size=4, num_epochs=2)
        init = tf1.local_variables_initializer()
        with tf1.Session() as sess:
            sess.run(init)
            coord = tf1.train.Coordinator()  # expect: queue-runner
            threads = tf1.train.start_queue_runners(coord=coord)  # expect: queue-runner
            try:
                while True:
                    values = sess.run(batch)
                    print("batch", values["x"].shape, values["label"].shape)
                    for x, label in zip(values["x"], values["label"]):
                        print("example", x.tolist(), int(label))
            except tf.errors.OutOfRangeError:
                print("done")
            coord.request_stop()
            coord.join(threads)


if __name__ == "__main__":
    main(sys.argv[1])
