"""emg.seq2seq: tf.contrib.seq2seq's decoder loop and helpers, run in graph mode
against the same cell unrolled by hand (the values and the variable names).

The cells here are plain objects (the decoder only calls them and reads
`output_size`), so no tf-keras is imported into the test process; the corpus
script of tests/test_migrate_contrib_seq2seq.py runs tf.compat.v1's cells.
"""

import collections

import numpy as np
import pytest
import tensorflow as tf

import estimator_multigpu as emg

v1 = tf.compat.v1
BATCH, TIME, DEPTH, UNITS, VOCAB = 3, 4, 5, 6, 7


class _Cell:
    """A tanh RNN cell with its kernel under the variable scope "cell"."""

    output_size = state_size = UNITS

    def zero_state(self, batch, dtype):
        return tf.zeros([batch, UNITS], dtype)

    def __call__(self, inputs, state):
        with v1.variable_scope("cell", reuse=v1.AUTO_REUSE):
            kernel = v1.get_variable("kernel", [inputs.shape[-1] + UNITS, UNITS])
        out = tf.tanh(tf.matmul(tf.concat([inputs, state], 1), kernel))
        return out, out


class _Dense:
    """A bias-free projection to VOCAB logits under the variable scope "dense"."""

    def __call__(self, inputs):
        with v1.variable_scope("dense", reuse=v1.AUTO_REUSE):
            kernel = v1.get_variable("kernel", [UNITS, VOCAB])
        return tf.matmul(inputs, kernel)

    def compute_output_shape(self, shape):
        return tf.TensorShape(shape)[:-1].concatenate([VOCAB])


def _graph():
    graph = tf.Graph()
    with graph.as_default():
        v1.set_random_seed(3)
    return graph


def test_training_decode_is_the_cell_unrolled_and_names_contribs_variables():
    rng = np.random.RandomState(0)
    inputs = rng.randn(BATCH, TIME, DEPTH).astype(np.float32)
    lengths = np.array([4, 2, 3], np.int32)
    with _graph().as_default():
        cell, dense = _Cell(), _Dense()
        state = cell.zero_state(BATCH, tf.float32)
        helper = emg.seq2seq.TrainingHelper(inputs, lengths)
        decoder = emg.seq2seq.BasicDecoder(cell, helper, state, output_layer=dense)
        out, final, seq = emg.seq2seq.dynamic_decode(decoder, impute_finished=True)
        with v1.variable_scope("decoder", reuse=True):
            s, manual = state, []
            for t in range(TIME):
                o, s = cell(tf.constant(inputs[:, t]), s)
                manual.append(dense(o))
        names = sorted(v.op.name for v in v1.global_variables())
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            got, ids, lens, want = sess.run(
                [out.rnn_output, out.sample_id, seq, tf.stack(manual, 1)]
            )
    assert names == ["decoder/cell/kernel", "decoder/dense/kernel"]
    assert isinstance(out, emg.seq2seq.BasicDecoderOutput)
    assert lens.tolist() == [4, 2, 3] and got.shape == (BATCH, TIME, VOCAB)
    mask = np.arange(TIME)[None, :] < lengths[:, None]
    np.testing.assert_allclose(got[mask], want[mask], rtol=1e-5, atol=1e-6)
    assert (got[~mask] == 0).all()  # impute_finished: zeros past each end
    np.testing.assert_array_equal(ids[mask], want.argmax(-1)[mask])


@pytest.mark.parametrize(
    "helper_name", ["GreedyEmbeddingHelper", "SampleEmbeddingHelper"]
)
def test_embedding_helpers_feed_back_their_samples_until_the_end_token(helper_name):
    with _graph().as_default():
        embedding = tf.constant(np.eye(VOCAB, DEPTH, dtype=np.float32))
        cell, dense = _Cell(), _Dense()
        helper = getattr(emg.seq2seq, helper_name)(embedding, tf.fill([BATCH], 1), 2)
        decoder = emg.seq2seq.BasicDecoder(
            cell, helper, cell.zero_state(BATCH, tf.float32), output_layer=dense
        )
        out, _, seq = emg.seq2seq.dynamic_decode(
            decoder, maximum_iterations=6, output_time_major=True
        )
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            logits, ids, lens = sess.run([out.rnn_output, out.sample_id, seq])
    steps = logits.shape[0]
    assert 1 <= steps <= 6 and ids.shape == (steps, BATCH)
    if helper_name == "GreedyEmbeddingHelper":
        np.testing.assert_array_equal(ids, logits.argmax(-1))
    for b in range(BATCH):  # a sequence ends with its first end token, or at 6
        ends = np.flatnonzero(ids[:, b] == 2)
        assert lens[b] == (ends[0] + 1 if ends.size else steps)


def test_tile_batch_repeats_each_entry_of_a_structure():
    with tf.Graph().as_default():
        pair = collections.namedtuple("State", "c h")
        state = pair(tf.constant([[1.0], [2.0]]), tf.constant([[3.0], [4.0]]))
        tiled = emg.seq2seq.tile_batch(state, multiplier=2)
        assert tiled.c.shape.as_list() == [4, 1]
        with v1.Session() as sess:
            c, h = sess.run(tiled)
    assert c.ravel().tolist() == [1, 1, 2, 2] and h.ravel().tolist() == [3, 3, 4, 4]


def test_a_decoder_that_is_not_one_is_refused():
    with pytest.raises(TypeError, match="Decoder"):
        emg.seq2seq.dynamic_decode(object())
