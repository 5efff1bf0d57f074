"""A metrics helper module of the slim era: it imports contrib's variables and
set_ops modules, a leftover of an older version, and uses neither.

On TF 2.x each import fails by itself (there is no tensorflow.contrib);
after `emg-migrate --fix` the unused ones are gone, the used names stay.
Usage: python contrib_unused_imports.py
"""

import tensorflow as tf
from tensorflow.contrib.framework.python.ops import variables  # noqa: F401  # expect: contrib
from tensorflow.contrib.metrics.python.ops import set_ops  # noqa: F401  # expect: contrib
from tensorflow.python.ops import math_ops


def safe_divide(numerator, denominator):
    return tf.where(
        denominator > 0,
        math_ops.divide(numerator, denominator),  # expect: private-tf
        0.0 * numerator,
    )


def main():
    with tf.Graph().as_default():
        ratio = safe_divide(tf.constant([1.0, 2.0]), tf.constant([2.0, 0.0]))
        with tf.Session() as sess:
            print("ratio", sess.run(ratio).tolist())


if __name__ == "__main__":
    main()
