"""A dataset description that receives a reader class (slim.dataset.Dataset style)."""

import tensorflow.compat.v1 as tf


class DatasetSpec:
    def __init__(self, data_sources, reader, num_samples):
        self.data_sources = data_sources
        self.reader = reader
        self.num_samples = num_samples


def get_split(pattern):
    reader = tf.TFRecordReader  # expect: queue-reader  # port: queue-reader
    return DatasetSpec(pattern, reader, num_samples=100)


def get_text_split(pattern):
    return DatasetSpec(pattern, tf.TextLineReader, num_samples=10)  # expect: queue-reader  # port: queue-reader
