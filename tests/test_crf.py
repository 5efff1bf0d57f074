"""emg.crf: TF 1.15's linear-chain CRF, checked against brute force over every
tag sequence (log-likelihood, Viterbi decoding) in graph mode and eagerly."""

import itertools

import numpy as np
import pytest
import tensorflow as tf

from estimator_multigpu import crf

RNG = np.random.RandomState(0)
B, T, TAGS_N = 3, 4, 3
INPUTS = RNG.randn(B, T, TAGS_N).astype(np.float32)
TAGS = RNG.randint(TAGS_N, size=(B, T)).astype(np.int32)
LENGTHS = np.array([4, 2, 1], np.int32)
TRANSITIONS = RNG.randn(TAGS_N, TAGS_N).astype(np.float32)


def _score(unary, tags, length):
    return sum(unary[i, tags[i]] for i in range(length)) + sum(
        TRANSITIONS[tags[i], tags[i + 1]] for i in range(length - 1)
    )


def _brute_force(b):
    """(log-likelihood of TAGS[b], the best sequence) over all sequences."""
    length = LENGTHS[b]
    paths = list(itertools.product(range(TAGS_N), repeat=length))
    scores = [_score(INPUTS[b], p, length) for p in paths]
    log_norm = np.log(np.sum(np.exp(scores)))
    best = paths[int(np.argmax(scores))]
    return _score(INPUTS[b], TAGS[b], length) - log_norm, list(best), max(scores)


def _graph(*tensors):
    with tf.compat.v1.Session() as sess:
        sess.run(tf.compat.v1.global_variables_initializer())
        return sess.run(tensors)


def test_log_likelihood_and_decode_match_brute_force():
    with tf.Graph().as_default():
        likelihood, _ = crf.crf_log_likelihood(
            tf.constant(INPUTS),
            tf.constant(TAGS),
            tf.constant(LENGTHS),
            tf.constant(TRANSITIONS),
        )
        tags, scores = crf.crf_decode(
            tf.constant(INPUTS), tf.constant(TRANSITIONS), tf.constant(LENGTHS)
        )
        likelihood, tags, scores = _graph(likelihood, tags, scores)
    for b in range(B):
        want, best, best_score = _brute_force(b)
        assert likelihood[b] == pytest.approx(want, abs=1e-4)
        assert tags[b][: LENGTHS[b]].tolist() == best
        assert scores[b] == pytest.approx(best_score, abs=1e-4)
        path, score = crf.viterbi_decode(INPUTS[b][: LENGTHS[b]], TRANSITIONS)
        assert [int(t) for t in path] == best and score == pytest.approx(best_score)


def test_without_transitions_it_makes_the_tf1_variable():
    with tf.Graph().as_default():
        with tf.compat.v1.variable_scope("crf_layer"):
            _, transitions = crf.crf_log_likelihood(
                tf.constant(INPUTS), tf.constant(TAGS), tf.constant(LENGTHS)
            )
        assert transitions.name == "crf_layer/transitions:0"
        assert transitions.shape.as_list() == [TAGS_N, TAGS_N]
        assert transitions in tf.compat.v1.trainable_variables()


def test_one_step_sequences_and_eager_mode():
    inputs = tf.constant(INPUTS[:, :1])
    tags, scores = crf.crf_decode(
        inputs, tf.constant(TRANSITIONS), tf.constant([1, 1, 1])
    )
    assert tags.numpy()[:, 0].tolist() == INPUTS[:, 0].argmax(1).tolist()
    assert np.allclose(scores.numpy(), INPUTS[:, 0].max(1))
    likelihood, _ = crf.crf_log_likelihood(
        inputs,
        tf.constant(TAGS[:, :1]),
        tf.constant([1, 1, 0]),
        tf.constant(TRANSITIONS),
    )
    assert likelihood.numpy()[2] == 0.0
