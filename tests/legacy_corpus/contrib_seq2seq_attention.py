"""An attention encoder-decoder trained and decoded with tf.contrib.seq2seq, as
the translation tutorials of 2017-2019 built it: an LSTM encoder; the decoder
cell in an AttentionWrapper (Luong's scaled attention, or Bahdanau's
normalized one with --bahdanau); TrainingHelper + BasicDecoder for the train
graph; a BeamSearchDecoder over the memory and encoder state tiled with
tile_batch for inference; one graph builder per mode. The task: reverse each
sequence.

After `emg-migrate --fix` the seq2seq names are emg.seq2seq's drop-ins and the
cells tf.compat.v1.nn.rnn_cell's (TF 2.16+ serves those from tf-keras).
Usage: python contrib_seq2seq_attention.py [--bahdanau]
"""

import sys

import numpy as np
import tensorflow as tf
from tensorflow.contrib import seq2seq

VOCAB, BATCH, LENGTH, SIZE, SOS, EOS, BEAM = 8, 16, 4, 32, 1, 2, 3


def attention_cell(memory, state, batch_size):
    if "--bahdanau" in sys.argv:
        mechanism = tf.contrib.seq2seq.BahdanauAttention(  # expect: contrib
            SIZE, memory, normalize=True)
    else:
        mechanism = tf.contrib.seq2seq.LuongAttention(  # expect: contrib
            SIZE, memory, scale=True)
    lstm = tf.contrib.rnn.BasicLSTMCell(SIZE)  # expect: contrib
    cell = tf.contrib.seq2seq.AttentionWrapper(  # expect: contrib
        lstm, mechanism, attention_layer_size=SIZE, alignment_history=True,
        name="attention")
    return cell, cell.zero_state(batch_size, tf.float32).clone(cell_state=state)


def build(mode, sources, targets):
    source_embedding = tf.get_variable("source_embedding", [VOCAB, SIZE])
    target_embedding = tf.get_variable("target_embedding", [VOCAB, SIZE])
    encoder = tf.contrib.rnn.BasicLSTMCell(SIZE)  # expect: contrib
    memory, state = tf.nn.dynamic_rnn(
        encoder, tf.nn.embedding_lookup(source_embedding, sources), dtype=tf.float32)
    projection = tf.layers.Dense(VOCAB, use_bias=False, name="output_projection")  # expect: layers
    with tf.variable_scope("decoder") as scope:
        if mode == "train":
            cell, initial = attention_cell(memory, state, BATCH)
            inputs = tf.nn.embedding_lookup(target_embedding, targets[:, :-1])
            helper = seq2seq.TrainingHelper(inputs, tf.fill([BATCH], LENGTH + 1))  # expect: contrib
            decoder = seq2seq.BasicDecoder(cell, helper, initial, output_layer=projection)  # expect: contrib
            outputs, _, _ = seq2seq.dynamic_decode(decoder, scope=scope)  # expect: contrib
            return tf.losses.sparse_softmax_cross_entropy(targets[:, 1:], outputs.rnn_output)
        tiled_memory = seq2seq.tile_batch(memory, BEAM)  # expect: contrib
        tiled_state = seq2seq.tile_batch(state, BEAM)  # expect: contrib
        cell, initial = attention_cell(tiled_memory, tiled_state, BATCH * BEAM)
        decoder = seq2seq.BeamSearchDecoder(  # expect: contrib
            cell, target_embedding, tf.fill([BATCH], SOS), EOS, initial, BEAM,
            output_layer=projection, length_penalty_weight=0.6)
        outputs, state, _ = seq2seq.dynamic_decode(  # expect: contrib
            decoder, maximum_iterations=LENGTH + 2, scope=scope)
        alignments = state.cell_state.alignment_history  # [time, batch * beam, LENGTH]
        return outputs.predicted_ids, outputs.beam_search_decoder_output.scores, alignments


def main():
    rng = np.random.RandomState(0)
    sources = rng.randint(3, VOCAB, size=(BATCH, LENGTH)).astype(np.int32)
    targets = np.concatenate(
        [np.full((BATCH, 1), SOS), sources[:, ::-1], np.full((BATCH, 1), EOS)], 1
    ).astype(np.int32)
    with tf.Graph().as_default():
        tf.set_random_seed(0)
        with tf.variable_scope("model"):
            loss = build("train", tf.constant(sources), tf.constant(targets))
        with tf.variable_scope("model", reuse=True):
            ids, scores, alignments = build("infer", tf.constant(sources), None)
        names = sorted(v.op.name for v in tf.global_variables())
        train = tf.train.AdamOptimizer(0.02).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            first = sess.run(loss)
            for _ in range(150):
                sess.run(train)
            print("loss", round(float(first), 3), round(float(sess.run(loss)), 3))
            ids, scores, alignments = sess.run([ids, scores, alignments])
        best = ids[:, :LENGTH + 1, 0]
        print("reversed", int((best == targets[:, 1:]).all(1).sum()), "of", BATCH)
        print("beams", list(ids.shape), "sorted", bool((np.diff(scores[:, -1], axis=1) <= 0).all()))
        print("alignments", list(alignments.shape))
        print("variables", " ".join(n for n in names if "attention" in n or "memory" in n))


if __name__ == "__main__":
    main()
