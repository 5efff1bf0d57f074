"""A TF 1.x record writer that fetches its source with contrib's maybe_download.

The shape of the era's generate_*_tfrecords.py scripts: download a file into
the data directory unless it is there, then write one tf.train.Example per
value. Usage: python contrib_download_records.py DATA_DIR (values.npy must be
in DATA_DIR: nothing is fetched when it is).
"""

import os
import sys

import numpy as np
import tensorflow as tf

FILENAME = "values.npy"
SOURCE_URL = "https://data.example.invalid/" + FILENAME


def _int64_feature(value):
    return tf.train.Feature(int64_list=tf.train.Int64List(value=[value]))


def main(data_dir):
    path = tf.contrib.learn.datasets.base.maybe_download(  # expect: contrib
        FILENAME, data_dir, SOURCE_URL
    )
    values = np.load(path)
    output = os.path.join(data_dir, "values.tfrecords")
    with tf.python_io.TFRecordWriter(output) as writer:
        for value in values:
            example = tf.train.Example(
                features=tf.train.Features(
                    feature={"value": _int64_feature(int(value))}
                )
            )
            writer.write(example.SerializeToString())
    print("read", os.path.relpath(path, data_dir))
    print("wrote", len(values))


if __name__ == "__main__":
    main(sys.argv[1])
