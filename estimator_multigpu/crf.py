"""tf.contrib.crf of TF 1.15, on TF 2.x: a linear-chain CRF, argument for argument.

`crf_log_likelihood`, `crf_decode`, `viterbi_decode` and the scores they are
made of compute what TF 1.15's did, op for op: the same forward algorithm
and Viterbi recursions run by `tf.compat.v1.nn.dynamic_rnn` over the same
cells, the same handling of one-step and empty sequences, and the same
`transitions` variable (`tf.compat.v1.get_variable("transitions", [num_tags,
num_tags])`) when no transition matrix is passed. The cells are duck-typed
RNN cells (`state_size`, `output_size`, `zero_state`, `__call__`): TF 2.16+
keeps `tf.compat.v1.nn.rnn_cell.RNNCell` in tf-keras only, and
`dynamic_rnn` needs no more. Graph mode or eager.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

__all__ = [
    "CrfDecodeBackwardRnnCell",
    "CrfDecodeForwardRnnCell",
    "CrfForwardRnnCell",
    "crf_binary_score",
    "crf_decode",
    "crf_log_likelihood",
    "crf_log_norm",
    "crf_sequence_score",
    "crf_unary_score",
    "viterbi_decode",
]


def _smart_cond(pred, true_fn, false_fn):
    """`true_fn()` or `false_fn()` when `pred` is known now, else tf.cond."""
    static = tf.get_static_value(pred)
    if static is not None:
        return true_fn() if static else false_fn()
    return tf.cond(pred, true_fn, false_fn)


def _max_len_is_one(inputs):
    return tf.equal(
        tf.compat.dimension_value(inputs.shape[1]) or tf.shape(inputs)[1], 1
    )


def _zero_empty(values, sequence_lengths):
    """`values`, with 0 where a sequence is empty (length <= 0)."""
    return tf.where(tf.less_equal(sequence_lengths, 0), tf.zeros_like(values), values)


def crf_sequence_score(inputs, tag_indices, sequence_lengths, transition_params):
    """The unnormalized score of each tag sequence ([batch_size]).

    Args:
      inputs: [batch_size, max_seq_len, num_tags] unary potentials.
      tag_indices: [batch_size, max_seq_len] tag indices.
      sequence_lengths: [batch_size] true lengths.
      transition_params: [num_tags, num_tags] transition matrix.
    """

    def _single_seq_fn():
        batch_size = tf.shape(inputs, out_type=tag_indices.dtype)[0]
        example_inds = tf.reshape(
            tf.range(batch_size, dtype=tag_indices.dtype), [-1, 1]
        )
        scores = tf.gather_nd(
            tf.squeeze(inputs, [1]), tf.concat([example_inds, tag_indices], axis=1)
        )
        return _zero_empty(scores, sequence_lengths)

    def _multi_seq_fn():
        unary = crf_unary_score(tag_indices, sequence_lengths, inputs)
        binary = crf_binary_score(tag_indices, sequence_lengths, transition_params)
        return unary + binary

    return _smart_cond(_max_len_is_one(inputs), _single_seq_fn, _multi_seq_fn)


def crf_log_norm(inputs, sequence_lengths, transition_params):
    """The log partition function of each sequence ([batch_size]).

    Args:
      inputs: [batch_size, max_seq_len, num_tags] unary potentials.
      sequence_lengths: [batch_size] true sequence lengths.
      transition_params: [num_tags, num_tags] transition matrix.
    """
    first_input = tf.squeeze(tf.slice(inputs, [0, 0, 0], [-1, 1, -1]), [1])

    def _single_seq_fn():
        log_norm = tf.reduce_logsumexp(first_input, [1])
        return _zero_empty(log_norm, sequence_lengths)

    def _multi_seq_fn():
        rest_of_input = tf.slice(inputs, [0, 1, 0], [-1, -1, -1])
        forward_cell = CrfForwardRnnCell(transition_params)
        lengths_less_one = tf.maximum(
            tf.constant(0, dtype=sequence_lengths.dtype), sequence_lengths - 1
        )
        _, alphas = tf.compat.v1.nn.dynamic_rnn(
            cell=forward_cell,
            inputs=rest_of_input,
            sequence_length=lengths_less_one,
            initial_state=first_input,
            dtype=tf.float32,
        )
        log_norm = tf.reduce_logsumexp(alphas, [1])
        return _zero_empty(log_norm, sequence_lengths)

    return _smart_cond(_max_len_is_one(inputs), _single_seq_fn, _multi_seq_fn)


def crf_log_likelihood(inputs, tag_indices, sequence_lengths, transition_params=None):
    """(log-likelihood of each tag sequence [batch_size], the transition matrix).

    Without `transition_params`, makes the variable `transitions`
    ([num_tags, num_tags]) in the current variable scope, as TF 1.x did.

    Args:
      inputs: [batch_size, max_seq_len, num_tags] unary potentials.
      tag_indices: [batch_size, max_seq_len] int tag indices.
      sequence_lengths: [batch_size] true sequence lengths.
      transition_params: [num_tags, num_tags] transition matrix.
    """
    num_tags = tf.compat.dimension_value(inputs.shape[2])
    if transition_params is None:
        transition_params = tf.compat.v1.get_variable(
            "transitions", [num_tags, num_tags]
        )
    sequence_scores = crf_sequence_score(
        inputs, tag_indices, sequence_lengths, transition_params
    )
    log_norm = crf_log_norm(inputs, sequence_lengths, transition_params)
    return sequence_scores - log_norm, transition_params


def crf_unary_score(tag_indices, sequence_lengths, inputs):
    """The unary score of each tag sequence ([batch_size]).

    Args:
      tag_indices: [batch_size, max_seq_len] int tag indices.
      sequence_lengths: [batch_size] true sequence lengths.
      inputs: [batch_size, max_seq_len, num_tags] unary potentials.
    """
    batch_size = tf.shape(inputs)[0]
    max_seq_len = tf.shape(inputs)[1]
    num_tags = tf.shape(inputs)[2]
    flattened_inputs = tf.reshape(inputs, [-1])
    offsets = tf.expand_dims(tf.range(batch_size) * max_seq_len * num_tags, 1)
    offsets += tf.expand_dims(tf.range(max_seq_len) * num_tags, 0)
    if tag_indices.dtype == tf.int64:
        offsets = tf.cast(offsets, tf.int64)
    flattened_tag_indices = tf.reshape(offsets + tag_indices, [-1])
    unary_scores = tf.reshape(
        tf.gather(flattened_inputs, flattened_tag_indices), [batch_size, max_seq_len]
    )
    masks = tf.sequence_mask(
        sequence_lengths, maxlen=tf.shape(tag_indices)[1], dtype=tf.float32
    )
    return tf.reduce_sum(unary_scores * masks, 1)


def crf_binary_score(tag_indices, sequence_lengths, transition_params):
    """The transition score of each tag sequence ([batch_size]).

    Args:
      tag_indices: [batch_size, max_seq_len] int tag indices.
      sequence_lengths: [batch_size] true sequence lengths.
      transition_params: [num_tags, num_tags] transition matrix.
    """
    num_tags = transition_params.get_shape()[0]
    num_transitions = tf.shape(tag_indices)[1] - 1
    start_tag_indices = tf.slice(tag_indices, [0, 0], [-1, num_transitions])
    end_tag_indices = tf.slice(tag_indices, [0, 1], [-1, num_transitions])
    flattened_transition_indices = start_tag_indices * num_tags + end_tag_indices
    flattened_transition_params = tf.reshape(transition_params, [-1])
    binary_scores = tf.gather(flattened_transition_params, flattened_transition_indices)
    masks = tf.sequence_mask(
        sequence_lengths, maxlen=tf.shape(tag_indices)[1], dtype=tf.float32
    )
    truncated_masks = tf.slice(masks, [0, 1], [-1, -1])
    return tf.reduce_sum(binary_scores * truncated_masks, 1)


class _Cell:
    """What `dynamic_rnn` needs of a cell besides `__call__`."""

    _size = 1

    @property
    def state_size(self):
        return self._size

    @property
    def output_size(self):
        return self._size

    def zero_state(self, batch_size, dtype):
        return tf.zeros([batch_size, self._size], dtype)


class CrfForwardRnnCell(_Cell):
    """The alpha values of the forward algorithm, one step at a time."""

    def __init__(self, transition_params):
        self._transition_params = tf.expand_dims(transition_params, 0)
        self._size = tf.compat.dimension_value(transition_params.shape[0])

    def __call__(self, inputs, state, scope=None):
        state = tf.expand_dims(state, 2)
        transition_scores = state + self._transition_params
        new_alphas = inputs + tf.reduce_logsumexp(transition_scores, [1])
        return new_alphas, new_alphas


class CrfDecodeForwardRnnCell(_Cell):
    """The forward pass of Viterbi decoding: backpointers and scores."""

    def __init__(self, transition_params):
        self._transition_params = tf.expand_dims(transition_params, 0)
        self._size = tf.compat.dimension_value(transition_params.shape[0])

    def __call__(self, inputs, state, scope=None):
        state = tf.expand_dims(state, 2)  # [B, O, 1]
        transition_scores = state + self._transition_params  # [B, O, O]
        new_state = inputs + tf.reduce_max(transition_scores, [1])  # [B, O]
        backpointers = tf.cast(tf.argmax(transition_scores, 1), dtype=tf.int32)
        return backpointers, new_state


class CrfDecodeBackwardRnnCell(_Cell):
    """The backward pass of Viterbi decoding: follows the backpointers."""

    def __init__(self, num_tags):
        self._num_tags = num_tags

    def __call__(self, inputs, state, scope=None):
        state = tf.squeeze(state, axis=[1])  # [B]
        b_indices = tf.range(tf.shape(inputs)[0])  # [B]
        indices = tf.stack([b_indices, state], axis=1)  # [B, 2]
        new_tags = tf.expand_dims(tf.gather_nd(inputs, indices), axis=-1)  # [B, 1]
        return new_tags, new_tags


def viterbi_decode(score, transition_params):
    """(the best tag sequence as a list, its score) of one [seq_len, num_tags]
    array of unary potentials, in NumPy.

    Args:
      score: [seq_len, num_tags] unary potentials (numpy).
      transition_params: [num_tags, num_tags] transition matrix.
    """
    trellis = np.zeros_like(score)
    backpointers = np.zeros_like(score, dtype=np.int32)
    trellis[0] = score[0]
    for t in range(1, score.shape[0]):
        v = np.expand_dims(trellis[t - 1], 1) + transition_params
        trellis[t] = score[t] + np.max(v, 0)
        backpointers[t] = np.argmax(v, 0)
    viterbi = [np.argmax(trellis[-1])]
    for bp in reversed(backpointers[1:]):
        viterbi.append(bp[viterbi[-1]])
    viterbi.reverse()
    viterbi_score = np.max(trellis[-1])
    return viterbi, viterbi_score


def crf_decode(potentials, transition_params, sequence_length):
    """(the best tag sequences [batch_size, max_seq_len] int32, their scores).

    Args:
      potentials: [batch_size, max_seq_len, num_tags] unary potentials.
      transition_params: [num_tags, num_tags] transition matrix.
      sequence_length: [batch_size] true sequence lengths.
    """

    def _single_seq_fn():
        squeezed = tf.squeeze(potentials, [1])
        decode_tags = tf.expand_dims(tf.argmax(squeezed, axis=1), 1)
        best_score = tf.reduce_max(squeezed, axis=1)
        return tf.cast(decode_tags, dtype=tf.int32), best_score

    def _multi_seq_fn():
        num_tags = tf.compat.dimension_value(potentials.shape[2])
        initial_state = tf.squeeze(
            tf.slice(potentials, [0, 0, 0], [-1, 1, -1]), axis=[1]
        )
        inputs = tf.slice(potentials, [0, 1, 0], [-1, -1, -1])  # [B, T-1, O]
        length_less_one = tf.maximum(
            tf.constant(0, dtype=sequence_length.dtype), sequence_length - 1
        )
        backpointers, last_score = tf.compat.v1.nn.dynamic_rnn(
            CrfDecodeForwardRnnCell(transition_params),
            inputs=inputs,
            sequence_length=length_less_one,
            initial_state=initial_state,
            time_major=False,
            dtype=tf.int32,
        )
        backpointers = tf.reverse_sequence(backpointers, length_less_one, seq_axis=1)
        initial_state = tf.cast(tf.argmax(last_score, axis=1), dtype=tf.int32)
        initial_state = tf.expand_dims(initial_state, axis=-1)  # [B, 1]
        decode_tags, _ = tf.compat.v1.nn.dynamic_rnn(
            CrfDecodeBackwardRnnCell(num_tags),
            inputs=backpointers,
            sequence_length=length_less_one,
            initial_state=initial_state,
            time_major=False,
            dtype=tf.int32,
        )
        decode_tags = tf.squeeze(decode_tags, axis=[2])  # [B, T - 1]
        decode_tags = tf.concat([initial_state, decode_tags], axis=1)  # [B, T]
        decode_tags = tf.reverse_sequence(decode_tags, sequence_length, seq_axis=1)
        best_score = tf.reduce_max(last_score, axis=1)  # [B]
        return decode_tags, best_score

    return _smart_cond(_max_len_is_one(potentials), _single_seq_fn, _multi_seq_fn)
