"""A TF 1.x-era data helper on NumPy names NumPy 2 removed (np.float, np.int,
np.NaN, np.product): each fails with AttributeError when its line runs.

After `emg-migrate --fix` each is its successor (float, int, np.nan, np.prod)
and the script prints the same numbers as on NumPy 1.x.
Usage: python numpy_removed_aliases.py
"""

import numpy as np
import tensorflow as tf


def one_hot(labels, classes):
    out = np.zeros((len(labels), classes), dtype=np.float)  # numpy: numpy-alias
    out[np.arange(len(labels)), labels.astype(np.int)] = 1.0  # numpy: numpy-alias
    return out


def main():
    labels = np.array([0, 2, 1, 2], dtype=np.float_)  # numpy: numpy-alias
    targets = tf.constant(one_hot(labels, 3), dtype=tf.float32)
    scores = np.array([1.0, np.NaN, 3.0])  # numpy: numpy-alias
    print("one_hot", targets.shape.as_list(), float(tf.reduce_sum(targets)))
    print("nanmax", np.nanmax(scores), "size", np.product(targets.shape.as_list()))  # numpy: numpy-alias
    print("dtype", one_hot(labels, 3).dtype, isinstance(3.0, np.float))  # numpy: numpy-alias


if __name__ == "__main__":
    main()
