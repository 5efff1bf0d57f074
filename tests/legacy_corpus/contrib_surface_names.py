"""tf.contrib names spelled every way: a public chain, module imports, internal paths.

Runs on TF 1.x only (tf.contrib, tensorflow.python paths); after
`emg-migrate --fix` it runs on TF 2.x: every contrib name here has an exact
successor, and the private conversion-function import keeps its finding
(its public name, tf.register_tensor_conversion_function, is written by hand).
Usage: python contrib_surface_names.py
"""

import tensorflow as tf
from tensorflow.contrib import signal as contrib_signal
from tensorflow.contrib.data.python.ops import interleave_ops
from tensorflow.contrib.data.python.ops.batching import unbatch
from tensorflow.python.framework import ops


class Meters:
    """A value TensorFlow converts to a tensor of its metres."""

    def __init__(self, metres):
        self.metres = metres


def _meters_to_tensor(value, dtype=None, name=None, as_ref=False):
    return tf.constant(value.metres, dtype=dtype or tf.float32, name=name)


ops.register_tensor_conversion_function(Meters, _meters_to_tensor)  # expect: private-tf


def main():
    ones = tf.data.Dataset.from_tensors(1).repeat()
    twos = tf.data.Dataset.from_tensors(2).repeat()
    mixed = tf.contrib.data.sample_from_datasets([ones, twos], [1.0, 0.0], seed=1)  # expect: contrib
    again = interleave_ops.sample_from_datasets([twos, ones], weights=[1.0, 0.0])  # expect: contrib
    rows = tf.data.Dataset.from_tensors([[1, 2], [3, 4]]).apply(unbatch())  # expect: contrib
    print("mixed", [int(x) for x in mixed.take(3)])
    print("again", [int(x) for x in again.take(2)])
    print("rows", [r.numpy().tolist() for r in rows])
    frames = contrib_signal.frame(tf.range(6), 4, 2)  # expect: contrib
    print("frames", frames.numpy().tolist())
    noise = tf.contrib.stateless.stateless_random_uniform([2], seed=[1, 2])  # expect: contrib
    print("noise shape", noise.shape.as_list())
    print("metres", float(tf.convert_to_tensor(Meters(3.5))))


if __name__ == "__main__":
    main()
