"""An encoder-decoder trained and decoded with tf.contrib.seq2seq, as the
translation tutorials of 2017-2019 built it: TrainingHelper + BasicDecoder +
dynamic_decode for the train graph, GreedyEmbeddingHelper for inference
(tile_batch for the copies a beam would take), one graph builder per mode.

After `emg-migrate --fix` the seq2seq names are emg.seq2seq's drop-ins and the
cells tf.compat.v1.nn.rnn_cell's (TF 2.16+ serves those from tf-keras).
Usage: python contrib_seq2seq_decoder.py
"""

import numpy as np
import tensorflow as tf
from tensorflow.contrib import seq2seq

VOCAB, BATCH, STEPS, SIZE, SOS, EOS = 6, 8, 4, 16, 1, 2


def build(mode, targets):
    embedding = tf.get_variable("embedding", [VOCAB, SIZE])
    cell = tf.contrib.rnn.BasicLSTMCell(SIZE)  # expect: contrib
    projection = tf.layers.Dense(VOCAB, use_bias=False, name="output_projection")  # expect: layers
    state = cell.zero_state(BATCH, tf.float32)
    if mode == "train":
        inputs = tf.nn.embedding_lookup(embedding, targets[:, :-1])
        helper = seq2seq.TrainingHelper(inputs, tf.fill([BATCH], STEPS))  # expect: contrib
        decoder = seq2seq.BasicDecoder(cell, helper, state, output_layer=projection)  # expect: contrib
        outputs, _, _ = seq2seq.dynamic_decode(decoder, scope="decoder")  # expect: contrib
        return tf.losses.sparse_softmax_cross_entropy(targets[:, 1:], outputs.rnn_output)
    helper = tf.contrib.seq2seq.GreedyEmbeddingHelper(  # expect: contrib
        embedding, tf.fill([BATCH], SOS), EOS)
    decoder = tf.contrib.seq2seq.BasicDecoder(  # expect: contrib
        cell, helper, state, output_layer=projection)
    outputs, _, lengths = tf.contrib.seq2seq.dynamic_decode(  # expect: contrib
        decoder, maximum_iterations=STEPS + 1, scope="decoder")
    return outputs.sample_id, lengths


def main():
    # Each sequence counts up from SOS's successor and ends with EOS.
    targets = np.tile([[SOS, 3, 4, 5, EOS]], (BATCH, 1)).astype(np.int32)
    with tf.Graph().as_default():
        tf.set_random_seed(0)
        with tf.variable_scope("model"):
            loss = build("train", tf.constant(targets))
        with tf.variable_scope("model", reuse=True):
            ids, lengths = build("infer", None)
        tiled = seq2seq.tile_batch(tf.constant([[1.0], [2.0]]), 2)  # expect: contrib
        train = tf.train.AdamOptimizer(0.05).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            first = sess.run(loss)
            for _ in range(150):
                sess.run(train)
            print("loss", round(float(first), 3), round(float(sess.run(loss)), 3))
            print("decoded", sess.run(ids)[0].tolist(), sess.run(lengths)[0])
            print("tiled", sess.run(tiled).ravel().tolist())


if __name__ == "__main__":
    main()
