"""The decoder loop, its helpers and tile_batch: TF 1.15's basic_decoder, helper
and decoder modules of tf.contrib.seq2seq."""

from __future__ import annotations

import abc
import collections

import tensorflow as tf

__all__ = [
    "BasicDecoder",
    "BasicDecoderOutput",
    "Decoder",
    "GreedyEmbeddingHelper",
    "Helper",
    "SampleEmbeddingHelper",
    "TrainingHelper",
    "dynamic_decode",
    "tile_batch",
]

_v1 = tf.compat.v1


def _transpose_batch_time(x):
    """`x` with its first two dimensions swapped (rank < 2: unchanged)."""
    x = tf.convert_to_tensor(x)
    shape = x.shape
    if shape.rank is not None and shape.rank < 2:
        return x
    perm = tf.concat(([1, 0], tf.range(2, tf.rank(x))), axis=0)
    out = tf.transpose(x, perm)
    if shape.rank is not None:
        out.set_shape(tf.TensorShape([shape[1], shape[0]]).concatenate(shape[2:]))
    return out


def _unstack_ta(inp):
    return tf.TensorArray(
        dtype=inp.dtype, size=tf.shape(inp)[0], element_shape=inp.shape[1:]
    ).unstack(inp)


def _zeros(size, dtype, batch_size):
    """Zeros of [batch_size] + `size`, with the static shape known."""
    shape = tf.TensorShape(size)
    dims = tf.constant(shape.as_list(), tf.int32, shape=[shape.rank])
    out = tf.zeros(tf.concat([tf.reshape(batch_size, [1]), dims], 0), dtype)
    static = tf.get_static_value(batch_size)
    out.set_shape(tf.TensorShape([static]).concatenate(shape))
    return out


class Helper(abc.ABC):
    """How a `BasicDecoder` samples and reads its next input (contrib's)."""

    @property
    @abc.abstractmethod
    def batch_size(self):
        """The batch size, a scalar tensor."""

    @property
    @abc.abstractmethod
    def sample_ids_shape(self):
        """The shape of one sample id, without the batch."""

    @property
    @abc.abstractmethod
    def sample_ids_dtype(self):
        """The dtype of the sample ids."""

    @abc.abstractmethod
    def initialize(self, name=None):
        """(initial_finished, initial_inputs)."""

    @abc.abstractmethod
    def sample(self, time, outputs, state, name=None):
        """The sample ids of this step."""

    @abc.abstractmethod
    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        """(finished, next_inputs, next_state)."""


class TrainingHelper(Helper):
    """Reads the next input from `inputs` (teacher forcing), as TF 1.x did.

    Args:
      inputs: the decoder inputs, [batch, time, ...] ([time, batch, ...] when
        `time_major`).
      sequence_length: an int vector, each sequence's length.
      time_major: whether `inputs` is time major.
      name: the name scope; "TrainingHelper" by default.
    """

    def __init__(self, inputs, sequence_length, time_major=False, name=None):
        with tf.name_scope(name or "TrainingHelper"):
            inputs = tf.convert_to_tensor(inputs, name="inputs")
            self._inputs = inputs
            if not time_major:
                inputs = tf.nest.map_structure(_transpose_batch_time, inputs)
            self._input_tas = tf.nest.map_structure(_unstack_ta, inputs)
            self._sequence_length = tf.convert_to_tensor(
                sequence_length, name="sequence_length"
            )
            if self._sequence_length.shape.rank != 1:
                raise ValueError(
                    "Expected sequence_length to be a vector, but received shape: "
                    f"{self._sequence_length.shape}"
                )
            self._zero_inputs = tf.nest.map_structure(
                lambda inp: tf.zeros_like(inp[0, :]), inputs
            )
            self._batch_size = tf.size(sequence_length)

    @property
    def inputs(self):
        return self._inputs

    @property
    def sequence_length(self):
        return self._sequence_length

    @property
    def batch_size(self):
        return self._batch_size

    @property
    def sample_ids_shape(self):
        return tf.TensorShape([])

    @property
    def sample_ids_dtype(self):
        return tf.int32

    def _inputs_at(self, time, finished):
        """The inputs read at `time`, or zeros once every sequence is `finished`."""
        return tf.cond(
            tf.reduce_all(finished),
            lambda: self._zero_inputs,
            lambda: tf.nest.map_structure(lambda ta: ta.read(time), self._input_tas),
        )

    def initialize(self, name=None):
        with tf.name_scope(name or "TrainingHelperInitialize"):
            finished = tf.equal(0, self._sequence_length)
            return finished, self._inputs_at(0, finished)

    def sample(self, time, outputs, name=None, **unused_kwargs):
        with tf.name_scope(name or "TrainingHelperSample"):
            return tf.cast(tf.argmax(outputs, axis=-1), tf.int32)

    def next_inputs(self, time, outputs, state, name=None, **unused_kwargs):
        with tf.name_scope(name or "TrainingHelperNextInputs"):
            next_time = time + 1
            finished = next_time >= self._sequence_length
            return finished, self._inputs_at(next_time, finished), state


class GreedyEmbeddingHelper(Helper):
    """Feeds the embedding of the argmax of each step's output to the next.

    Args:
      embedding: an embedding matrix, or a callable from ids to inputs.
      start_tokens: an int vector [batch], the first inputs' ids.
      end_token: an int scalar; a sequence that samples it is finished.
    """

    def __init__(self, embedding, start_tokens, end_token):
        if callable(embedding):
            self._embedding_fn = embedding
        else:
            self._embedding_fn = lambda ids: tf.nn.embedding_lookup(embedding, ids)
        self._start_tokens = tf.convert_to_tensor(
            start_tokens, dtype=tf.int32, name="start_tokens"
        )
        self._end_token = tf.convert_to_tensor(
            end_token, dtype=tf.int32, name="end_token"
        )
        if self._start_tokens.shape.rank != 1:
            raise ValueError("start_tokens must be a vector")
        self._batch_size = tf.size(start_tokens)
        if self._end_token.shape.rank != 0:
            raise ValueError("end_token must be a scalar")
        self._start_inputs = self._embedding_fn(self._start_tokens)

    @property
    def batch_size(self):
        return self._batch_size

    @property
    def sample_ids_shape(self):
        return tf.TensorShape([])

    @property
    def sample_ids_dtype(self):
        return tf.int32

    def initialize(self, name=None):
        finished = tf.tile([False], [self._batch_size])
        return finished, self._start_inputs

    def sample(self, time, outputs, state, name=None):
        del time, state
        if not isinstance(outputs, tf.Tensor):
            raise TypeError(f"Expected outputs to be a single Tensor, got: {outputs}")
        return tf.argmax(outputs, axis=-1, output_type=tf.int32)

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        del time, outputs
        finished = tf.equal(sample_ids, self._end_token)
        next_inputs = tf.cond(
            tf.reduce_all(finished),
            lambda: self._start_inputs,
            lambda: self._embedding_fn(sample_ids),
        )
        return finished, next_inputs, state


class SampleEmbeddingHelper(GreedyEmbeddingHelper):
    """Like `GreedyEmbeddingHelper`, sampling from the softmax of the output.

    Args:
      embedding: an embedding matrix, or a callable from ids to inputs.
      start_tokens: an int vector [batch], the first inputs' ids.
      end_token: an int scalar; a sequence that samples it is finished.
      softmax_temperature: the logits are divided by it (None: 1).
      seed: the sampling seed.
    """

    def __init__(
        self, embedding, start_tokens, end_token, softmax_temperature=None, seed=None
    ):
        super().__init__(embedding, start_tokens, end_token)
        self._softmax_temperature = softmax_temperature
        self._seed = seed

    def sample(self, time, outputs, state, name=None):
        del time, state
        if not isinstance(outputs, tf.Tensor):
            raise TypeError(f"Expected outputs to be a single Tensor, got: {outputs}")
        logits = outputs
        if self._softmax_temperature is not None:
            logits = outputs / self._softmax_temperature
        # contrib's Categorical(logits).sample(seed): the same multinomial op.
        draws = _v1.random.categorical(logits, 1, seed=self._seed, dtype=tf.int32)
        return tf.reshape(draws, tf.shape(logits)[:-1])


class Decoder(abc.ABC):
    """What `dynamic_decode` runs: contrib's decoder interface."""

    @property
    def batch_size(self):
        raise NotImplementedError

    @property
    def output_size(self):
        raise NotImplementedError

    @property
    def output_dtype(self):
        raise NotImplementedError

    @abc.abstractmethod
    def initialize(self, name=None):
        """(finished, initial_inputs, initial_state)."""

    @abc.abstractmethod
    def step(self, time, inputs, state, name=None):
        """(outputs, next_state, next_inputs, finished)."""

    def finalize(self, outputs, final_state, sequence_lengths):
        raise NotImplementedError

    @property
    def tracks_own_finished(self):
        return False


class BasicDecoderOutput(
    collections.namedtuple("BasicDecoderOutput", ("rnn_output", "sample_id"))
):
    pass


class BasicDecoder(Decoder):
    """Runs `cell` one step, then `output_layer`, then the helper's sampling.

    Args:
      cell: an RNN cell (`tf.compat.v1.nn.rnn_cell`).
      helper: a `Helper`.
      initial_state: the cell's initial state.
      output_layer: a layer applied to the cell's output (the logits), or None.
    """

    def __init__(self, cell, helper, initial_state, output_layer=None):
        if not callable(cell) or not hasattr(cell, "output_size"):
            raise TypeError(f"cell must be an RNNCell, received: {cell}")
        if not isinstance(helper, Helper):
            raise TypeError(f"helper must be a Helper, received: {type(helper)}")
        self._cell = cell
        self._helper = helper
        self._initial_state = initial_state
        self._output_layer = output_layer

    @property
    def batch_size(self):
        return self._helper.batch_size

    def _rnn_output_size(self):
        size = self._cell.output_size
        if self._output_layer is None:
            return size
        with_batch = tf.nest.map_structure(
            lambda s: tf.TensorShape([None]).concatenate(s), size
        )
        shape = self._output_layer.compute_output_shape(with_batch)
        return tf.nest.map_structure(lambda s: s[1:], shape)

    @property
    def output_size(self):
        return BasicDecoderOutput(
            rnn_output=self._rnn_output_size(),
            sample_id=self._helper.sample_ids_shape,
        )

    @property
    def output_dtype(self):
        dtype = tf.nest.flatten(self._initial_state)[0].dtype
        return BasicDecoderOutput(
            tf.nest.map_structure(lambda _: dtype, self._rnn_output_size()),
            self._helper.sample_ids_dtype,
        )

    def initialize(self, name=None):
        return self._helper.initialize() + (self._initial_state,)

    def step(self, time, inputs, state, name=None):
        with tf.name_scope(name or "BasicDecoderStep"):
            cell_outputs, cell_state = self._cell(inputs, state)
            if self._output_layer is not None:
                cell_outputs = self._output_layer(cell_outputs)
            sample_ids = self._helper.sample(
                time=time, outputs=cell_outputs, state=cell_state
            )
            finished, next_inputs, next_state = self._helper.next_inputs(
                time=time, outputs=cell_outputs, state=cell_state, sample_ids=sample_ids
            )
        outputs = BasicDecoderOutput(cell_outputs, sample_ids)
        return outputs, next_state, next_inputs, finished


def _maybe_copy_state(finished):
    def copy(new, cur):
        if isinstance(cur, tf.TensorArray):
            return new
        new.set_shape(cur.shape)
        return new if new.shape.rank == 0 else _v1.where(finished, cur, new)

    return copy


def _loop_body(decoder, zero_outputs, impute_finished):
    """The while_loop body of `dynamic_decode` (contrib's, step for step)."""

    def body(time, outputs_ta, state, inputs, finished, sequence_lengths):
        next_outputs, decoder_state, next_inputs, decoder_finished = decoder.step(
            time, inputs, state
        )
        from_state = False
        if decoder.tracks_own_finished:
            next_finished = decoder_finished
            lengths = getattr(decoder_state, "lengths", None)
            if lengths is not None:
                from_state = True
                sequence_lengths = tf.cast(lengths, tf.int32)
        else:
            next_finished = tf.logical_or(decoder_finished, finished)
        if not from_state:
            sequence_lengths = _v1.where(
                tf.logical_not(finished),
                tf.fill(tf.shape(sequence_lengths), time + 1),
                sequence_lengths,
            )
        tf.nest.assert_same_structure(state, decoder_state)
        tf.nest.assert_same_structure(outputs_ta, next_outputs)
        tf.nest.assert_same_structure(inputs, next_inputs)
        emit, next_state = next_outputs, decoder_state
        if impute_finished:
            emit = tf.nest.map_structure(
                lambda out, zero: _v1.where(finished, zero, out),
                next_outputs,
                zero_outputs,
            )
            next_state = tf.nest.map_structure(
                _maybe_copy_state(finished), decoder_state, state
            )
        outputs_ta = tf.nest.map_structure(
            lambda ta, out: ta.write(time, out), outputs_ta, emit
        )
        return (
            time + 1,
            outputs_ta,
            next_state,
            next_inputs,
            next_finished,
            sequence_lengths,
        )

    return body


def _element_shape(batch_size, size):
    if not isinstance(size, tf.TensorShape) or size.rank == 0:
        return None
    static = tf.get_static_value(tf.convert_to_tensor(batch_size, name="batch_size"))
    return tf.TensorShape([static]).concatenate(size)


def dynamic_decode(
    decoder,
    output_time_major=False,
    impute_finished=False,
    maximum_iterations=None,
    parallel_iterations=32,
    swap_memory=False,
    scope=None,
):
    """Runs `decoder` until every sequence is finished, as TF 1.x did.

    Args:
      decoder: a `Decoder` (a `BasicDecoder`).
      output_time_major: return [time, batch, ...] outputs.
      impute_finished: zero the outputs, and keep the state, of a sequence
        past its end.
      maximum_iterations: the most steps to run, or None.
      parallel_iterations: the while loop's.
      swap_memory: the while loop's.
      scope: the variable scope; "decoder" by default.

    Returns:
      (final_outputs, final_state, final_sequence_lengths); the outputs are
      batch major unless `output_time_major`.
    """
    if not isinstance(decoder, Decoder):
        raise TypeError(f"Expected decoder to be type Decoder, but saw: {decoder}")
    with _v1.variable_scope(scope, "decoder") as varscope:
        if varscope.caching_device is None:
            varscope.set_caching_device(lambda op: op.device)
        if maximum_iterations is not None:
            maximum_iterations = tf.convert_to_tensor(
                maximum_iterations, dtype=tf.int32, name="maximum_iterations"
            )
            if maximum_iterations.shape.rank != 0:
                raise ValueError("maximum_iterations must be a scalar")
        initial_finished, initial_inputs, initial_state = decoder.initialize()
        zero_outputs = tf.nest.map_structure(
            lambda s, d: _zeros(s, d, decoder.batch_size),
            decoder.output_size,
            decoder.output_dtype,
        )
        if maximum_iterations is not None:
            initial_finished = tf.logical_or(initial_finished, 0 >= maximum_iterations)
        initial_outputs_ta = tf.nest.map_structure(
            lambda s, d: tf.TensorArray(
                dtype=d,
                size=0,
                dynamic_size=True,
                element_shape=_element_shape(decoder.batch_size, s),
            ),
            decoder.output_size,
            decoder.output_dtype,
        )
        res = _v1.while_loop(
            lambda *args: tf.logical_not(tf.reduce_all(args[4])),
            _loop_body(decoder, zero_outputs, impute_finished),
            loop_vars=(
                tf.constant(0, dtype=tf.int32),
                initial_outputs_ta,
                initial_state,
                initial_inputs,
                initial_finished,
                tf.zeros_like(initial_finished, dtype=tf.int32),
            ),
            parallel_iterations=parallel_iterations,
            maximum_iterations=maximum_iterations,
            swap_memory=swap_memory,
        )
        final_state, final_sequence_lengths = res[2], res[5]
        final_outputs = tf.nest.map_structure(lambda ta: ta.stack(), res[1])
        try:
            final_outputs, final_state = decoder.finalize(
                final_outputs, final_state, final_sequence_lengths
            )
        except NotImplementedError:
            pass
        if not output_time_major:
            final_outputs = tf.nest.map_structure(_transpose_batch_time, final_outputs)
    return final_outputs, final_state, final_sequence_lengths


def _tile_batch(t, multiplier):
    t = tf.convert_to_tensor(t, name="t")
    if t.shape.rank is None or t.shape.rank < 1:
        raise ValueError("t must have statically known rank")
    shape_t = tf.shape(t)
    tiling = [1] * (t.shape.rank + 1)
    tiling[1] = multiplier
    static = t.shape[0] * multiplier if t.shape[0] is not None else None
    tiled = tf.tile(tf.expand_dims(t, 1), tiling)
    tiled = tf.reshape(tiled, tf.concat(([shape_t[0] * multiplier], shape_t[1:]), 0))
    tiled.set_shape(tf.TensorShape([static]).concatenate(t.shape[1:]))
    return tiled


def tile_batch(t, multiplier, name=None):
    """Each batch entry of `t` repeated `multiplier` times in a row.

    Args:
      t: a tensor or nested structure of tensors, batch first.
      multiplier: how many copies: [a, b] becomes [a, a, b, b] for 2.
      name: the name scope; "tile_batch" by default.
    """
    with tf.name_scope(name or "tile_batch"):
        return tf.nest.map_structure(lambda t_: _tile_batch(t_, multiplier), t)
