"""TF 1.x's `tf.contrib.legacy_seq2seq` decoders and losses, as a drop-in.

TF 2 has no successor for them (the contrib-sunset RFC deleted the module in
favour of `tf.contrib.seq2seq`, itself gone); character and word language
models of 2016-2018 unrolled their RNN with `rnn_decoder` and scored it with
`sequence_loss_by_example`. These take the same arguments, build the same
graph under the same variable scopes (so TF 1.x checkpoints restore) and
return the same values, in graph mode (`tf.compat.v1`)::

    import estimator_multigpu as emg

    outputs, state = emg.legacy_seq2seq.rnn_decoder(inputs, state, cell)
    loss = emg.legacy_seq2seq.sequence_loss_by_example(
        [logits], [tf.reshape(targets, [-1])], [weights])

`emg-migrate --fix` writes these for `tf.contrib.legacy_seq2seq.<name>`. The
attention and embedding models are not here (their successors are a rewrite
onto `tf.keras` layers).
"""

from __future__ import annotations

import copy

import tensorflow as tf

__all__ = [
    "basic_rnn_seq2seq",
    "rnn_decoder",
    "sequence_loss",
    "sequence_loss_by_example",
    "tied_rnn_seq2seq",
]

_v1 = tf.compat.v1


def rnn_decoder(decoder_inputs, initial_state, cell, loop_function=None, scope=None):
    """Runs `cell` over `decoder_inputs` from `initial_state`, as TF 1.x did.

    Args:
      decoder_inputs: a list of [batch, input_size] tensors, one per step.
      initial_state: the cell's state to start from.
      cell: a `tf.compat.v1.nn.rnn_cell.RNNCell` (or any callable cell).
      loop_function: when given, `loop_function(prev_output, i)` makes step
        i's input from step i-1's output (only the first input is read); it
        runs under the variable scope "loop_function", reusing variables.
      scope: the variable scope; "rnn_decoder" by default.

    Returns:
      (outputs, state): the list of per-step outputs and the last state.
    """
    with _v1.variable_scope(scope or "rnn_decoder"):
        state, outputs, previous = initial_state, [], None
        for step, step_input in enumerate(decoder_inputs):
            if loop_function is not None and previous is not None:
                with _v1.variable_scope("loop_function", reuse=True):
                    step_input = loop_function(previous, step)
            if step > 0:
                _v1.get_variable_scope().reuse_variables()
            output, state = cell(step_input, state)
            outputs.append(output)
            if loop_function is not None:
                previous = output
    return outputs, state


def basic_rnn_seq2seq(
    encoder_inputs, decoder_inputs, cell, dtype=tf.float32, scope=None
):
    """Encodes with a copy of `cell` (its own variables), then `rnn_decoder`.

    Args:
      encoder_inputs: a list of [batch, input_size] tensors, one per step.
      decoder_inputs: the decoder's list, likewise.
      cell: the decoder's cell; the encoder runs a deep copy of it.
      dtype: the encoder's initial state's dtype.
      scope: the variable scope; "basic_rnn_seq2seq" by default.

    Returns:
      (outputs, state) of the decoder.
    """
    with _v1.variable_scope(scope or "basic_rnn_seq2seq"):
        _, encoded = _v1.nn.static_rnn(copy.deepcopy(cell), encoder_inputs, dtype=dtype)
        return rnn_decoder(decoder_inputs, encoded, cell)


def tied_rnn_seq2seq(
    encoder_inputs,
    decoder_inputs,
    cell,
    loop_function=None,
    dtype=tf.float32,
    scope=None,
):
    """Encodes and decodes with one `cell` whose variables both share.

    Args:
      encoder_inputs: a list of [batch, input_size] tensors, one per step.
      decoder_inputs: the decoder's list, likewise.
      cell: the one cell of both.
      loop_function: as for `rnn_decoder`.
      dtype: the encoder's initial state's dtype.
      scope: the shared variable scope; "tied_rnn_seq2seq" by default, under
        "combined_tied_rnn_seq2seq".

    Returns:
      (outputs, state) of the decoder.
    """
    with _v1.variable_scope("combined_tied_rnn_seq2seq"):
        scope = scope or "tied_rnn_seq2seq"
        _, encoded = _v1.nn.static_rnn(cell, encoder_inputs, dtype=dtype, scope=scope)
        _v1.get_variable_scope().reuse_variables()
        return rnn_decoder(
            decoder_inputs, encoded, cell, loop_function=loop_function, scope=scope
        )


def sequence_loss_by_example(
    logits,
    targets,
    weights,
    average_across_timesteps=True,
    softmax_loss_function=None,
    name=None,
):
    """Each example's weighted cross-entropy summed over the steps.

    Args:
      logits: a list of [batch, classes] tensors, one per step.
      targets: a list of [batch] integer tensors (class ids), one per step.
      weights: a list of [batch] float tensors, one per step.
      average_across_timesteps: divide by the summed weights (plus 1e-12, so
        all-zero weights give 0, as TF 1.x).
      softmax_loss_function: `f(labels=, logits=)` in place of sparse softmax
        cross-entropy.
      name: the name scope; "sequence_loss_by_example" by default.

    Returns:
      A [batch] tensor: each example's log-perplexity.

    Raises:
      ValueError: when the three lists differ in length.
    """
    if not len(logits) == len(targets) == len(weights):
        raise ValueError(
            "sequence_loss_by_example: logits, targets and weights must be lists "
            f"of the same length (one tensor per step); got {len(logits)}, "
            f"{len(targets)} and {len(weights)}."
        )
    with tf.name_scope(name or "sequence_loss_by_example"):
        per_step = []
        for logit, target, weight in zip(logits, targets, weights, strict=True):
            if softmax_loss_function is None:
                loss = tf.nn.sparse_softmax_cross_entropy_with_logits(
                    labels=tf.reshape(target, [-1]), logits=logit
                )
            else:
                loss = softmax_loss_function(labels=target, logits=logit)
            per_step.append(loss * weight)
        total = tf.add_n(per_step)
        if average_across_timesteps:
            total /= tf.add_n(weights) + 1e-12
    return total


def sequence_loss(
    logits,
    targets,
    weights,
    average_across_timesteps=True,
    average_across_batch=True,
    softmax_loss_function=None,
    name=None,
):
    """`sequence_loss_by_example` summed over the batch (a scalar).

    Args:
      logits: as for `sequence_loss_by_example`.
      targets: likewise.
      weights: likewise.
      average_across_timesteps: likewise.
      average_across_batch: divide the sum by the batch size (the first
        dimension of `targets[0]`).
      softmax_loss_function: as for `sequence_loss_by_example`.
      name: the name scope; "sequence_loss" by default.

    Returns:
      A scalar tensor.
    """
    with tf.name_scope(name or "sequence_loss"):
        cost = tf.reduce_sum(
            sequence_loss_by_example(
                logits,
                targets,
                weights,
                average_across_timesteps=average_across_timesteps,
                softmax_loss_function=softmax_loss_function,
            )
        )
        if not average_across_batch:
            return cost
        return cost / tf.cast(tf.shape(targets[0])[0], cost.dtype)
