"""Golden comparisons: emg.seq2seq vs TensorFlow Addons' tfa.seq2seq.

No installable TensorFlow has TF 1.15's tf.contrib.seq2seq; its maintained
port is tfa.seq2seq (the same math as Keras layers), which installs beside
TF 2.15. Each test builds emg's graph-mode objects in a `tf.Graph`, runs them
in a `tf.compat.v1.Session`, copies every variable's value into tfa's Keras
layers (run eagerly) and compares the two:

- BahdanauAttention (normalize) and LuongAttention (scale): the alignments
  of queries over a memory masked by `memory_sequence_length`;
- AttentionWrapper over an LSTM cell (attention_layer_size 4 or None,
  output_attention True or False, alignment_history): the outputs and the
  final state decoded by BasicDecoder + TrainingHelper vs tfa's BasicDecoder
  + TrainingSampler;
- BeamSearchDecoder (beam_width 3, length_penalty_weight 0 and 0.6,
  coverage_penalty_weight 0 and 0.4, an output layer, tile_batch'd
  memory): predicted ids, parent ids, scores, the final log probabilities,
  lengths, accumulated attention and reordered alignment history;
- gather_tree on random parent ids with end tokens and short lengths.

emg's cell is TF 1.x's `tf.compat.v1.nn.rnn_cell.LSTMCell` (one kernel over
[inputs, h], gates i, j, f, o, forget_bias 1 added at each step); tfa's is
Keras' `LSTMCell` (kernel and recurrent kernel, gates i, f, c, o), so the
kernel is split, its gate columns reordered and the forget bias folded into
the bias.
"""

import itertools
import warnings

import numpy as np
import pytest
import tensorflow as tf

with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)  # tfa announces its end of life
    tfa = pytest.importorskip("tensorflow_addons")

import estimator_multigpu as emg  # noqa: E402

pytestmark = [
    pytest.mark.tf_compat,
    # tfa's gather_tree kernel is built against CUDA and does not load on
    # tensorflow-cpu; tfa says so and runs its port written with TF ops.
    pytest.mark.filterwarnings("ignore::RuntimeWarning:tensorflow_addons"),
    # emg's cell is TF 1.x's, which TF deprecates in favour of Keras'.
    pytest.mark.filterwarnings("ignore:`tf.nn.rnn_cell.LSTMCell` is deprecated"),
]

v1 = tf.compat.v1
RTOL, ATOL = 1e-5, 1e-6
BATCH, MEM_TIME, MEM_DEPTH, IN_DEPTH, UNITS, ATT_UNITS = 2, 5, 3, 4, 6, 5
LENGTHS = np.array([5, 3], np.int32)


def _close(name, got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (name, got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=name)
    diff = float(np.max(np.abs(got - want))) if got.size else 0.0
    print(f"max abs difference, {name}: {diff:.3g}")  # shown by pytest -s


def _memory(seed=0):
    rng = np.random.RandomState(seed)
    return rng.randn(BATCH, MEM_TIME, MEM_DEPTH).astype(np.float32)


def _seeded_values(variables, seed, assign=None):
    """{name: value} for every variable: `assign`'s, else seeded uniform
    values (Glorot's range for a matrix).

    Not the initializers' values: tf.compat.v1's LSTMCell and layers.Dense
    (Keras 2's legacy layers) pick their own seeds, so under
    `set_random_seed` their kernels still change from one process to the
    next, and a decode with them would too.
    """
    rng = np.random.RandomState(seed)
    values = {}
    for var in sorted(variables, key=lambda v: v.op.name):
        name, shape = var.op.name, var.shape.as_list()
        if assign and name in assign:
            values[name] = np.asarray(assign[name], np.float32)
            continue
        limit = np.sqrt(6.0 / (shape[0] + shape[-1])) if len(shape) == 2 else 0.5
        values[name] = rng.uniform(-limit, limit, shape).astype(np.float32)
    return values


def _session_values(fetches, seed, assign=None):
    """(fetched values, {variable name: value}) of the default graph, its
    variables set by `_seeded_values`."""
    weights = _seeded_values(v1.global_variables(), seed, assign)
    with v1.Session() as sess:
        for var in v1.global_variables():
            var.load(weights[var.op.name], sess)
        return sess.run(fetches), weights


def _one(weights, suffix):
    """The value of the one variable whose name ends with `suffix`."""
    found = [name for name in weights if name.endswith(suffix)]
    assert len(found) == 1, (suffix, sorted(weights))
    return weights[found[0]]


def _dense(units, kernel, name, bias=None):
    """A built Keras Dense with `kernel` (and `bias`, else no bias)."""
    layer = tf.keras.layers.Dense(units, use_bias=bias is not None, name=name)
    layer.build((None, kernel.shape[0]))
    layer.set_weights([kernel] if bias is None else [kernel, bias])
    return layer


def _tfa_mechanism(kind, flag, memory, weights, units):
    """tfa's mechanism over `memory` with emg's memory layer kernel."""
    memory_layer = _dense(units, _one(weights, "memory_layer/kernel"), "memory_layer")
    if kind == "bahdanau":
        return tfa.seq2seq.BahdanauAttention(
            units,
            memory=memory,
            memory_sequence_length=LENGTHS,
            normalize=flag,
            memory_layer=memory_layer,
        )
    return tfa.seq2seq.LuongAttention(
        units,
        memory=memory,
        memory_sequence_length=LENGTHS,
        scale=flag,
        memory_layer=memory_layer,
    )


def _set_mechanism_weights(mechanism, kind, weights):
    """emg's scoring variables into tfa's built `mechanism`."""
    if kind == "bahdanau":
        mechanism.query_layer.kernel.assign(
            _one(weights, "bahdanau_attention/query_layer/kernel")
        )
        mechanism.attention_v.assign(_one(weights, "attention_v"))
        if mechanism.normalize:
            mechanism.attention_g.assign(_one(weights, "attention_g"))
            mechanism.attention_b.assign(_one(weights, "attention_b"))
    elif mechanism.scale:
        mechanism.scale_weight.assign(_one(weights, "attention_g"))


def _moved_off_their_init(names, units):
    """Values for g and b other than their initial ones, so that both count."""
    assign = {}
    for name in names:
        if name.endswith("attention_g"):
            assign[name] = 0.7
        if name.endswith("attention_b"):
            assign[name] = np.linspace(-1, 1, units).astype(np.float32)
    return assign


def _emg_mechanism(kind, flag, memory, units):
    if kind == "bahdanau":
        return emg.seq2seq.BahdanauAttention(
            units, memory, memory_sequence_length=LENGTHS, normalize=flag
        )
    return emg.seq2seq.LuongAttention(
        units, memory, memory_sequence_length=LENGTHS, scale=flag
    )


@pytest.mark.parametrize(
    "kind, flag",
    [("bahdanau", False), ("bahdanau", True), ("luong", False), ("luong", True)],
)
def test_mechanism_alignments_match_tfa(kind, flag):
    memory = _memory()
    units = ATT_UNITS if kind == "bahdanau" else UNITS
    rng = np.random.RandomState(3)
    queries = [rng.randn(BATCH, UNITS).astype(np.float32) for _ in range(3)]
    with tf.Graph().as_default():
        v1.set_random_seed(1)
        mechanism = _emg_mechanism(kind, flag, tf.constant(memory), units)
        # One call (a second would make a second scope's variables, as in
        # TF 1.15), fed each query in turn.
        query = v1.placeholder(tf.float32, [BATCH, UNITS])
        align, _ = mechanism(query, mechanism.initial_state(BATCH, tf.float32))
        names = [v.op.name for v in v1.global_variables()]
        weights = _seeded_values(
            v1.global_variables(), 1, _moved_off_their_init(names, units)
        )
        with v1.Session() as sess:
            for var in v1.global_variables():
                var.load(weights[var.op.name], sess)
            got = [sess.run(align, {query: q}) for q in queries]
    if flag:
        assert any(name.endswith("attention_g") for name in weights), sorted(weights)
    want_mechanism = _tfa_mechanism(kind, flag, memory, weights, units)
    prev = want_mechanism.initial_state(BATCH, tf.float32)
    want_mechanism([tf.constant(queries[0]), prev])  # builds its variables
    _set_mechanism_weights(want_mechanism, kind, weights)
    for query, align in zip(queries, got):
        want, prev = want_mechanism([tf.constant(query), prev])
        _close(f"{kind} normalize/scale={flag} alignments", align, want.numpy())
        assert (align[1, LENGTHS[1] :] == 0).all()  # masked past the length
    # Three queries, three different alignments: the comparison is not of
    # a constant.
    assert not np.allclose(got[0], got[1])


def _keras_lstm_weights(kernel, bias, input_depth, forget_bias=1.0):
    """TF 1.x LSTMCell's (kernel, bias) as Keras LSTMCell's weights."""
    units = bias.shape[0] // 4
    i, j, f, o = (slice(k * units, (k + 1) * units) for k in range(4))

    def reorder(m):
        return np.concatenate([m[..., i], m[..., f], m[..., j], m[..., o]], -1)

    keras_bias = reorder(bias).copy()
    keras_bias[units : 2 * units] += forget_bias
    return [reorder(kernel[:input_depth]), reorder(kernel[input_depth:]), keras_bias]


def _tfa_lstm(weights, input_depth):
    cell = tf.keras.layers.LSTMCell(UNITS)
    cell.build((None, input_depth))
    cell.set_weights(
        _keras_lstm_weights(
            _one(weights, "lstm_cell/kernel"),
            _one(weights, "lstm_cell/bias"),
            input_depth,
        )
    )
    return cell


def _emg_attention_cell(kind, memory, lengths, layer_size, output_attention):
    units = ATT_UNITS if kind == "bahdanau" else UNITS
    if kind == "bahdanau":
        mechanism = emg.seq2seq.BahdanauAttention(
            units, memory, memory_sequence_length=lengths, normalize=True
        )
    else:
        mechanism = emg.seq2seq.LuongAttention(
            units, memory, memory_sequence_length=lengths, scale=True
        )
    return emg.seq2seq.AttentionWrapper(
        v1.nn.rnn_cell.LSTMCell(UNITS),
        mechanism,
        attention_layer_size=layer_size,
        alignment_history=True,
        output_attention=output_attention,
    )


def _tfa_attention_cell(
    kind, memory, lengths, layer_size, output_attention, weights, input_depth
):
    units = ATT_UNITS if kind == "bahdanau" else UNITS
    memory_layer = _dense(units, _one(weights, "memory_layer/kernel"), "memory_layer")
    if kind == "bahdanau":
        mechanism = tfa.seq2seq.BahdanauAttention(
            units,
            memory=memory,
            memory_sequence_length=lengths,
            normalize=True,
            memory_layer=memory_layer,
        )
    else:
        mechanism = tfa.seq2seq.LuongAttention(
            units,
            memory=memory,
            memory_sequence_length=lengths,
            scale=True,
            memory_layer=memory_layer,
        )
    attention_depth = layer_size or MEM_DEPTH
    cell = tfa.seq2seq.AttentionWrapper(
        _tfa_lstm(weights, input_depth + attention_depth),
        mechanism,
        attention_layer_size=layer_size,
        alignment_history=True,
        output_attention=output_attention,
    )
    return cell, mechanism


def _set_wrapper_weights(cell, mechanism, kind, weights, batch_size, input_depth):
    """Builds tfa's wrapper with one step, then sets emg's values."""
    state = cell.get_initial_state(batch_size=batch_size, dtype=tf.float32)
    _, state = cell(tf.zeros([batch_size, input_depth]), state)
    state.alignment_history.stack()  # used, or TF logs its write as unused
    _set_mechanism_weights(mechanism, kind, weights)
    if cell._attention_layers:  # no public accessor in tfa
        [layer] = cell._attention_layers
        layer.kernel.assign(_one(weights, "attention_layer/kernel"))


WRAPPER_CASES = list(itertools.product(["bahdanau", "luong"], [4, None], [True, False]))


@pytest.mark.parametrize("kind, layer_size, output_attention", WRAPPER_CASES)
def test_attention_wrapper_decode_matches_tfa(kind, layer_size, output_attention):
    memory = _memory(1)
    steps = 4
    rng = np.random.RandomState(2)
    inputs = rng.randn(BATCH, steps, IN_DEPTH).astype(np.float32)
    seq_lengths = np.array([steps, steps - 1], np.int32)
    with tf.Graph().as_default():
        v1.set_random_seed(4)
        with v1.variable_scope("model"):
            cell = _emg_attention_cell(
                kind, tf.constant(memory), LENGTHS, layer_size, output_attention
            )
            helper = emg.seq2seq.TrainingHelper(tf.constant(inputs), seq_lengths)
            decoder = emg.seq2seq.BasicDecoder(
                cell, helper, cell.zero_state(BATCH, tf.float32)
            )
            out, state, lengths = emg.seq2seq.dynamic_decode(decoder)
        fetches = {
            "outputs": out.rnn_output,
            "sample_ids": out.sample_id,
            "c": state.cell_state.c,
            "h": state.cell_state.h,
            "attention": state.attention,
            "alignments": state.alignments,
            "history": state.alignment_history.stack(),
            "time": state.time,
            "lengths": lengths,
        }
        names = [v.op.name for v in v1.global_variables()]
        got, weights = _session_values(
            fetches, 4, _moved_off_their_init(names, ATT_UNITS)
        )
    want_cell, mechanism = _tfa_attention_cell(
        kind, memory, LENGTHS, layer_size, output_attention, weights, IN_DEPTH
    )
    _set_wrapper_weights(want_cell, mechanism, kind, weights, BATCH, IN_DEPTH)
    tfa_decoder = tfa.seq2seq.BasicDecoder(want_cell, tfa.seq2seq.TrainingSampler())
    w_out, w_state, w_lengths = tfa_decoder(
        tf.constant(inputs),
        initial_state=want_cell.get_initial_state(batch_size=BATCH, dtype=tf.float32),
        sequence_length=seq_lengths,
    )
    h, c = w_state.cell_state
    want = {
        "outputs": w_out.rnn_output,
        "c": c,
        "h": h,
        "attention": w_state.attention,
        "alignments": w_state.alignments,
        "history": w_state.alignment_history.stack(),
    }
    case = f"wrapper {kind} layer={layer_size} output_attention={output_attention}"
    for key, value in want.items():
        _close(f"{case} {key}", got[key], value.numpy())
    np.testing.assert_array_equal(got["sample_ids"], w_out.sample_id.numpy())
    np.testing.assert_array_equal(got["lengths"], w_lengths.numpy())
    assert got["time"] == steps  # tfa's state has no time field
    depth = (layer_size or MEM_DEPTH) if output_attention else UNITS
    assert got["outputs"].shape == (BATCH, steps, depth)


VOCAB, BEAM, SOS, EOS, MAX_ITERATIONS = 7, 3, 0, 1, 8
# The end token's logit bias: beams that end early and beams that run to
# MAX_ITERATIONS, with the values _seeded_values gives each model.
EOS_BIAS = {"luong": 0.5, "bahdanau": 1.0}
PENALTIES = [(0.0, 0.0), (0.6, 0.0), (0.6, 0.4)]  # length, coverage


def _beam_data():
    rng = np.random.RandomState(7)
    return {
        "memory": rng.randn(BATCH, MEM_TIME, MEM_DEPTH).astype(np.float32),
        "c": rng.randn(BATCH, UNITS).astype(np.float32),
        "h": rng.randn(BATCH, UNITS).astype(np.float32),
    }


def _emg_beam_search(data, kind, penalties):
    with tf.Graph().as_default():
        v1.set_random_seed(8)
        embedding = v1.get_variable("embedding", [VOCAB, IN_DEPTH])
        tile = emg.seq2seq.tile_batch
        cell = _emg_attention_cell(
            kind, tile(tf.constant(data["memory"]), BEAM), tile(LENGTHS, BEAM), 4, True
        )
        initial = cell.zero_state(BATCH * BEAM, tf.float32).clone(
            cell_state=v1.nn.rnn_cell.LSTMStateTuple(
                tile(tf.constant(data["c"]), BEAM), tile(tf.constant(data["h"]), BEAM)
            )
        )
        decoder = emg.seq2seq.BeamSearchDecoder(
            cell,
            embedding,
            tf.fill([BATCH], SOS),
            EOS,
            initial,
            BEAM,
            output_layer=v1.layers.Dense(VOCAB, name="projection"),
            **penalties,
        )
        out, state, lengths = emg.seq2seq.dynamic_decode(
            decoder, maximum_iterations=MAX_ITERATIONS
        )
        fetches = {
            "predicted_ids": out.predicted_ids,
            "step_ids": out.beam_search_decoder_output.predicted_ids,
            "parent_ids": out.beam_search_decoder_output.parent_ids,
            "scores": out.beam_search_decoder_output.scores,
            "log_probs": state.log_probs,
            "finished": state.finished,
            "state_lengths": state.lengths,
            "lengths": lengths,
            "history": state.cell_state.alignment_history,
        }
        if penalties["coverage_penalty_weight"]:
            fetches["accumulated"] = state.accumulated_attention_probs
        names = [v.op.name for v in v1.global_variables()]
        assign = _moved_off_their_init(names, ATT_UNITS)
        # An end token likelier than the rest, so that beams end early.
        [bias] = [n for n in names if n.endswith("projection/bias")]
        assign[bias] = np.where(np.arange(VOCAB) == EOS, EOS_BIAS[kind], 0.0)
        return _session_values(fetches, 8, assign)


def _tfa_beam_search(data, kind, penalties, weights):
    tile = tfa.seq2seq.tile_batch
    cell, mechanism = _tfa_attention_cell(
        kind,
        tile(data["memory"], BEAM),
        tile(LENGTHS, BEAM),
        4,
        True,
        weights,
        IN_DEPTH,
    )
    _set_wrapper_weights(cell, mechanism, kind, weights, BATCH * BEAM, IN_DEPTH)
    initial = cell.get_initial_state(batch_size=BATCH * BEAM, dtype=tf.float32)
    initial = initial.clone(cell_state=[tile(data["h"], BEAM), tile(data["c"], BEAM)])
    projection = _dense(
        VOCAB,
        _one(weights, "projection/kernel"),
        "projection",
        bias=_one(weights, "projection/bias"),
    )
    decoder = tfa.seq2seq.BeamSearchDecoder(
        cell,
        BEAM,
        output_layer=projection,
        **penalties,
        maximum_iterations=MAX_ITERATIONS,
    )
    out, state, lengths = decoder(
        _one(weights, "embedding"),
        start_tokens=tf.fill([BATCH], SOS),
        end_token=EOS,
        initial_state=initial,
    )
    values = {
        "predicted_ids": out.predicted_ids,
        "step_ids": out.beam_search_decoder_output.predicted_ids,
        "parent_ids": out.beam_search_decoder_output.parent_ids,
        "scores": out.beam_search_decoder_output.scores,
        "log_probs": state.log_probs,
        "finished": state.finished,
        "state_lengths": state.lengths,
        "lengths": lengths,
        "history": state.cell_state.alignment_history,
    }
    if penalties["coverage_penalty_weight"]:
        values["accumulated"] = state.accumulated_attention_probs
    return values


@pytest.mark.parametrize("kind", ["luong", "bahdanau"])
@pytest.mark.parametrize("length_penalty, coverage_penalty", PENALTIES)
def test_beam_search_matches_tfa(kind, length_penalty, coverage_penalty):
    data = _beam_data()
    penalties = {
        "length_penalty_weight": length_penalty,
        "coverage_penalty_weight": coverage_penalty,
    }
    got, weights = _emg_beam_search(data, kind, penalties)
    want = {
        k: np.asarray(v)
        for k, v in _tfa_beam_search(data, kind, penalties, weights).items()
    }
    case = f"beam {kind} length_penalty={length_penalty} coverage={coverage_penalty}"
    for key in ("predicted_ids", "step_ids", "parent_ids", "finished"):
        np.testing.assert_array_equal(got[key], want[key], err_msg=f"{case} {key}")
    for key in ("state_lengths", "lengths"):
        np.testing.assert_array_equal(got[key], want[key], err_msg=f"{case} {key}")
    assert got.keys() == want.keys()
    for key in {"scores", "log_probs", "history", "accumulated"} & got.keys():
        _close(f"{case} {key}", got[key], want[key])
    # The comparison covers beams that end before the last step and beams of
    # different lengths.
    assert got["predicted_ids"].shape[-1] == BEAM
    assert (got["state_lengths"] < got["predicted_ids"].shape[1]).any(), got
    assert len(np.unique(got["state_lengths"])) > 1, got["state_lengths"]


def _random_tree(seed, max_time, batch, beam, vocab, end_token):
    rng = np.random.RandomState(seed)
    step_ids = rng.randint(0, vocab, size=(max_time, batch, beam)).astype(np.int32)
    # End tokens at random places (more than chance alone would put there).
    step_ids[rng.rand(max_time, batch, beam) < 0.15] = end_token
    parent_ids = rng.randint(0, beam, size=(max_time, batch, beam)).astype(np.int32)
    return step_ids, parent_ids


@pytest.mark.parametrize(
    "seed, max_time, beam, lengths",
    [
        (0, 6, 3, [6, 4, 1, 0]),
        (1, 5, 4, [9, 5, 2, 3]),  # a length past max_time is max_time
        (2, 1, 2, [1, 1, 0, 2]),
        (3, 10, 5, [10, 7, 3, 8]),
    ],
)
def test_gather_tree_matches_tfa(seed, max_time, beam, lengths):
    end_token = 2
    step_ids, parent_ids = _random_tree(
        seed, max_time, len(lengths), beam, 6, end_token
    )
    lengths = np.array(lengths, np.int32)
    with tf.Graph().as_default():
        got = emg.seq2seq.gather_tree(step_ids, parent_ids, lengths, end_token)
        with v1.Session() as sess:
            got = sess.run(got)
    want = tfa.seq2seq.gather_tree(step_ids, parent_ids, lengths, end_token).numpy()
    np.testing.assert_array_equal(got, want)
    assert (got == end_token).any() and (got != end_token).any()
