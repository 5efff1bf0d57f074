"""A residual wrapper over nested RNN state with tf.contrib.framework.nest, as
the multi-layer decoders of 2017-2018 wrote it (their cells' state is a tuple
of LSTM state tuples).

After `emg-migrate --fix` the nest functions are tf.nest's (is_sequence is
is_nested there) and the module import goes.
Usage: python contrib_framework_nest.py
"""

import collections

import tensorflow as tf
from tensorflow.contrib.framework import nest

State = collections.namedtuple("State", "c h")


def residual(inputs, outputs):
    nest.assert_same_structure(inputs, outputs)  # expect: contrib
    return nest.map_structure(lambda i, o: i + o, inputs, outputs)  # expect: contrib


def main():
    state = (State(tf.ones([2, 3]), tf.zeros([2, 3])), State(tf.ones([2, 3]), tf.ones([2, 3])))
    if not tf.contrib.framework.nest.is_sequence(state):  # expect: contrib
        raise SystemExit("a state tuple is a sequence")
    summed = residual(state, state)
    flat = nest.flatten(summed)  # expect: contrib
    packed = nest.pack_sequence_as(state, [t * 0 for t in flat])  # expect: contrib
    with tf.Session() as sess:
        print("sums", [float(v.sum()) for v in sess.run(flat)])
        print("packed", type(packed[1]).__name__, sess.run(packed[1].h).sum())


if __name__ == "__main__":
    main()
