"""TF 1.15's BeamSearchDecoder and gather_tree (tf.contrib.seq2seq's
beam_search_decoder module and its GatherTree op), on tf.compat.v1.

TF 2.x has no GatherTree op; `gather_tree` walks the parent pointers back in
time with a reversed `tf.scan`, with the op's results.
"""

from __future__ import annotations

import collections
import numbers

import numpy as np
import tensorflow as tf

from estimator_multigpu.seq2seq._attention import AttentionWrapperState
from estimator_multigpu.seq2seq._decoder import Decoder

__all__ = [
    "BeamSearchDecoder",
    "BeamSearchDecoderOutput",
    "BeamSearchDecoderState",
    "FinalBeamSearchDecoderOutput",
    "gather_tree",
]

_v1 = tf.compat.v1


class BeamSearchDecoderState(
    collections.namedtuple(
        "BeamSearchDecoderState",
        (
            "cell_state",
            "log_probs",
            "finished",
            "lengths",
            "accumulated_attention_probs",
        ),
    )
):
    """The state of a `BeamSearchDecoder`, [batch_size, beam_width, ...].

    Attributes:
      cell_state: the cell's state, split into batch and beam.
      log_probs: each beam's log probability.
      finished: whether each beam has emitted the end token.
      lengths: each beam's length (int64), the end token included.
      accumulated_attention_probs: the summed alignments (coverage penalty),
        else ().
    """


class BeamSearchDecoderOutput(
    collections.namedtuple(
        "BeamSearchDecoderOutput", ("scores", "predicted_ids", "parent_ids")
    )
):
    """One step of a `BeamSearchDecoder`, [batch_size, beam_width].

    Attributes:
      scores: each beam's score (log probability over the length penalty).
      predicted_ids: each beam's token at this step.
      parent_ids: the beam of the previous step each beam continues.
    """


class FinalBeamSearchDecoderOutput(
    collections.namedtuple(
        "FinalBeamDecoderOutput", ["predicted_ids", "beam_search_decoder_output"]
    )
):
    """predicted_ids: [batch, time, beam] (time major when asked), each beam's
    tokens traced back through its parents, best beam first;
    beam_search_decoder_output: each step's `BeamSearchDecoderOutput`."""


def _check_tree_args(step_ids, parent_ids, max_sequence_lengths, end_token):
    if step_ids.shape.rank not in (None, 3):
        raise ValueError(
            f"step_ids must be [max_time, batch_size, beam_width], received shape "
            f"{step_ids.shape}"
        )
    if not step_ids.shape.is_compatible_with(parent_ids.shape):
        raise ValueError(
            f"parent_ids must have the shape of step_ids {step_ids.shape}, "
            f"received {parent_ids.shape}"
        )
    if max_sequence_lengths.shape.rank not in (None, 1):
        raise ValueError(
            "max_sequence_lengths must be a vector [batch_size], received shape "
            f"{max_sequence_lengths.shape}"
        )
    if end_token.shape.rank not in (None, 0):
        raise ValueError(
            f"end_token must be a scalar, received shape {end_token.shape}"
        )


def gather_tree(step_ids, parent_ids, max_sequence_lengths, end_token, name=None):
    """Each beam's full sequence, traced back from its last step's parents.

    The GatherTree op of TF 1.x: for batch entry b and beam k, the tokens of
    steps [0, max_sequence_lengths[b]) are read following `parent_ids`
    backwards from beam k at the last of those steps; every step after the
    first `end_token`, and every step from max_sequence_lengths[b] on, is
    `end_token`.

    Args:
      step_ids: [max_time, batch_size, beam_width], each step's token ids.
      parent_ids: the same shape, each step's parent beam.
      max_sequence_lengths: [batch_size] int32, the steps to trace per entry.
      end_token: the end token id.
      name: the name scope; "GatherTree" by default.

    Returns:
      [max_time, batch_size, beam_width] ids, of step_ids' dtype.
    """
    with tf.name_scope(name or "GatherTree"):
        step_ids = tf.convert_to_tensor(step_ids, name="step_ids")
        parent_ids = tf.convert_to_tensor(parent_ids, name="parent_ids")
        lengths = tf.convert_to_tensor(
            max_sequence_lengths, dtype=tf.int32, name="max_sequence_lengths"
        )
        end_token = tf.convert_to_tensor(end_token, step_ids.dtype, name="end_token")
        _check_tree_args(step_ids, parent_ids, lengths, end_token)
        shape = tf.shape(step_ids)
        max_time, beam_width = shape[0], shape[2]
        # A beam is traced over the steps before min(its length, max_time).
        limit = tf.expand_dims(tf.minimum(lengths, max_time), 1)
        first = tf.broadcast_to(tf.range(beam_width), shape[1:])
        parents = tf.cast(parent_ids, tf.int32)

        def back(carry, elems):
            pointer, _ = carry
            time, ids, parent = elems
            inside = time < limit
            in_range = tf.reduce_all(
                tf.logical_or(
                    tf.logical_not(inside),
                    tf.logical_and(pointer >= 0, pointer < beam_width),
                )
            )
            check = tf.debugging.Assert(
                in_range,
                [
                    "gather_tree: parent_ids points outside [0, beam_width) before step",
                    time,
                ],
            )
            with tf.control_dependencies([check]):
                safe = tf.clip_by_value(pointer, 0, beam_width - 1)
                token = tf.gather(ids, safe, batch_dims=1)
            token = tf.where(inside, token, tf.fill(tf.shape(token), end_token))
            pointer = tf.where(inside, tf.gather(parent, safe, batch_dims=1), pointer)
            return pointer, token

        _, beams = tf.scan(
            back,
            (tf.range(max_time), step_ids, parents),
            initializer=(first, tf.zeros_like(first, dtype=step_ids.dtype)),
            reverse=True,
        )
        # After a beam's first end token, only end tokens.
        ended = tf.cumsum(
            tf.cast(tf.equal(beams, end_token), tf.int32), axis=0, exclusive=True
        )
        beams = tf.where(ended > 0, tf.fill(tf.shape(beams), end_token), beams)
        beams.set_shape(step_ids.shape)
        return beams


def _gather_tree_from_array(t, parent_ids, sequence_length):
    """`t` ([time, batch * beam, ...]) with each step's beams reordered as
    gather_tree orders the final beams."""
    shape = tf.shape(parent_ids)
    max_time, batch_size, beam_width = shape[0], shape[1], shape[2]
    beam_ids = tf.broadcast_to(tf.range(beam_width), shape)
    max_lengths = tf.cast(tf.reduce_max(sequence_length, axis=1), tf.int32)
    sorted_ids = gather_tree(beam_ids, parent_ids, max_lengths, beam_width + 1)
    # Steps past a beam's length keep their own beam.
    in_bound = tf.transpose(
        tf.sequence_mask(sequence_length, maxlen=max_time), perm=[2, 0, 1]
    )
    sorted_ids = tf.where(in_bound, sorted_ids, beam_ids)
    final_shape = tf.shape(t)
    grouped = tf.reshape(t, tf.stack([max_time, batch_size, beam_width, -1]))
    ordered = tf.gather(grouped, sorted_ids, axis=2, batch_dims=2)
    return tf.reshape(ordered, final_shape)


def _mask_probs(probs, eos_token, finished):
    """Finished beams put all their probability on `eos_token`."""
    vocab_size = tf.shape(probs)[2]
    finished_row = tf.one_hot(
        eos_token,
        vocab_size,
        dtype=probs.dtype,
        on_value=tf.constant(0.0, dtype=probs.dtype),
        off_value=probs.dtype.min,
    )
    finished_probs = tf.broadcast_to(
        tf.reshape(finished_row, [1, 1, -1]), tf.shape(probs)
    )
    finished_mask = tf.broadcast_to(tf.expand_dims(finished, 2), tf.shape(probs))
    return tf.where(finished_mask, finished_probs, probs)


def _length_penalty(sequence_lengths, penalty_factor):
    """((5 + length) / 6) ** penalty_factor (GNMT's), or 1.0 when it is 0."""
    penalty_factor = tf.convert_to_tensor(penalty_factor, name="penalty_factor")
    penalty_factor.set_shape(())
    static = tf.get_static_value(penalty_factor)
    if static is not None and static == 0:
        return 1.0
    lengths = tf.cast(sequence_lengths, tf.float32)
    return tf.math.divide(
        (5.0 + lengths) ** penalty_factor, (5.0 + 1.0) ** penalty_factor
    )


def _attention_probs_of(state):
    probs = state.alignments
    if isinstance(probs, tuple):
        probs = tf.reduce_mean(tf.stack(probs, -1), -1)
    return probs


def _attention_probs(next_cell_state, coverage_penalty_weight):
    """The mean alignments of the attention states in `next_cell_state`."""
    if coverage_penalty_weight == 0.0:
        return None
    if isinstance(next_cell_state, AttentionWrapperState):
        per_layer = [_attention_probs_of(next_cell_state)]
    elif isinstance(next_cell_state, tuple):
        per_layer = [
            _attention_probs_of(s)
            for s in next_cell_state
            if isinstance(s, AttentionWrapperState)
        ]
    else:
        per_layer = []
    if not per_layer:
        raise ValueError(
            "coverage_penalty_weight must be 0.0 if no cell is attentional "
            "(the cell state holds no AttentionWrapperState)."
        )
    if len(per_layer) == 1:
        return per_layer[0]
    return tf.reduce_mean(tf.stack(per_layer, -1), -1)


def _get_scores(
    log_probs,
    sequence_lengths,
    length_penalty_weight,
    coverage_penalty_weight,
    finished,
    accumulated_attention_probs,
):
    """The log probabilities over the length penalty, plus the weighted
    coverage penalty of the beams already finished."""
    penalty = tf.cast(
        _length_penalty(sequence_lengths, length_penalty_weight), log_probs.dtype
    )
    scores = log_probs / penalty
    weight = tf.convert_to_tensor(
        coverage_penalty_weight, name="coverage_penalty_weight"
    )
    if weight.shape.rank != 0:
        raise ValueError(
            f"coverage_penalty_weight should be a scalar, but saw shape: {weight.shape}"
        )
    if tf.get_static_value(weight) == 0.0:
        return scores
    probs = accumulated_attention_probs
    # Memory steps never attended (past a source's length) add nothing.
    probs = tf.where(tf.equal(probs, 0.0), tf.ones_like(probs), probs)
    coverage = tf.reduce_sum(tf.math.log(tf.minimum(probs, 1.0)), 2)
    coverage *= tf.cast(finished, coverage.dtype)
    return scores + tf.expand_dims(coverage * tf.cast(weight, coverage.dtype), 2)


def _gather_beams(values, beam_ids):
    """values[b, beam_ids[b, k], ...] for [batch, beam, ...] `values`."""
    if isinstance(values, tf.TensorArray) or values.shape.rank < 2:
        return values
    return tf.gather(values, beam_ids, axis=1, batch_dims=1)


def _beam_search_step(
    logits,
    next_cell_state,
    beam_state,
    batch_size,
    beam_width,
    end_token,
    length_penalty_weight,
    coverage_penalty_weight,
):
    """One step: the best `beam_width` continuations of every batch entry."""
    static_batch = tf.get_static_value(batch_size)
    previously_finished = beam_state.finished
    not_finished = tf.logical_not(previously_finished)
    step_log_probs = _mask_probs(
        tf.nn.log_softmax(logits), end_token, previously_finished
    )
    total_probs = tf.expand_dims(beam_state.log_probs, 2) + step_log_probs
    vocab_size = tf.compat.dimension_value(logits.shape[-1]) or tf.shape(logits)[-1]
    # Every continuation but the end token makes an unfinished beam longer.
    lengths_to_add = tf.one_hot(
        tf.fill(tf.shape(previously_finished), end_token),
        depth=vocab_size,
        on_value=np.int64(0),
        off_value=np.int64(1),
        dtype=tf.int64,
    ) * tf.expand_dims(tf.cast(not_finished, tf.int64), 2)
    new_lengths = lengths_to_add + tf.expand_dims(beam_state.lengths, 2)
    accumulated = None
    attention_probs = _attention_probs(next_cell_state, coverage_penalty_weight)
    if attention_probs is not None:
        attention_probs *= tf.expand_dims(
            tf.cast(not_finished, attention_probs.dtype), 2
        )
        accumulated = beam_state.accumulated_attention_probs + attention_probs
    scores = _get_scores(
        total_probs,
        new_lengths,
        length_penalty_weight,
        coverage_penalty_weight,
        previously_finished,
        accumulated,
    )
    scores_flat = tf.reshape(scores, [batch_size, -1])
    next_scores, word_indices = tf.nn.top_k(scores_flat, k=beam_width)
    next_scores.set_shape([static_batch, beam_width])
    word_indices.set_shape([static_batch, beam_width])
    next_probs = tf.gather(
        tf.reshape(total_probs, [batch_size, -1]), word_indices, batch_dims=1
    )
    next_probs.set_shape([static_batch, beam_width])
    next_word_ids = tf.cast(tf.math.floormod(word_indices, vocab_size), tf.int32)
    next_beam_ids = tf.cast(word_indices // vocab_size, tf.int32)
    previously_finished = _gather_beams(previously_finished, next_beam_ids)
    next_finished = tf.logical_or(
        previously_finished, tf.equal(next_word_ids, end_token)
    )
    next_lengths = _gather_beams(beam_state.lengths, next_beam_ids) + tf.cast(
        tf.logical_not(previously_finished), tf.int64
    )
    next_accumulated = ()
    if accumulated is not None:
        next_accumulated = _gather_beams(accumulated, next_beam_ids)
    next_cell_state = tf.nest.map_structure(
        lambda s: _gather_beams(s, next_beam_ids), next_cell_state
    )
    state = BeamSearchDecoderState(
        cell_state=next_cell_state,
        log_probs=next_probs,
        lengths=next_lengths,
        finished=next_finished,
        accumulated_attention_probs=next_accumulated,
    )
    output = BeamSearchDecoderOutput(
        scores=next_scores, predicted_ids=next_word_ids, parent_ids=next_beam_ids
    )
    return output, state


def _check_beam_width(beam_width):
    if (
        isinstance(beam_width, bool)
        or not isinstance(beam_width, numbers.Integral)
        or beam_width < 1
    ):
        raise ValueError(
            f"beam_width must be a Python int >= 1, received {beam_width!r}"
        )
    return int(beam_width)


class BeamSearchDecoder(Decoder):
    """TF 1.15's beam search decoder, for `dynamic_decode`.

    Args:
      cell: the RNN cell (an `AttentionWrapper` too), run on
        batch_size * beam_width rows.
      embedding: an embedding matrix, or a callable from ids to inputs.
      start_tokens: an int vector [batch_size], the first inputs' ids.
      end_token: an int scalar; a beam that emits it is finished.
      initial_state: the cell's initial state, batch_size * beam_width rows
        (`tile_batch(encoder_state, multiplier=beam_width)`).
      beam_width: a Python int >= 1.
      output_layer: applied to the cell's output (the logits), or None.
      length_penalty_weight: GNMT's length penalty weight (0: none).
      coverage_penalty_weight: GNMT's coverage penalty weight (0: none; the
        cell state must hold an `AttentionWrapperState`).
      reorder_tensor_arrays: reorder the TensorArrays of the final cell state
        (the alignment history) along the final beams.

    `dynamic_decode` returns a `FinalBeamSearchDecoderOutput` and the final
    `BeamSearchDecoderState`; the beams of each step are ordered best first.
    """

    def __init__(
        self,
        cell,
        embedding,
        start_tokens,
        end_token,
        initial_state,
        beam_width,
        output_layer=None,
        length_penalty_weight=0.0,
        coverage_penalty_weight=0.0,
        reorder_tensor_arrays=True,
    ):
        if not callable(cell) or not hasattr(cell, "output_size"):
            raise TypeError(f"cell must be an RNNCell, received: {type(cell).__name__}")
        if output_layer is not None and not callable(output_layer):
            raise TypeError(
                f"output_layer must be a Layer, received: {type(output_layer).__name__}"
            )
        self._cell = cell
        self._output_layer = output_layer
        self._reorder_tensor_arrays = reorder_tensor_arrays
        if callable(embedding):
            self._embedding_fn = embedding
        else:
            self._embedding_fn = lambda ids: tf.nn.embedding_lookup(embedding, ids)
        start_tokens = tf.convert_to_tensor(start_tokens, tf.int32, name="start_tokens")
        if start_tokens.shape.rank != 1:
            raise ValueError(
                f"start_tokens must be a vector, received shape {start_tokens.shape}"
            )
        self._end_token = tf.convert_to_tensor(end_token, tf.int32, name="end_token")
        if self._end_token.shape.rank != 0:
            raise ValueError(
                f"end_token must be a scalar, received shape {self._end_token.shape}"
            )
        self._batch_size = tf.size(start_tokens)
        self._beam_width = _check_beam_width(beam_width)
        self._length_penalty_weight = length_penalty_weight
        self._coverage_penalty_weight = coverage_penalty_weight
        self._initial_cell_state = tf.nest.map_structure(
            self._maybe_split_batch_beams, initial_state
        )
        self._start_tokens = tf.tile(
            tf.expand_dims(start_tokens, 1), [1, self._beam_width]
        )
        self._start_inputs = self._embedding_fn(self._start_tokens)
        self._finished = tf.one_hot(
            tf.zeros([self._batch_size], tf.int32),
            depth=self._beam_width,
            on_value=False,
            off_value=True,
            dtype=tf.bool,
        )

    @property
    def batch_size(self):
        return self._batch_size

    @property
    def tracks_own_finished(self):
        """Finished beams keep emitting the end token (and beams reorder), so
        dynamic_decode takes `finished` and the lengths from the decoder."""
        return True

    @property
    def output_size(self):
        shape = tf.TensorShape([self._beam_width])
        return BeamSearchDecoderOutput(
            scores=shape, predicted_ids=shape, parent_ids=shape
        )

    @property
    def output_dtype(self):
        dtype = tf.nest.flatten(self._initial_cell_state)[0].dtype
        return BeamSearchDecoderOutput(
            scores=dtype, predicted_ids=tf.int32, parent_ids=tf.int32
        )

    def _split_batch_beams(self, t):
        """[batch * beam, ...] -> [batch, beam, ...], checked."""
        static_batch = tf.get_static_value(self._batch_size)
        rows = tf.compat.dimension_value(t.shape[0])
        if static_batch is not None and rows is not None:
            if rows != static_batch * self._beam_width:
                raise ValueError(
                    f"A cell state or output has {rows} rows, but the beam search "
                    f"needs batch_size * beam_width = {static_batch} * "
                    f"{self._beam_width} = {static_batch * self._beam_width}: tile "
                    "the encoder state and memory with emg.seq2seq.tile_batch(..., "
                    "multiplier=beam_width) and create the zero_state with "
                    "batch_size=batch_size * beam_width."
                )
        reshaped = tf.reshape(
            t,
            tf.concat(([self._batch_size, self._beam_width], tf.shape(t)[1:]), 0),
        )
        reshaped.set_shape(
            tf.TensorShape([static_batch, self._beam_width]).concatenate(t.shape[1:])
        )
        return reshaped

    def _merge_batch_beams(self, t):
        """[batch, beam, ...] -> [batch * beam, ...]."""
        static_batch = tf.get_static_value(self._batch_size)
        merged = tf.reshape(
            t, tf.concat(([self._batch_size * self._beam_width], tf.shape(t)[2:]), 0)
        )
        rows = None if static_batch is None else static_batch * self._beam_width
        merged.set_shape(tf.TensorShape([rows]).concatenate(t.shape[2:]))
        return merged

    @staticmethod
    def _check_rank(t):
        if t.shape.rank is None:
            raise ValueError(
                f"Expected tensor ({t.name}) to have known rank, but ndims == None."
            )

    def _maybe_split_batch_beams(self, t):
        if isinstance(t, tf.TensorArray):
            return t
        t = tf.convert_to_tensor(t)
        self._check_rank(t)
        return self._split_batch_beams(t) if t.shape.rank >= 1 else t

    def _maybe_merge_batch_beams(self, t):
        if isinstance(t, tf.TensorArray):
            return t
        self._check_rank(t)
        return self._merge_batch_beams(t) if t.shape.rank >= 2 else t

    def _maybe_sort_array_beams(self, t, parent_ids, sequence_length):
        """A TensorArray of [batch * beam, ...] steps, stacked and reordered
        along the final beams; anything else unchanged."""
        if not isinstance(t, tf.TensorArray):
            return t
        shape = t.element_shape
        static_batch = tf.get_static_value(self._batch_size)
        rows = tf.compat.dimension_value(shape[0]) if shape.rank else None
        if (
            shape.rank is None
            or shape.rank < 1
            or (
                rows is not None
                and static_batch is not None
                and rows != static_batch * self._beam_width
            )
        ):
            return t
        return _gather_tree_from_array(t.stack(), parent_ids, sequence_length)

    def initialize(self, name=None):
        """(finished, start_inputs, initial_state): only the first beam of
        each entry is live."""
        dtype = tf.nest.flatten(self._initial_cell_state)[0].dtype
        log_probs = tf.one_hot(
            tf.zeros([self._batch_size], tf.int32),
            depth=self._beam_width,
            on_value=tf.constant(0.0, dtype),
            off_value=tf.constant(-np.inf, dtype),
            dtype=dtype,
        )
        attention_probs = _attention_probs(
            self._initial_cell_state, self._coverage_penalty_weight
        )
        state = BeamSearchDecoderState(
            cell_state=self._initial_cell_state,
            log_probs=log_probs,
            finished=self._finished,
            lengths=tf.zeros([self._batch_size, self._beam_width], tf.int64),
            accumulated_attention_probs=(
                () if attention_probs is None else attention_probs
            ),
        )
        return self._finished, self._start_inputs, state

    def step(self, time, inputs, state, name=None):
        with tf.name_scope(name or "BeamSearchDecoderStep"):
            inputs = tf.nest.map_structure(self._merge_batch_beams, inputs)
            cell_state = tf.nest.map_structure(
                self._maybe_merge_batch_beams, state.cell_state
            )
            cell_outputs, next_cell_state = self._cell(inputs, cell_state)
            cell_outputs = tf.nest.map_structure(self._split_batch_beams, cell_outputs)
            next_cell_state = tf.nest.map_structure(
                self._maybe_split_batch_beams, next_cell_state
            )
            if self._output_layer is not None:
                cell_outputs = self._output_layer(cell_outputs)
            output, next_state = _beam_search_step(
                cell_outputs,
                next_cell_state,
                state,
                self._batch_size,
                self._beam_width,
                self._end_token,
                self._length_penalty_weight,
                self._coverage_penalty_weight,
            )
            finished = next_state.finished
            next_inputs = tf.cond(
                tf.reduce_all(finished),
                lambda: self._start_inputs,
                lambda: self._embedding_fn(output.predicted_ids),
            )
        return output, next_state, next_inputs, finished

    def finalize(self, outputs, final_state, sequence_lengths):
        """The beams traced back with `gather_tree` (time-major outputs)."""
        del sequence_lengths
        max_lengths = tf.cast(tf.reduce_max(final_state.lengths, axis=1), tf.int32)
        predicted_ids = gather_tree(
            outputs.predicted_ids,
            outputs.parent_ids,
            max_sequence_lengths=max_lengths,
            end_token=self._end_token,
        )
        if self._reorder_tensor_arrays:
            final_state = final_state._replace(
                cell_state=tf.nest.map_structure(
                    lambda t: self._maybe_sort_array_beams(
                        t, outputs.parent_ids, final_state.lengths
                    ),
                    final_state.cell_state,
                )
            )
        final = FinalBeamSearchDecoderOutput(
            beam_search_decoder_output=outputs, predicted_ids=predicted_ids
        )
        return final, final_state
