"""emg.seq2seq's attention mechanisms and AttentionWrapper against the same
steps computed by hand in NumPy (from the variables' values), and the
variable names TF 1.15 gave them (so TF 1.x checkpoints load).

The cell is a plain object (the wrapper only calls it and reads its sizes),
as in tests/test_seq2seq.py.
"""

import numpy as np
import pytest
import tensorflow as tf

import estimator_multigpu as emg

v1 = tf.compat.v1
BATCH, MEM_TIME, MEM_DEPTH, DEPTH, UNITS = 2, 4, 3, 3, 6
LENGTHS = np.array([4, 2], np.int32)


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


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _data():
    rng = np.random.RandomState(1)
    memory = rng.randn(BATCH, MEM_TIME, MEM_DEPTH).astype(np.float32)
    inputs = rng.randn(BATCH, 2, DEPTH).astype(np.float32)
    return memory, inputs


def _masked(memory):
    mask = np.arange(MEM_TIME)[None, :] < LENGTHS[:, None]
    return memory * mask[..., None], mask


def _bahdanau_score(w, scope, query, keys, normalize):
    q = query @ w[f"{scope}/bahdanau_attention/query_layer/kernel"]
    v = w[f"{scope}/bahdanau_attention/attention_v"]
    if not normalize:
        return (v * np.tanh(keys + q[:, None])).sum(2)
    g = w[f"{scope}/bahdanau_attention/attention_g"]
    b = w[f"{scope}/bahdanau_attention/attention_b"]
    normed = g * v / np.sqrt((v**2).sum())
    return (normed * np.tanh(keys + q[:, None] + b)).sum(2)


def _numpy_bahdanau_steps(w, memory, inputs, normalize):
    """The wrapper's two steps by hand: (outputs, alignments) per step."""
    scope = "decoder/attention_wrapper"
    values, mask = _masked(memory)
    keys = values @ w["memory_layer/kernel"]
    attention = np.zeros([BATCH, 4], np.float32)
    state = np.zeros([BATCH, UNITS], np.float32)
    outputs, alignments = [], []
    for t in range(2):
        cell_in = np.concatenate([inputs[:, t], attention, state], 1)
        state = np.tanh(cell_in @ w[f"{scope}/cell/kernel"])
        score = _bahdanau_score(w, scope, state, keys, normalize)
        align = _softmax(np.where(mask, score, -np.inf))
        context = np.einsum("bt,btd->bd", align, values)
        attention = (
            np.concatenate([state, context], 1) @ w[f"{scope}/attention_layer/kernel"]
        )
        outputs.append(attention)
        alignments.append(align)
    return np.stack(outputs, 1), np.stack(alignments)


def _run(fetches, assign=None):
    with v1.Session() as sess:
        sess.run(v1.global_variables_initializer())
        for var, value in (assign or {}).items():
            var.load(value, sess)
        weights = {v.op.name: sess.run(v) for v in v1.global_variables()}
        return sess.run(fetches), weights


@pytest.mark.parametrize("normalize", [False, True])
def test_bahdanau_wrapper_decodes_as_computed_by_hand(normalize):
    memory, inputs = _data()
    with tf.Graph().as_default():
        v1.set_random_seed(2)
        mechanism = emg.seq2seq.BahdanauAttention(
            5, tf.constant(memory), memory_sequence_length=LENGTHS, normalize=normalize
        )
        cell = emg.seq2seq.AttentionWrapper(
            _Cell(), mechanism, attention_layer_size=4, alignment_history=True
        )
        helper = emg.seq2seq.TrainingHelper(inputs, tf.fill([BATCH], 2))
        decoder = emg.seq2seq.BasicDecoder(
            cell, helper, cell.zero_state(BATCH, tf.float32)
        )
        out, state, _ = emg.seq2seq.dynamic_decode(decoder)
        assert isinstance(state, emg.seq2seq.AttentionWrapperState)
        names = sorted(v.op.name for v in v1.global_variables())
        assign = {}
        if normalize:  # move g and b off their initial values, so both count
            by_name = {v.op.name: v for v in v1.global_variables()}
            scope = "decoder/attention_wrapper/bahdanau_attention/"
            assign = {
                by_name[scope + "attention_g"]: 0.7,
                by_name[scope + "attention_b"]: np.linspace(-1, 1, 5),
            }
        (got, history, align), w = _run(
            [out.rnn_output, state.alignment_history.stack(), state.alignments],
            assign,
        )
    extra = ["attention_b", "attention_g"] if normalize else []
    scope = "decoder/attention_wrapper/bahdanau_attention/"
    assert names == sorted(
        [
            "decoder/attention_wrapper/attention_layer/kernel",
            "decoder/attention_wrapper/cell/kernel",
            scope + "attention_v",
            scope + "query_layer/kernel",
            "memory_layer/kernel",
        ]
        + [scope + n for n in extra]
    )
    want, want_history = _numpy_bahdanau_steps(w, memory, inputs, normalize)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(history, want_history, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(align, want_history[-1], rtol=1e-5, atol=1e-6)
    assert (history[:, 1, 2:] == 0).all()  # entry 1's memory ends at 2


@pytest.mark.parametrize("scale", [False, True])
def test_luong_wrapper_called_twice_reuses_its_variables(scale):
    memory, inputs = _data()
    with tf.Graph().as_default():
        v1.set_random_seed(3)
        with v1.variable_scope("model"):
            mechanism = emg.seq2seq.LuongAttention(
                UNITS, memory, memory_sequence_length=LENGTHS, scale=scale
            )
            cell = emg.seq2seq.AttentionWrapper(
                _Cell(), mechanism, output_attention=False, name="attention"
            )
            state = cell.zero_state(BATCH, tf.float32)
            outputs, attentions = [], []
            for t in range(2):
                output, state = cell(tf.constant(inputs[:, t]), state)
                outputs.append(output)
                attentions.append(state.attention)
        names = sorted(v.op.name for v in v1.global_variables())
        by_name = {v.op.name: v for v in v1.global_variables()}
        assign = (
            {by_name["model/attention/luong_attention/attention_g"]: 1.5}
            if scale
            else {}
        )
        (got, got_attention, time), w = _run(
            [tf.stack(outputs, 1), tf.stack(attentions, 1), state.time], assign
        )
    g = ["model/attention/luong_attention/attention_g"] if scale else []
    assert names == sorted(
        ["model/attention/cell/kernel", "model/memory_layer/kernel"] + g
    )
    assert time == 2 and cell.output_size == UNITS
    values, mask = _masked(memory)
    keys = values @ w["model/memory_layer/kernel"]
    attention = np.zeros([BATCH, MEM_DEPTH], np.float32)  # no layer: the context
    state = np.zeros([BATCH, UNITS], np.float32)
    for t in range(2):
        cell_in = np.concatenate([inputs[:, t], attention, state], 1)
        state = np.tanh(cell_in @ w["model/attention/cell/kernel"])
        score = np.einsum("bu,btu->bt", state, keys) * (1.5 if scale else 1.0)
        align = _softmax(np.where(mask, score, -np.inf))
        attention = np.einsum("bt,btd->bd", align, values)
        np.testing.assert_allclose(got[:, t], state, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got_attention[:, t], attention, rtol=1e-5, atol=1e-6)


def test_zero_state_clone_keeps_the_static_shape_and_cell_input_fn_is_used():
    memory, inputs = _data()
    with tf.Graph().as_default():
        mechanism = emg.seq2seq.LuongAttention(UNITS, memory)
        seen = []

        def only_inputs(x, attention):
            seen.append(attention.shape.as_list())
            return x

        cell = emg.seq2seq.AttentionWrapper(
            _Cell(), mechanism, attention_layer_size=2, cell_input_fn=only_inputs
        )
        start = cell.zero_state(BATCH, tf.float32)
        encoder_state = v1.placeholder(tf.float32, [None, None])
        cloned = start.clone(cell_state=encoder_state)
        assert cloned.cell_state.shape.as_list() == [BATCH, UNITS]
        assert start.attention.shape.as_list() == [BATCH, 2]
        assert start.alignments.shape.as_list() == [BATCH, MEM_TIME]
        out, _ = cell(tf.constant(inputs[:, 0]), start)
        assert out.shape.as_list() == [BATCH, 2] and seen == [[BATCH, 2]]
        names = sorted(v.op.name for v in v1.global_variables())
    # the cell saw the inputs alone: its kernel is [DEPTH + UNITS, UNITS]
    assert "attention_wrapper/cell/kernel" in names


def test_hardmax_is_one_hot_at_the_largest_logit():
    with tf.Graph().as_default():
        out = emg.seq2seq.hardmax(tf.constant([[0.1, 2.0, -1.0], [3.0, 0.0, 1.0]]))
        with v1.Session() as sess:
            got = sess.run(out)
    assert got.tolist() == [[0, 1, 0], [1, 0, 0]] and got.dtype == np.float32


def test_a_memory_of_another_batch_size_is_refused_with_the_tiling_advice():
    memory, _ = _data()
    with tf.Graph().as_default():
        mechanism = emg.seq2seq.BahdanauAttention(5, memory)
        cell = emg.seq2seq.AttentionWrapper(_Cell(), mechanism)
        with pytest.raises(
            (ValueError, tf.errors.InvalidArgumentError), match="tile_batch"
        ):
            cell.zero_state(BATCH * 3, tf.float32)


def test_bad_arguments_are_refused_clearly():
    memory, inputs = _data()
    with tf.Graph().as_default():
        luong = emg.seq2seq.LuongAttention(UNITS + 1, memory)
        cell = emg.seq2seq.AttentionWrapper(_Cell(), luong)
        with pytest.raises(ValueError, match="num_units"):
            cell(tf.constant(inputs[:, 0]), cell.zero_state(BATCH, tf.float32))
        with pytest.raises(TypeError, match="AttentionWrapperState"):
            cell(tf.constant(inputs[:, 0]), tf.zeros([BATCH, UNITS]))
        with pytest.raises(TypeError, match="attention_mechanism"):
            emg.seq2seq.AttentionWrapper(_Cell(), object())
        with pytest.raises(ValueError, match="exactly one"):
            emg.seq2seq.AttentionWrapper(_Cell(), luong, attention_layer_size=[2, 3])
        with pytest.raises(TypeError, match="RNNCell"):
            emg.seq2seq.AttentionWrapper(object(), luong)


def _numpy_monotonic(p, previous):
    """attention[i] = p[i] q[i], q[i] = (1 - p[i - 1]) q[i - 1] + previous[i]."""
    out = np.zeros_like(p)
    for b in range(p.shape[0]):
        q = 0.0
        for i in range(p.shape[1]):
            q = (1 - p[b, i - 1]) * q + previous[b, i] if i else previous[b, 0]
            out[b, i] = p[b, i] * q
    return out


@pytest.mark.parametrize("mode", ["recursive", "parallel", "hard"])
def test_monotonic_attention_solves_its_recurrence(mode):
    rng = np.random.RandomState(6)
    p = rng.uniform(0.1, 0.9, size=(3, 5)).astype(np.float32)
    if mode == "hard":
        p = (p > 0.5).astype(np.float32)
        previous = np.eye(5, dtype=np.float32)[[0, 2, 4]]
    else:
        previous = _softmax(rng.randn(3, 5)).astype(np.float32)
    with tf.Graph().as_default():
        out = emg.seq2seq.monotonic_attention(p, previous, mode)
        cumprod = emg.seq2seq.safe_cumprod(1 - p, axis=1, exclusive=True)
        with v1.Session() as sess:
            got, got_cumprod = sess.run([out, cumprod])
    np.testing.assert_allclose(got, _numpy_monotonic(p, previous), rtol=1e-4, atol=1e-6)
    want_cumprod = np.concatenate([np.ones((3, 1)), np.cumprod(1 - p, 1)[:, :-1]], 1)
    np.testing.assert_allclose(got_cumprod, want_cumprod, rtol=1e-5, atol=1e-30)


def test_monotonic_attention_refuses_an_unknown_mode():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="'recursive', 'parallel', or 'hard'"):
            emg.seq2seq.monotonic_attention(np.ones((1, 2)), np.ones((1, 2)), "soft")
        with pytest.raises(ValueError, match="'recursive', 'parallel', or 'hard'"):
            emg.seq2seq.LuongMonotonicAttention(UNITS, _data()[0], mode="soft")


def test_bahdanau_monotonic_step_is_computed_by_hand_and_named_as_tf1():
    memory, inputs = _data()
    with tf.Graph().as_default():
        v1.set_random_seed(7)
        mechanism = emg.seq2seq.BahdanauMonotonicAttention(
            5, memory, memory_sequence_length=LENGTHS, mode="recursive"
        )
        cell = emg.seq2seq.AttentionWrapper(_Cell(), mechanism)
        start = cell.zero_state(BATCH, tf.float32)
        out, state = cell(tf.constant(inputs[:, 0]), start)
        by_name = {v.op.name: v for v in v1.global_variables()}
        scope = "attention_wrapper/bahdanau_monotonic_attention/"
        (got, align, first), w = _run(
            [out, state.alignments, start.alignments],
            {by_name[scope + "attention_score_bias"]: -0.4},
        )
    assert sorted(by_name) == sorted(
        [
            "attention_wrapper/cell/kernel",
            scope + "attention_score_bias",
            scope + "attention_v",
            scope + "query_layer/kernel",
            "memory_layer/kernel",
        ]
    )
    assert first.tolist() == [[1, 0, 0, 0]] * BATCH  # all on the first step
    values, mask = _masked(memory)
    keys = values @ w["memory_layer/kernel"]
    cell_in = np.concatenate(
        [inputs[:, 0], np.zeros([BATCH, MEM_DEPTH]), np.zeros([BATCH, UNITS])], 1
    )
    h = np.tanh(cell_in @ w["attention_wrapper/cell/kernel"])
    q = h @ w[scope + "query_layer/kernel"]
    score = (w[scope + "attention_v"] * np.tanh(keys + q[:, None])).sum(2) - 0.4
    p = np.where(mask, 1 / (1 + np.exp(-score)), 0.0)  # masked: sigmoid(-inf)
    want = _numpy_monotonic(p, first)
    np.testing.assert_allclose(align, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        got, np.einsum("bt,btd->bd", want, values), rtol=1e-5, atol=1e-6
    )


def test_luong_monotonic_names_its_bias_and_scale_as_tf1():
    memory, inputs = _data()
    with tf.Graph().as_default():
        mechanism = emg.seq2seq.LuongMonotonicAttention(UNITS, memory, scale=True)
        cell = emg.seq2seq.AttentionWrapper(_Cell(), mechanism, name="attention")
        cell(tf.constant(inputs[:, 0]), cell.zero_state(BATCH, tf.float32))
        names = sorted(v.op.name for v in v1.global_variables())
    scope = "attention/luong_monotonic_attention/"
    assert names == [
        "attention/cell/kernel",
        scope + "attention_g",
        scope + "attention_score_bias",
        "memory_layer/kernel",
    ]
