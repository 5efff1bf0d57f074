"""TF 1.15's attention mechanisms and AttentionWrapper (tf.contrib.seq2seq's
attention_wrapper module), on tf.compat.v1.

The projections are TF 1.x's bias-free `tf.layers.Dense`, written as one
kernel variable each under the same scope names (`memory_layer/kernel`,
`query_layer/kernel`, `attention_layer/kernel`), so TF 1.x checkpoints load.
"""

from __future__ import annotations

import collections
import math

import numpy as np
import tensorflow as tf

__all__ = [
    "AttentionMechanism",
    "AttentionWrapper",
    "AttentionWrapperState",
    "BahdanauAttention",
    "LuongAttention",
    "hardmax",
]

_v1 = tf.compat.v1


def _static_or_dynamic(t, axis):
    """Dimension `axis` of `t`: the int when known, else a scalar tensor."""
    return tf.compat.dimension_value(t.shape[axis]) or tf.shape(t)[axis]


def _zeros(batch_size, size, dtype):
    """Zeros of [batch_size, size], with the static shape where it is known."""
    out = tf.zeros(tf.stack([batch_size, size]), dtype=tf.as_dtype(dtype))
    static = [tf.get_static_value(batch_size), tf.get_static_value(size)]
    out.set_shape([None if d is None else int(d) for d in static])
    return out


class BiasFreeDense:
    """A bias-free `tf.layers.Dense(units, use_bias=False, name=name)`.

    Like a TF 1.x layer, its variable scope is fixed at the first call
    (`<scope>/<name>/kernel`, `<name>_1` when the name is taken) and reused
    by every later call.
    """

    def __init__(self, units, name, dtype=None):
        self.units = int(units)
        self.name = name
        self.dtype = tf.as_dtype(dtype or tf.float32)
        self._scope = None

    def compute_output_shape(self, input_shape):
        return tf.TensorShape(input_shape)[:-1].concatenate([self.units])

    def __call__(self, inputs):
        inputs = tf.convert_to_tensor(inputs, name="inputs")
        if self._scope is None:
            with _v1.variable_scope(None, default_name=self.name) as scope:
                self._scope = scope
                return self._apply(inputs)
        with _v1.variable_scope(self._scope, reuse=True):
            return self._apply(inputs)

    def _apply(self, inputs):
        depth = tf.compat.dimension_value(inputs.shape[-1])
        if depth is None or inputs.shape.rank is None:
            raise ValueError(
                f"The last dimension of the inputs to {self.name} must be known, "
                f"received shape {inputs.shape}"
            )
        kernel = _v1.get_variable("kernel", [depth, self.units], dtype=self.dtype)
        inputs = tf.cast(inputs, self.dtype)
        if inputs.shape.rank == 2:
            return tf.matmul(inputs, kernel)
        out = tf.tensordot(inputs, kernel, [[inputs.shape.rank - 1], [0]])
        out.set_shape(self.compute_output_shape(inputs.shape))
        return out


class AttentionMechanism:
    """The base class `AttentionWrapper` accepts (contrib's)."""

    @property
    def alignments_size(self):
        raise NotImplementedError

    @property
    def state_size(self):
        raise NotImplementedError


def _prepare_memory(memory, memory_sequence_length, check_inner_dims_defined):
    """`memory` as a tensor, zero past each entry's length when one is given."""
    memory = tf.convert_to_tensor(memory, name="memory")
    if memory.shape.rank is not None and memory.shape.rank < 3:
        raise ValueError(
            "memory must be [batch_size, max_time, depth], received shape "
            f"{memory.shape}"
        )
    if check_inner_dims_defined and not memory.shape[2:].is_fully_defined():
        raise ValueError(
            f"Expected memory {memory.name} to have fully defined inner dims, "
            f"but saw shape: {memory.shape}"
        )
    if memory_sequence_length is None:
        return memory
    lengths = tf.convert_to_tensor(
        memory_sequence_length, name="memory_sequence_length"
    )
    mask = tf.sequence_mask(lengths, maxlen=tf.shape(memory)[1], dtype=memory.dtype)
    check = tf.debugging.assert_equal(
        _static_or_dynamic(lengths, 0),
        _static_or_dynamic(memory, 0),
        message="memory_sequence_length and memory tensor batch sizes do not match.",
    )
    with tf.control_dependencies([check]):
        extra = tf.ones(tf.rank(memory) - 2, dtype=tf.int32)
        mask = tf.reshape(mask, tf.concat((tf.shape(mask), extra), 0))
        return memory * mask


def _maybe_mask_score(score, memory_sequence_length, score_mask_value):
    """`score` with `score_mask_value` past each memory entry's length."""
    if memory_sequence_length is None:
        return score
    check = tf.debugging.assert_positive(
        memory_sequence_length,
        message="All values in memory_sequence_length must greater than zero.",
    )
    with tf.control_dependencies([check]):
        mask = tf.sequence_mask(memory_sequence_length, maxlen=tf.shape(score)[1])
        return _v1.where(mask, score, score_mask_value * tf.ones_like(score))


class BaseAttentionMechanism(AttentionMechanism):
    """Keeps the memory (`values`), its projection (`keys`) and the scoring's
    probability function, as contrib's `_BaseAttentionMechanism` did."""

    def __init__(
        self,
        query_layer,
        memory,
        probability_fn,
        memory_sequence_length=None,
        memory_layer=None,
        check_inner_dims_defined=True,
        score_mask_value=None,
        custom_key_value_fn=None,
        name=None,
    ):
        if not callable(probability_fn):
            raise TypeError(
                "probability_fn must be callable, saw type: "
                f"{type(probability_fn).__name__}"
            )
        if custom_key_value_fn is not None and not callable(custom_key_value_fn):
            raise TypeError(
                "custom_key_value_fn must be callable, saw type: "
                f"{type(custom_key_value_fn).__name__}"
            )
        self._query_layer = query_layer
        self._memory_layer = memory_layer
        self.dtype = memory_layer.dtype
        if score_mask_value is None:
            score_mask_value = self.dtype.as_numpy_dtype(-np.inf)
        lengths = memory_sequence_length
        self._probability_fn = lambda score, prev: probability_fn(
            _maybe_mask_score(score, lengths, score_mask_value), prev
        )
        with tf.name_scope(name or "BaseAttentionMechanismInit"):
            if lengths is not None:
                lengths = tf.convert_to_tensor(lengths, name="memory_sequence_length")
            self._values = _prepare_memory(memory, lengths, check_inner_dims_defined)
            self._keys = (
                self._memory_layer(self._values) if self._memory_layer else self._values
            )
            if custom_key_value_fn is not None:
                self._keys, self._values = custom_key_value_fn(self._keys, self._values)
            self._batch_size = _static_or_dynamic(self._keys, 0)
            self._alignments_size = _static_or_dynamic(self._keys, 1)

    @property
    def memory_layer(self):
        return self._memory_layer

    @property
    def query_layer(self):
        return self._query_layer

    @property
    def values(self):
        return self._values

    @property
    def keys(self):
        return self._keys

    @property
    def batch_size(self):
        return self._batch_size

    @property
    def alignments_size(self):
        return self._alignments_size

    @property
    def state_size(self):
        return self._alignments_size

    def initial_alignments(self, batch_size, dtype):
        """Zeros of [batch_size, alignments_size]."""
        return _zeros(batch_size, self._alignments_size, dtype)

    def initial_state(self, batch_size, dtype):
        """The mechanism's state before the first step: its initial alignments."""
        return self.initial_alignments(batch_size, dtype)


def _probability_fn(probability_fn):
    fn = tf.nn.softmax if probability_fn is None else probability_fn
    return lambda score, _: fn(score)


def luong_score(query, keys, scale):
    """query . keys over the units ([batch, time]); times a learned scalar
    `attention_g` (1 at first) with `scale`."""
    depth, key_units = query.shape[-1], keys.shape[-1]
    if depth != key_units:
        raise ValueError(
            "Incompatible or unknown inner dimensions between query and keys. "
            f"Query ({query.name}) has units: {depth}. Keys have units: "
            f"{key_units}. Perhaps you need to set num_units to the query's "
            f"depth ({depth})?"
        )
    score = tf.squeeze(tf.matmul(tf.expand_dims(query, 1), keys, transpose_b=True), [1])
    if scale:
        g = _v1.get_variable(
            "attention_g",
            shape=(),
            dtype=query.dtype,
            initializer=_v1.ones_initializer(),
        )
        score = g * score
    return score


def bahdanau_score(processed_query, keys, num_units, normalize):
    """v . tanh(keys + processed_query) ([batch, time]), with `attention_v`;
    `normalize`: v becomes g * v / |v| and a bias `attention_b` is added
    inside the tanh (g is `attention_g`, sqrt(1 / num_units) at first)."""
    dtype = processed_query.dtype
    processed_query = tf.expand_dims(processed_query, 1)
    v = _v1.get_variable("attention_v", [num_units], dtype=dtype)
    if not normalize:
        return tf.reduce_sum(v * tf.tanh(keys + processed_query), [2])
    g = _v1.get_variable(
        "attention_g",
        shape=(),
        dtype=dtype,
        initializer=_v1.constant_initializer(math.sqrt(1.0 / num_units)),
    )
    b = _v1.get_variable(
        "attention_b", [num_units], dtype=dtype, initializer=_v1.zeros_initializer()
    )
    normed_v = g * v * tf.math.rsqrt(tf.reduce_sum(tf.square(v)))
    return tf.reduce_sum(normed_v * tf.tanh(keys + processed_query + b), [2])


class LuongAttention(BaseAttentionMechanism):
    """Luong's multiplicative attention: score = query . (W memory).

    Args:
      num_units: the depth of the keys; it must equal the query's depth.
      memory: [batch_size, max_time, depth], usually the encoder's outputs.
      memory_sequence_length: each entry's length; memory past it is zeroed
        and its score masked.
      scale: multiply the score by a learned scalar `attention_g` (1 at first).
      probability_fn: scores to alignments; `tf.nn.softmax` by default.
      score_mask_value: the masked score (-inf by default).
      dtype: the memory layer's dtype (float32 by default).
      custom_key_value_fn: (keys, values) -> (keys, values), or None.
      name: the name scope.
    """

    def __init__(
        self,
        num_units,
        memory,
        memory_sequence_length=None,
        scale=False,
        probability_fn=None,
        score_mask_value=None,
        dtype=None,
        custom_key_value_fn=None,
        name="LuongAttention",
    ):
        super().__init__(
            query_layer=None,
            memory_layer=BiasFreeDense(num_units, name="memory_layer", dtype=dtype),
            memory=memory,
            probability_fn=_probability_fn(probability_fn),
            memory_sequence_length=memory_sequence_length,
            score_mask_value=score_mask_value,
            custom_key_value_fn=custom_key_value_fn,
            name=name,
        )
        self._num_units = num_units
        self._scale = scale
        self._name = name

    def __call__(self, query, state):
        """(alignments, next_state) for `query` [batch_size, depth]."""
        with _v1.variable_scope(None, "luong_attention", [query]):
            query = tf.convert_to_tensor(query, name="query")
            score = luong_score(query, self._keys, self._scale)
        alignments = self._probability_fn(score, state)
        return alignments, alignments


class BahdanauAttention(BaseAttentionMechanism):
    """Bahdanau's additive attention: score = v . tanh(W_q query + W_m memory).

    Args:
      num_units: the depth of the query and memory projections.
      memory: [batch_size, max_time, depth], usually the encoder's outputs.
      memory_sequence_length: each entry's length; memory past it is zeroed
        and its score masked.
      normalize: the weight-normalized form: v becomes g * v / |v| (g a
        learned scalar, sqrt(1 / num_units) at first) and a learned bias b
        is added inside the tanh.
      probability_fn: scores to alignments; `tf.nn.softmax` by default.
      score_mask_value: the masked score (-inf by default).
      dtype: the projections' dtype (float32 by default).
      custom_key_value_fn: (keys, values) -> (keys, values), or None.
      name: the name scope.
    """

    def __init__(
        self,
        num_units,
        memory,
        memory_sequence_length=None,
        normalize=False,
        probability_fn=None,
        score_mask_value=None,
        dtype=None,
        custom_key_value_fn=None,
        name="BahdanauAttention",
    ):
        super().__init__(
            query_layer=BiasFreeDense(num_units, name="query_layer", dtype=dtype),
            memory_layer=BiasFreeDense(num_units, name="memory_layer", dtype=dtype),
            memory=memory,
            probability_fn=_probability_fn(probability_fn),
            memory_sequence_length=memory_sequence_length,
            score_mask_value=score_mask_value,
            custom_key_value_fn=custom_key_value_fn,
            name=name,
        )
        self._num_units = num_units
        self._normalize = normalize
        self._name = name

    def __call__(self, query, state):
        """(alignments, next_state) for `query` [batch_size, depth]."""
        with _v1.variable_scope(None, "bahdanau_attention", [query]):
            processed = self._query_layer(tf.convert_to_tensor(query, name="query"))
            score = bahdanau_score(
                processed, self._keys, self._num_units, self._normalize
            )
        alignments = self._probability_fn(score, state)
        return alignments, alignments


class AttentionWrapperState(
    collections.namedtuple(
        "AttentionWrapperState",
        (
            "cell_state",
            "attention",
            "time",
            "alignments",
            "alignment_history",
            "attention_state",
        ),
    )
):
    """The state of an `AttentionWrapper` (contrib's fields, in its order).

    Attributes:
      cell_state: the wrapped cell's state.
      attention: the last step's attention output.
      time: the step.
      alignments: the last alignments (a tuple with several mechanisms).
      alignment_history: a time-major TensorArray of every step's alignments
        when the wrapper keeps them, else ().
      attention_state: each mechanism's state.
    """

    def clone(self, **kwargs):
        """This state with the fields in `kwargs` replaced.

        A replaced tensor keeps the static shape of the one it replaces:
        `zero_state(...).clone(cell_state=encoder_state)`.
        """

        def with_same_shape(old, new):
            if isinstance(old, tf.Tensor) and isinstance(new, tf.Tensor):
                if not old.shape.is_compatible_with(new.shape):
                    raise ValueError(
                        f"clone: the new value has shape {new.shape}, the one it "
                        f"replaces {old.shape}; they must be compatible"
                    )
                if not tf.executing_eagerly():
                    new.set_shape(old.shape)
            return new

        return tf.nest.map_structure(with_same_shape, self, self._replace(**kwargs))


def hardmax(logits, name=None):
    """One-hot vectors at each row's largest logit (the dtype of `logits`)."""
    with tf.name_scope(name or "Hardmax"):
        logits = tf.convert_to_tensor(logits, name="logits")
        depth = _static_or_dynamic(logits, -1)
        return tf.one_hot(tf.argmax(logits, -1), depth, dtype=logits.dtype)


def _compute_attention(attention_mechanism, cell_output, attention_state, layer):
    """(attention, alignments, next_attention_state) of one mechanism."""
    alignments, next_state = attention_mechanism(cell_output, state=attention_state)
    # [batch, 1, memory_time] x [batch, memory_time, depth] -> [batch, depth]
    context = tf.squeeze(
        tf.matmul(tf.expand_dims(alignments, 1), attention_mechanism.values), [1]
    )
    if layer is None:
        return context, alignments, next_state
    return layer(tf.concat([cell_output, context], 1)), alignments, next_state


def _like_rnncell(cell):
    return all(
        hasattr(cell, attr) for attr in ("output_size", "state_size", "zero_state")
    ) and callable(cell)


_TILE_ADVICE = (
    "Are you using the BeamSearchDecoder? Tile the memory, its lengths and "
    "the encoder state with emg.seq2seq.tile_batch(..., multiplier=beam_width) "
    "and call zero_state with batch_size=true_batch_size * beam_width."
)


def _mechanisms(attention_mechanism):
    """(is_multi, the mechanisms as a tuple), checked."""
    multi = isinstance(attention_mechanism, (list, tuple))
    mechanisms = tuple(attention_mechanism) if multi else (attention_mechanism,)
    for mechanism in mechanisms:
        if not isinstance(mechanism, AttentionMechanism):
            raise TypeError(
                "attention_mechanism must be an AttentionMechanism or a list of "
                f"them, saw type: {type(mechanism).__name__}"
            )
    return multi, mechanisms


def _as_tuple(value):
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


class AttentionWrapper:
    """Wraps an RNN cell with attention, as TF 1.15's `AttentionWrapper`.

    Each step feeds `cell_input_fn(inputs, previous attention)` to `cell`,
    scores its output against each mechanism's memory, and makes the
    attention from the context (through `attention_layer_size` units of a
    bias-free "attention_layer" on [cell output, context] when given).

    Args:
      cell: the RNN cell (`tf.compat.v1.nn.rnn_cell`).
      attention_mechanism: a mechanism, or a list of them.
      attention_layer_size: an int (a list, one per mechanism), or None: the
        context is the attention.
      alignment_history: keep every step's alignments in the state (a
        time-major TensorArray: call `stack()`).
      cell_input_fn: (inputs, attention) -> the cell's inputs; concatenation
        by default.
      output_attention: output the attention (Luong) rather than the cell's
        output (Bahdanau).
      initial_cell_state: the cell state `zero_state` returns.
      name: the variable scope; "attention_wrapper" by default.
      attention_layer: layers of yours in place of attention_layer_size.
      attention_fn: (mechanism, cell_output, attention_state, attention_layer)
        -> (attention, alignments, next_attention_state), or None.
    """

    def __init__(
        self,
        cell,
        attention_mechanism,
        attention_layer_size=None,
        alignment_history=False,
        cell_input_fn=None,
        output_attention=True,
        initial_cell_state=None,
        name=None,
        attention_layer=None,
        attention_fn=None,
    ):
        if not _like_rnncell(cell):
            raise TypeError(f"cell must be an RNNCell, saw type: {type(cell).__name__}")
        self._is_multi, self._attention_mechanisms = _mechanisms(attention_mechanism)
        if cell_input_fn is None:
            cell_input_fn = lambda inputs, attention: tf.concat(  # noqa: E731
                [inputs, attention], -1
            )
        elif not callable(cell_input_fn):
            raise TypeError(
                f"cell_input_fn must be callable, saw type: {type(cell_input_fn).__name__}"
            )
        if attention_fn is not None and not callable(attention_fn):
            raise TypeError(
                f"attention_fn must be callable, saw type: {type(attention_fn).__name__}"
            )
        self._cell = cell
        self._attention_layers, self._attention_layer_size = self._layers(
            attention_layer_size, attention_layer
        )
        self._cell_input_fn = cell_input_fn
        self._attention_fn = attention_fn or _compute_attention
        self._output_attention = output_attention
        self._alignment_history = alignment_history
        self._base_name = name or "attention_wrapper"
        self._scope = None
        self._initial_cell_state = None
        if initial_cell_state is not None:
            with tf.name_scope(name or "AttentionWrapperInit"):
                last = tf.nest.flatten(initial_cell_state)[-1]
                checks = self._batch_size_checks(
                    _static_or_dynamic(last, 0),
                    f"When constructing AttentionWrapper {self._base_name}: "
                    "non-matching batch sizes between the memory (encoder "
                    "output) and initial_cell_state. " + _TILE_ADVICE,
                )
                with tf.control_dependencies(checks):
                    self._initial_cell_state = tf.nest.map_structure(
                        lambda s: tf.identity(s, name="check_initial_cell_state"),
                        initial_cell_state,
                    )

    def _layers(self, attention_layer_size, attention_layer):
        """(the attention layers or None, the attention's depth)."""
        mechanisms = self._attention_mechanisms
        if attention_layer_size is not None and attention_layer is not None:
            raise ValueError(
                "Only one of attention_layer_size and attention_layer should be set"
            )
        if attention_layer_size is not None:
            sizes = _as_tuple(attention_layer_size)
            if len(sizes) != len(mechanisms):
                raise ValueError(
                    "If provided, attention_layer_size must contain exactly one "
                    f"integer per attention_mechanism, saw: {len(sizes)} vs "
                    f"{len(mechanisms)}"
                )
            layers = tuple(
                BiasFreeDense(size, name="attention_layer", dtype=m.dtype)
                for size, m in zip(sizes, mechanisms)
            )
            return layers, sum(int(size) for size in sizes)
        if attention_layer is not None:
            layers = _as_tuple(attention_layer)
            if len(layers) != len(mechanisms):
                raise ValueError(
                    "If provided, attention_layer must contain exactly one layer "
                    f"per attention_mechanism, saw: {len(layers)} vs {len(mechanisms)}"
                )
            depth = self._cell.output_size
            sizes = [
                layer.compute_output_shape(
                    tf.TensorShape([None, depth + m.values.shape[-1]])
                )[-1]
                for layer, m in zip(layers, mechanisms)
            ]
            return layers, sum(tf.compat.dimension_value(s) for s in sizes)
        depth = sum(tf.compat.dimension_value(m.values.shape[-1]) for m in mechanisms)
        return None, depth

    def _batch_size_checks(self, batch_size, message):
        return [
            tf.debugging.assert_equal(batch_size, m.batch_size, message=message)
            for m in self._attention_mechanisms
        ]

    def _item_or_tuple(self, seq):
        items = tuple(seq)
        return items if self._is_multi else items[0]

    @property
    def output_size(self):
        if self._output_attention:
            return self._attention_layer_size
        return self._cell.output_size

    @property
    def state_size(self):
        """An `AttentionWrapperState` of the sizes of the state's parts."""
        mechanisms = self._attention_mechanisms
        return AttentionWrapperState(
            cell_state=self._cell.state_size,
            time=tf.TensorShape([]),
            attention=self._attention_layer_size,
            alignments=self._item_or_tuple(m.alignments_size for m in mechanisms),
            attention_state=self._item_or_tuple(m.state_size for m in mechanisms),
            alignment_history=self._item_or_tuple(
                m.alignments_size if self._alignment_history else () for m in mechanisms
            ),
        )

    def zero_state(self, batch_size, dtype):
        """The first state: `initial_cell_state` (or the cell's zero state),
        zero attention and the mechanisms' initial alignments.

        With a BeamSearchDecoder, `batch_size` is true_batch_size * beam_width
        and the memory is tiled with `tile_batch`.
        """
        with tf.name_scope(type(self).__name__ + "ZeroState"):
            if self._initial_cell_state is not None:
                cell_state = self._initial_cell_state
            else:
                cell_state = self._cell.zero_state(batch_size, dtype)
            checks = self._batch_size_checks(
                batch_size,
                f"When calling zero_state of AttentionWrapper {self._base_name}: "
                "non-matching batch sizes between the memory (encoder output) and "
                "the requested batch size. " + _TILE_ADVICE,
            )
            with tf.control_dependencies(checks):
                cell_state = tf.nest.map_structure(
                    lambda s: tf.identity(s, name="checked_cell_state"), cell_state
                )
            mechanisms = self._attention_mechanisms
            alignments = [m.initial_alignments(batch_size, dtype) for m in mechanisms]
            history = [
                tf.TensorArray(dtype, size=0, dynamic_size=True, element_shape=a.shape)
                if self._alignment_history
                else ()
                for a in alignments
            ]
            return AttentionWrapperState(
                cell_state=cell_state,
                time=tf.zeros([], dtype=tf.int32),
                attention=_zeros(batch_size, self._attention_layer_size, dtype),
                alignments=self._item_or_tuple(alignments),
                attention_state=self._item_or_tuple(
                    m.initial_state(batch_size, dtype) for m in mechanisms
                ),
                alignment_history=self._item_or_tuple(history),
            )

    def __call__(self, inputs, state, scope=None):
        """One step, under the wrapper's variable scope (fixed at the first
        call, like a TF 1.x RNNCell's): (output, next_state)."""
        if scope is not None:
            with _v1.variable_scope(scope):
                return self.call(inputs, state)
        if self._scope is None:
            with _v1.variable_scope(None, default_name=self._base_name) as vs:
                self._scope = vs
                return self.call(inputs, state)
        with _v1.variable_scope(self._scope, reuse=True):
            return self.call(inputs, state)

    def call(self, inputs, state):
        """One step of the attention-wrapped cell (the scope is the caller's)."""
        if not isinstance(state, AttentionWrapperState):
            raise TypeError(
                "Expected state to be instance of AttentionWrapperState. "
                f"Received type {type(state).__name__} instead."
            )
        cell_inputs = self._cell_input_fn(inputs, state.attention)
        cell_output, next_cell_state = self._cell(cell_inputs, state.cell_state)
        checks = self._batch_size_checks(
            _static_or_dynamic(cell_output, 0),
            f"When applying AttentionWrapper {self._base_name}: non-matching batch "
            "sizes between the memory (encoder output) and the query (decoder "
            "output). " + _TILE_ADVICE,
        )
        with tf.control_dependencies(checks):
            cell_output = tf.identity(cell_output, name="checked_cell_output")
        previous = state.attention_state if self._is_multi else [state.attention_state]
        histories = (
            state.alignment_history if self._is_multi else [state.alignment_history]
        )
        attentions, alignments, states, next_histories = [], [], [], []
        for i, mechanism in enumerate(self._attention_mechanisms):
            layer = self._attention_layers[i] if self._attention_layers else None
            attention, align, next_state = self._attention_fn(
                mechanism, cell_output, previous[i], layer
            )
            attentions.append(attention)
            alignments.append(align)
            states.append(next_state)
            next_histories.append(
                histories[i].write(state.time, align) if self._alignment_history else ()
            )
        attention = tf.concat(attentions, 1)
        next_state = AttentionWrapperState(
            time=state.time + 1,
            cell_state=next_cell_state,
            attention=attention,
            attention_state=self._item_or_tuple(states),
            alignments=self._item_or_tuple(alignments),
            alignment_history=self._item_or_tuple(next_histories),
        )
        return (attention if self._output_attention else cell_output), next_state
