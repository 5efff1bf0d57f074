"""TF 1.15's monotonic attention (tf.contrib.seq2seq's attention_wrapper
module): safe_cumprod, monotonic_attention and the Bahdanau and Luong
monotonic mechanisms (Raffel et al., "Online and Linear-Time Attention by
Enforcing Monotonic Alignments", ICML 2017), on tf.compat.v1."""

from __future__ import annotations

import functools

import numpy as np
import tensorflow as tf

from estimator_multigpu.seq2seq._attention import (
    BaseAttentionMechanism,
    BiasFreeDense,
    bahdanau_score,
    luong_score,
)

__all__ = [
    "BahdanauMonotonicAttention",
    "LuongMonotonicAttention",
    "monotonic_attention",
    "safe_cumprod",
]

_v1 = tf.compat.v1
_MODES = ("recursive", "parallel", "hard")


def safe_cumprod(x, *args, **kwargs):
    """cumprod(x) computed as exp(cumsum(log(x))), x clipped to [tiny, 1].

    Takes `tf.math.cumprod`'s arguments (axis, exclusive, reverse).
    """
    with tf.name_scope("SafeCumprod"):
        x = tf.convert_to_tensor(x, name="x")
        tiny = np.finfo(x.dtype.as_numpy_dtype).tiny
        return tf.exp(
            tf.cumsum(tf.math.log(tf.clip_by_value(x, tiny, 1)), *args, **kwargs)
        )


def _recursive(p_choose_i, previous_attention):
    """q[i] = (1 - p[i - 1]) q[i - 1] + previous[i]; attention = p * q."""
    batch_size = (
        tf.compat.dimension_value(p_choose_i.shape[0]) or tf.shape(p_choose_i)[0]
    )
    shifted = tf.concat(
        [tf.ones(tf.stack([batch_size, 1]), p_choose_i.dtype), 1 - p_choose_i[:, :-1]],
        1,
    )
    q = tf.scan(
        lambda x, yz: tf.reshape(yz[0] * x + yz[1], tf.reshape(batch_size, [1])),
        [tf.transpose(shifted), tf.transpose(previous_attention)],
        tf.zeros(tf.reshape(batch_size, [1]), p_choose_i.dtype),
    )
    return p_choose_i * tf.transpose(q)


def monotonic_attention(p_choose_i, previous_attention, mode):
    """The monotonic attention distribution from choosing probabilities.

    Args:
      p_choose_i: [batch_size, memory_time], each memory step's probability
        of being chosen, in [0, 1].
      previous_attention: [batch_size, memory_time], the last step's
        attention ([1, 0, ..., 0] before the first).
      mode: "recursive" (exact, a tf.scan), "parallel" (cumsum and
        cumprod, approximate near 0 and 1) or "hard" (p_choose_i all 0 or 1).

    Returns:
      [batch_size, memory_time], the attention distribution.
    """
    p_choose_i = tf.convert_to_tensor(p_choose_i, name="p_choose_i")
    previous_attention = tf.convert_to_tensor(
        previous_attention, name="previous_attention"
    )
    if mode == "recursive":
        return _recursive(p_choose_i, previous_attention)
    if mode == "parallel":
        cumprod_1mp = safe_cumprod(1 - p_choose_i, axis=1, exclusive=True)
        return (
            p_choose_i
            * cumprod_1mp
            * tf.cumsum(
                previous_attention / tf.clip_by_value(cumprod_1mp, 1e-10, 1.0), axis=1
            )
        )
    if mode == "hard":
        p_choose_i *= tf.cumsum(previous_attention, axis=1)
        return p_choose_i * tf.math.cumprod(1 - p_choose_i, axis=1, exclusive=True)
    raise ValueError(
        f"mode must be 'recursive', 'parallel', or 'hard', received {mode!r}"
    )


def _monotonic_probability_fn(score, previous_alignments, sigmoid_noise, mode, seed):
    """Noisy sigmoid (a step for "hard") of the scores, then the monotonic
    attention."""
    if sigmoid_noise > 0:
        score += sigmoid_noise * tf.random.normal(
            tf.shape(score), dtype=score.dtype, seed=seed
        )
    if mode == "hard":
        p_choose_i = tf.cast(score > 0, score.dtype)
    else:
        p_choose_i = tf.sigmoid(score)
    return monotonic_attention(p_choose_i, previous_alignments, mode)


def _monotonic_fn(sigmoid_noise, mode, seed):
    if mode not in _MODES:
        raise ValueError(
            f"mode must be 'recursive', 'parallel', or 'hard', received {mode!r}"
        )
    return functools.partial(
        _monotonic_probability_fn, sigmoid_noise=sigmoid_noise, mode=mode, seed=seed
    )


class _BaseMonotonicAttentionMechanism(BaseAttentionMechanism):
    """Starts from all attention on the first memory step."""

    def initial_alignments(self, batch_size, dtype):
        return tf.one_hot(
            tf.zeros(tf.reshape(batch_size, [1]), dtype=tf.int32),
            self._alignments_size,
            dtype=dtype,
        )

    def _biased(self, score, dtype):
        bias = _v1.get_variable(
            "attention_score_bias",
            shape=(),
            dtype=dtype,
            initializer=_v1.constant_initializer(self._score_bias_init),
        )
        return score + bias


class BahdanauMonotonicAttention(_BaseMonotonicAttentionMechanism):
    """Monotonic attention with Bahdanau's score plus a learned scalar bias
    (`attention_score_bias`).

    Args:
      num_units: the depth of the query and memory projections.
      memory: [batch_size, max_time, depth].
      memory_sequence_length: each entry's length, or None.
      normalize: Bahdanau's weight-normalized score.
      score_mask_value: the masked score (-inf by default).
      sigmoid_noise: the standard deviation of the noise added before the
        sigmoid (0 at test time).
      sigmoid_noise_seed: the noise's seed.
      score_bias_init: the bias's first value (negative for long memories).
      mode: "recursive", "parallel" or "hard" (see `monotonic_attention`).
      dtype: the projections' dtype (float32 by default).
      name: the name scope.
    """

    def __init__(
        self,
        num_units,
        memory,
        memory_sequence_length=None,
        normalize=False,
        score_mask_value=None,
        sigmoid_noise=0.0,
        sigmoid_noise_seed=None,
        score_bias_init=0.0,
        mode="parallel",
        dtype=None,
        name="BahdanauMonotonicAttention",
    ):
        super().__init__(
            query_layer=BiasFreeDense(num_units, name="query_layer", dtype=dtype),
            memory_layer=BiasFreeDense(num_units, name="memory_layer", dtype=dtype),
            memory=memory,
            probability_fn=_monotonic_fn(sigmoid_noise, mode, sigmoid_noise_seed),
            memory_sequence_length=memory_sequence_length,
            score_mask_value=score_mask_value,
            name=name,
        )
        self._num_units = num_units
        self._normalize = normalize
        self._name = name
        self._score_bias_init = score_bias_init

    def __call__(self, query, state):
        """(alignments, next_state) for `query` [batch_size, depth]."""
        with _v1.variable_scope(None, "bahdanau_monotonic_attention", [query]):
            processed = self._query_layer(tf.convert_to_tensor(query, name="query"))
            score = bahdanau_score(
                processed, self._keys, self._num_units, self._normalize
            )
            score = self._biased(score, processed.dtype)
        alignments = self._probability_fn(score, state)
        return alignments, alignments


class LuongMonotonicAttention(_BaseMonotonicAttentionMechanism):
    """Monotonic attention with Luong's score plus a learned scalar bias
    (`attention_score_bias`).

    Args:
      num_units: the depth of the keys; it must equal the query's depth.
      memory: [batch_size, max_time, depth].
      memory_sequence_length: each entry's length, or None.
      scale: multiply the score by a learned scalar `attention_g`.
      score_mask_value: the masked score (-inf by default).
      sigmoid_noise: the standard deviation of the noise added before the
        sigmoid (0 at test time).
      sigmoid_noise_seed: the noise's seed.
      score_bias_init: the bias's first value (negative for long memories).
      mode: "recursive", "parallel" or "hard" (see `monotonic_attention`).
      dtype: the memory layer's dtype (float32 by default).
      name: the name scope.
    """

    def __init__(
        self,
        num_units,
        memory,
        memory_sequence_length=None,
        scale=False,
        score_mask_value=None,
        sigmoid_noise=0.0,
        sigmoid_noise_seed=None,
        score_bias_init=0.0,
        mode="parallel",
        dtype=None,
        name="LuongMonotonicAttention",
    ):
        super().__init__(
            query_layer=None,
            memory_layer=BiasFreeDense(num_units, name="memory_layer", dtype=dtype),
            memory=memory,
            probability_fn=_monotonic_fn(sigmoid_noise, mode, sigmoid_noise_seed),
            memory_sequence_length=memory_sequence_length,
            score_mask_value=score_mask_value,
            name=name,
        )
        self._num_units = num_units
        self._scale = scale
        self._score_bias_init = score_bias_init
        self._name = name

    def __call__(self, query, state):
        """(alignments, next_state) for `query` [batch_size, depth]."""
        with _v1.variable_scope(None, "luong_monotonic_attention", [query]):
            query = tf.convert_to_tensor(query, name="query")
            score = luong_score(query, self._keys, self._scale)
            score = self._biased(score, query.dtype)
        alignments = self._probability_fn(score, state)
        return alignments, alignments
