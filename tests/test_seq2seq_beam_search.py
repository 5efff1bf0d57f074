"""emg.seq2seq's BeamSearchDecoder and gather_tree: gather_tree against a
NumPy walk of the parent pointers, the beam search of a model whose next-token
probabilities are a fixed table (a Markov chain: the best beam is known by
hand) against a NumPy beam search, the length penalty, and an attention model
decoded with one beam against the greedy decoder.
"""

import numpy as np
import pytest
import tensorflow as tf

import estimator_multigpu as emg

v1 = tf.compat.v1
SOS, EOS, A, B = 0, 1, 2, 3


def _numpy_gather_tree(step_ids, parent_ids, max_lengths, end_token):
    """The GatherTree op's loops, written out."""
    max_time, batch, beam = step_ids.shape
    out = np.full_like(step_ids, end_token)
    for b in range(batch):
        length = min(max_time, max_lengths[b])
        for k in range(beam):
            if length <= 0:
                continue
            out[length - 1, b, k] = step_ids[length - 1, b, k]
            parent = parent_ids[length - 1, b, k]
            for t in range(length - 2, -1, -1):
                out[t, b, k] = step_ids[t, b, parent]
                parent = parent_ids[t, b, parent]
            ended = False
            for t in range(length):
                if ended:
                    out[t, b, k] = end_token
                elif out[t, b, k] == end_token:
                    ended = True
    return out


def _session_run(fetches):
    with v1.Session() as sess:
        sess.run(v1.global_variables_initializer())
        return sess.run(fetches)


def test_gather_tree_matches_the_ops_loops():
    rng = np.random.RandomState(0)
    max_time, batch, beam, end = 6, 5, 3, 9
    step_ids = rng.randint(0, 10, size=(max_time, batch, beam)).astype(np.int32)
    parent_ids = rng.randint(0, beam, size=(max_time, batch, beam)).astype(np.int32)
    lengths = np.array([6, 4, 0, 9, 1], np.int32)  # full, short, none, past the end
    with tf.Graph().as_default():
        got = _session_run(emg.seq2seq.gather_tree(step_ids, parent_ids, lengths, end))
    want = _numpy_gather_tree(step_ids, parent_ids, lengths, end)
    assert (step_ids == end).any()  # the end-token fill is exercised
    np.testing.assert_array_equal(got, want)


def test_gather_tree_refuses_a_parent_outside_the_beam():
    step_ids = np.zeros([2, 1, 2], np.int32)
    parent_ids = np.array([[[0, 0]], [[0, 5]]], np.int32)
    with tf.Graph().as_default():
        out = emg.seq2seq.gather_tree(step_ids, parent_ids, [2], 1)
        with pytest.raises(tf.errors.InvalidArgumentError, match="beam_width"):
            _session_run(out)


def test_gather_tree_refuses_arguments_of_the_wrong_shape():
    ids = np.zeros([3, 2, 4], np.int32)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="parent_ids must have the shape"):
            emg.seq2seq.gather_tree(ids, ids[:, :, :2], [3, 3], 1)
        with pytest.raises(ValueError, match="max_time, batch_size, beam_width"):
            emg.seq2seq.gather_tree(ids[0], ids[0], [3, 3], 1)
        with pytest.raises(ValueError, match="max_sequence_lengths must be a vector"):
            emg.seq2seq.gather_tree(ids, ids, 3, 1)
        with pytest.raises(ValueError, match="end_token must be a scalar"):
            emg.seq2seq.gather_tree(ids, ids, [3, 3], [1])


class _TableCell:
    """Outputs its input (the previous token, one-hot); the state is unused."""

    def __init__(self, vocab):
        self.output_size, self.state_size = vocab, 1

    def zero_state(self, batch, dtype):
        return tf.zeros([batch, 1], dtype)

    def __call__(self, inputs, state):
        return inputs, state


def _table_decode(table, batch, beam_width, steps, alignments=None, **kwargs):
    """Beam search over next-token probabilities table[previous token]
    (each step attending with `alignments` when given)."""
    vocab = table.shape[0]
    log_table = tf.constant(np.log(table), tf.float32)
    cell = (
        _TableCell(vocab) if alignments is None else _AttendingCell(vocab, alignments)
    )
    decoder = emg.seq2seq.BeamSearchDecoder(
        cell,
        tf.eye(vocab),
        tf.fill([batch], SOS),
        EOS,
        cell.zero_state(batch * beam_width, tf.float32),
        beam_width,
        output_layer=lambda h: tf.einsum("bkv,vw->bkw", h, log_table),
        **kwargs,
    )
    out, state, lengths = emg.seq2seq.dynamic_decode(decoder, maximum_iterations=steps)
    return _session_run(
        {
            "ids": out.predicted_ids,
            "step": out.beam_search_decoder_output,
            "lengths": lengths,
            "state_lengths": state.lengths,
        }
    )


def _numpy_beam_search(table, beam_width, steps, alpha=0.0, coverage=0.0, attend=None):
    """The beam search of one batch entry over table, step by step (GNMT's
    coverage penalty on the finished beams when each step attends with
    `attend`)."""
    vocab = table.shape[0]
    log_table = np.log(table).astype(np.float32)
    log_probs = np.full(beam_width, -np.inf, np.float32)
    log_probs[0] = 0.0
    finished = np.arange(beam_width) > 0
    lengths = np.zeros(beam_width, np.int64)
    last = np.full(beam_width, SOS)
    accumulated = np.zeros((beam_width, 1 if attend is None else len(attend)))
    scores, words, parents = [], [], []
    for _ in range(steps):
        step = log_table[last] - np.log(np.exp(log_table[last]).sum(1, keepdims=True))
        step[finished] = np.finfo(np.float32).min
        step[finished, EOS] = 0.0
        total = log_probs[:, None] + step
        grow = np.where(finished[:, None], 0, np.arange(vocab)[None] != EOS)
        penalty = ((5.0 + lengths[:, None] + grow) / 6.0) ** alpha
        if attend is not None:
            accumulated = accumulated + np.asarray(attend)[None] * ~finished[:, None]
        attended = np.where(accumulated == 0, 1.0, accumulated)
        cover = np.log(np.minimum(attended, 1.0)).sum(1) * finished * coverage
        flat = (total / penalty + cover[:, None]).ravel()
        best = np.argsort(-flat, kind="stable")[:beam_width]
        parent, word = best // vocab, best % vocab
        scores.append(flat[best])
        words.append(word)
        parents.append(parent)
        lengths = lengths[parent] + ~finished[parent]
        accumulated = accumulated[parent]
        finished = finished[parent] | (word == EOS)
        log_probs, last = total.ravel()[best], word
        if finished.all():
            break
    return np.array(scores), np.array(words), np.array(parents)


# Greedy takes A (0.55) and then never ends; B then EOS (0.4 * 0.9) is best.
MARKOV = np.array(
    [
        [0.01, 0.04, 0.55, 0.40],  # after SOS
        [0.25, 0.25, 0.25, 0.25],  # after EOS (masked: finished beams stay)
        [0.01, 0.30, 0.35, 0.34],  # after A
        [0.01, 0.90, 0.05, 0.04],  # after B
    ]
)


def test_the_beam_search_of_a_fixed_table_finds_the_best_sequence():
    with tf.Graph().as_default():
        got = _table_decode(MARKOV, batch=2, beam_width=2, steps=5)
    scores, words, parents = _numpy_beam_search(MARKOV, 2, 5)
    step = got["step"]
    for b in range(2):
        np.testing.assert_allclose(step.scores[b], scores, rtol=1e-5)
        np.testing.assert_array_equal(step.predicted_ids[b], words)
        np.testing.assert_array_equal(step.parent_ids[b], parents)
    assert got["ids"][0, :, 0].tolist() == [B, EOS, EOS, EOS, EOS]
    assert step.scores[0, -1, 0] == pytest.approx(np.log(0.4 * 0.9), rel=1e-5)
    assert got["ids"][0, :, 1].tolist() == [A, A, A, A, A]  # the runner-up
    assert got["state_lengths"][0].tolist() == [2, 5]
    # the final ids are the step ids traced back along the parents
    traced = _numpy_gather_tree(
        np.transpose(step.predicted_ids, [1, 0, 2]),
        np.transpose(step.parent_ids, [1, 0, 2]),
        got["state_lengths"].max(1),
        EOS,
    )
    np.testing.assert_array_equal(got["ids"], np.transpose(traced, [1, 0, 2]))


# EOS at once (0.5) against A repeated (0.45, then 0.985 a step): the length
# penalty ((5 + length) / 6) ** weight divides the (negative) log probability
# of the longer one by more, and turns the choice to it.
SHORT_OR_LONG = np.array(
    [
        [0.01, 0.50, 0.45, 0.04],
        [0.25, 0.25, 0.25, 0.25],
        [0.005, 0.005, 0.985, 0.005],
        [0.25, 0.25, 0.25, 0.25],
    ]
)


@pytest.mark.parametrize("weight", [0.0, 2.0])
def test_length_penalty_weight_prefers_the_longer_sequence(weight):
    with tf.Graph().as_default():
        got = _table_decode(
            SHORT_OR_LONG, batch=1, beam_width=2, steps=3, length_penalty_weight=weight
        )
    best = got["ids"][0, :, 0].tolist()
    final = got["step"].scores[0, -1, 0]
    scores, _, _ = _numpy_beam_search(SHORT_OR_LONG, 2, 3, alpha=weight)
    np.testing.assert_allclose(got["step"].scores[0], scores, rtol=1e-5)
    if weight == 0.0:
        assert best == [EOS, EOS, EOS]
        assert final == pytest.approx(np.log(0.5), rel=1e-5)
    else:
        assert best == [A, A, A]
        want = np.log(0.45 * 0.985**2) / (8.0 / 6.0) ** weight
        assert final == pytest.approx(want, rel=1e-5)


class _AttendingCell(_TableCell):
    """A _TableCell whose state is an AttentionWrapperState attending with
    the same `alignments` at every step."""

    def __init__(self, vocab, alignments):
        super().__init__(vocab)
        self.alignments = np.asarray(alignments, np.float32)

    def zero_state(self, batch, dtype):
        zeros = tf.zeros([batch, len(self.alignments)], dtype)
        return emg.seq2seq.AttentionWrapperState(
            cell_state=tf.zeros([batch, 1], dtype),
            attention=tf.zeros([batch, 1], dtype),
            time=tf.zeros([], tf.int32),
            alignments=zeros,
            alignment_history=(),
            attention_state=zeros,
        )

    def __call__(self, inputs, state):
        rows = tf.shape(inputs)[0]
        attend = tf.broadcast_to(
            self.alignments, tf.stack([rows, len(self.alignments)])
        )
        return inputs, state._replace(alignments=attend, time=state.time + 1)


# Each step attends 0.3, 0.3, 0 and 0.4 of a 4-step memory: a beam finished
# after one step has coverage log(0.3) + log(0.3) + log(0.4) (the unattended
# step counts 0), and only finished beams pay it.
ATTEND = [0.3, 0.3, 0.0, 0.4]


@pytest.mark.parametrize("weight", [0.0, 0.5])
def test_coverage_penalty_weight_penalizes_finished_beams_that_attended_little(weight):
    with tf.Graph().as_default():
        got = _table_decode(
            SHORT_OR_LONG,
            batch=1,
            beam_width=2,
            steps=3,
            alignments=ATTEND,
            coverage_penalty_weight=weight,
        )
    scores, words, parents = _numpy_beam_search(
        SHORT_OR_LONG, 2, 3, coverage=weight, attend=ATTEND
    )
    np.testing.assert_allclose(got["step"].scores[0], scores, rtol=1e-5)
    np.testing.assert_array_equal(got["step"].predicted_ids[0], words)
    np.testing.assert_array_equal(got["step"].parent_ids[0], parents)
    best = got["ids"][0, :, 0].tolist()
    if weight == 0.0:
        assert best == [EOS, EOS, EOS]
    else:
        assert best == [A, A, A]
        runner_up = np.log(0.5) + weight * np.log([0.3, 0.3, 0.4]).sum()
        assert got["step"].scores[0, -1, 1] == pytest.approx(runner_up, rel=1e-5)


def _attention_model(memory, lengths, batch_rows):
    """A Luong-attention decoder cell over `memory` and its start state."""
    units = 6
    cell = _Tanh(units)
    mechanism = emg.seq2seq.LuongAttention(
        units, memory, memory_sequence_length=lengths, scale=True
    )
    wrapper = emg.seq2seq.AttentionWrapper(
        cell, mechanism, attention_layer_size=5, alignment_history=True
    )
    return wrapper, wrapper.zero_state(batch_rows, tf.float32)


class _Tanh:
    def __init__(self, units):
        self.output_size = self.state_size = units

    def zero_state(self, batch, dtype):
        return tf.zeros([batch, self.output_size], dtype)

    def __call__(self, inputs, state):
        with v1.variable_scope("cell", reuse=v1.AUTO_REUSE):
            kernel = v1.get_variable(
                "kernel", [inputs.shape[-1] + self.output_size, self.output_size]
            )
        out = tf.tanh(tf.matmul(tf.concat([inputs, state], 1), kernel))
        return out, out


class _Projection:
    """A bias-free projection to `vocab` logits under the variable scope
    "projection"."""

    def __init__(self, vocab):
        self.vocab = vocab

    def compute_output_shape(self, shape):
        return tf.TensorShape(shape)[:-1].concatenate([self.vocab])

    def __call__(self, h):
        with v1.variable_scope("projection", reuse=v1.AUTO_REUSE):
            kernel = v1.get_variable("kernel", [h.shape[-1], self.vocab])
        return tf.tensordot(h, kernel, [[h.shape.rank - 1], [0]])


def test_one_beam_over_an_attention_model_is_the_greedy_decode():
    rng = np.random.RandomState(4)
    batch, vocab = 3, 7
    memory = rng.randn(batch, 5, 4).astype(np.float32)
    lengths = np.array([5, 3, 1], np.int32)
    with tf.Graph().as_default():
        v1.set_random_seed(5)
        embedding = v1.get_variable("embedding", [vocab, 4])
        start = tf.fill([batch], SOS)
        with v1.variable_scope("model"):
            cell, state = _attention_model(memory, lengths, batch)
            greedy = emg.seq2seq.BasicDecoder(
                cell,
                emg.seq2seq.GreedyEmbeddingHelper(embedding, start, EOS),
                state,
                output_layer=_Projection(vocab),
            )
            g_out, _, g_len = emg.seq2seq.dynamic_decode(greedy, maximum_iterations=6)
        with v1.variable_scope("model", reuse=True):
            tiled_memory = emg.seq2seq.tile_batch(memory, 1)
            cell, state = _attention_model(tiled_memory, lengths, batch)
            beam = emg.seq2seq.BeamSearchDecoder(
                cell, embedding, start, EOS, state, 1, output_layer=_Projection(vocab)
            )
            b_out, b_state, _ = emg.seq2seq.dynamic_decode(beam, maximum_iterations=6)
        names = sorted(v.op.name for v in v1.global_variables())
        history = b_state.cell_state.alignment_history
        got = _session_run(
            [
                g_out.sample_id,
                g_out.rnn_output,
                b_out.predicted_ids,
                history,
                b_state,
                g_len,
            ]
        )
    g_ids, logits, b_ids, history, b_state, g_len = got
    assert names == [
        "embedding",
        "model/decoder/attention_wrapper/attention_layer/kernel",
        "model/decoder/attention_wrapper/cell/kernel",
        "model/decoder/attention_wrapper/luong_attention/attention_g",
        "model/decoder/projection/kernel",
        "model/memory_layer/kernel",
    ]
    assert g_len.tolist() != [6, 6, 6]  # some sequence ends early
    inside = np.arange(g_ids.shape[1])[None, :] < g_len[:, None]
    np.testing.assert_array_equal(b_ids[:, : g_ids.shape[1], 0][inside], g_ids[inside])
    assert (b_ids[:, :, 0][~inside] == EOS).all()  # the end token past the end
    # the greedy sequence's log probability is the beam's score
    logp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    picked = np.take_along_axis(logp, g_ids[..., None], -1)[..., 0]
    alive = inside
    np.testing.assert_allclose(
        b_state.log_probs[:, 0], (picked * alive).sum(1), rtol=1e-4, atol=1e-5
    )
    # the alignment history came back stacked, [time, batch * beam, memory]
    assert history.shape[1:] == (batch, 5)
    assert np.allclose(history[:, 2, 1:], 0)  # entry 2 attends to its one step


def test_a_state_not_tiled_to_the_beam_is_refused_with_the_tiling_advice():
    with tf.Graph().as_default():
        cell = _TableCell(4)
        with pytest.raises(ValueError, match="tile_batch"):
            emg.seq2seq.BeamSearchDecoder(
                cell,
                tf.eye(4),
                tf.fill([3], SOS),
                EOS,
                cell.zero_state(3, tf.float32),
                2,
            )


@pytest.mark.parametrize("beam_width", [0, -1, 2.5, True])
def test_a_beam_width_below_one_or_not_an_int_is_refused(beam_width):
    with tf.Graph().as_default():
        cell = _TableCell(4)
        with pytest.raises(ValueError, match="beam_width"):
            emg.seq2seq.BeamSearchDecoder(
                cell,
                tf.eye(4),
                tf.fill([3], SOS),
                EOS,
                cell.zero_state(3, tf.float32),
                beam_width,
            )


def test_coverage_penalty_needs_an_attention_state():
    with tf.Graph().as_default():
        cell = _TableCell(4)
        with pytest.raises(ValueError, match="coverage_penalty_weight"):
            emg.seq2seq.BeamSearchDecoder(
                cell,
                tf.eye(4),
                tf.fill([1], SOS),
                EOS,
                cell.zero_state(2, tf.float32),
                2,
                coverage_penalty_weight=0.5,
            ).initialize()


def test_the_alignment_history_is_reordered_along_the_final_beams():
    rng = np.random.RandomState(8)
    batch, beam, vocab = 2, 3, 7
    memory = rng.randn(batch, 5, 4).astype(np.float32)
    lengths = np.array([5, 4], np.int32)
    runs = {}
    with tf.Graph().as_default():
        v1.set_random_seed(9)
        embedding = v1.get_variable("embedding", [vocab, 4])
        for reorder in (False, True):
            with v1.variable_scope("model", reuse=reorder):
                tiled = emg.seq2seq.tile_batch(memory, beam)
                cell, state = _attention_model(
                    tiled, emg.seq2seq.tile_batch(lengths, beam), batch * beam
                )
                decoder = emg.seq2seq.BeamSearchDecoder(
                    cell,
                    embedding,
                    tf.fill([batch], SOS),
                    EOS,
                    state,
                    beam,
                    output_layer=_Projection(vocab),
                    reorder_tensor_arrays=reorder,
                )
                out, final, _ = emg.seq2seq.dynamic_decode(
                    decoder, maximum_iterations=6, output_time_major=True
                )
                history = final.cell_state.alignment_history
                runs[reorder] = (
                    history if reorder else history.stack(),
                    out.beam_search_decoder_output.parent_ids,
                    final.lengths,
                )
        (got, _, _), (raw, parents, final_lengths) = _session_run(
            [runs[True], runs[False]]
        )
    steps = raw.shape[0]
    beam_ids = np.broadcast_to(np.arange(beam), parents.shape).astype(np.int32)
    order = _numpy_gather_tree(beam_ids, parents, final_lengths.max(1), beam + 1)
    inside = np.arange(steps)[:, None, None] < final_lengths[None]
    order = np.where(inside, order, beam_ids)
    raw = raw.reshape(steps, batch, beam, -1)
    want = np.take_along_axis(raw, order[..., None], axis=2).reshape(got.shape)
    assert not np.allclose(want, raw.reshape(got.shape))  # the beams did move
    np.testing.assert_allclose(got, want, rtol=1e-6)
