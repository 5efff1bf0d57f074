"""A character language model unrolled with tf.contrib.legacy_seq2seq, as the
char-rnn scripts of 2016-2018 built it: rnn_decoder over the per-step inputs
(a loop_function for sampling), sequence_loss_by_example for training and
sequence_loss for the report.

After `emg-migrate --fix` the three are emg.legacy_seq2seq's drop-ins and the
cells tf.compat.v1.nn.rnn_cell's (TF 2.16+ serves those from tf-keras).
Usage: TF_USE_LEGACY_KERAS=1 python contrib_legacy_seq2seq.py
"""

import numpy as np
import tensorflow as tf
from tensorflow.contrib import legacy_seq2seq, rnn

VOCAB, BATCH, STEPS, SIZE = 7, 4, 5, 8


def model(training):
    batch, steps = (BATCH, STEPS) if training else (1, 1)
    cell = rnn.MultiRNNCell([rnn.LSTMCell(SIZE) for _ in range(2)])  # expect: contrib, contrib
    ids = tf.placeholder(tf.int32, [batch, steps])
    targets = tf.placeholder(tf.int32, [batch, steps])
    initial = cell.zero_state(batch, tf.float32)
    with tf.variable_scope("rnnlm"):
        w = tf.get_variable("softmax_w", [SIZE, VOCAB])
        b = tf.get_variable("softmax_b", [VOCAB])
    embedding = tf.get_variable("embedding", [VOCAB, SIZE])
    inputs = tf.unstack(tf.nn.embedding_lookup(embedding, ids), axis=1)

    def loop(prev, _):
        symbol = tf.stop_gradient(tf.argmax(tf.matmul(prev, w) + b, 1))
        return tf.nn.embedding_lookup(embedding, symbol)

    outputs, last = legacy_seq2seq.rnn_decoder(  # expect: legacy-seq2seq
        inputs, initial, cell, loop_function=None if training else loop, scope="rnnlm"
    )
    logits = tf.matmul(tf.reshape(tf.concat(outputs, 1), [-1, SIZE]), w) + b
    flat = [tf.reshape(targets, [-1])]
    ones = [tf.ones([batch * steps])]
    loss = legacy_seq2seq.sequence_loss_by_example([logits], flat, ones)  # expect: legacy-seq2seq
    mean = tf.contrib.legacy_seq2seq.sequence_loss([logits], flat, ones)  # expect: legacy-seq2seq
    return ids, targets, tf.reduce_sum(loss) / batch / steps, mean, last


def main():
    rng = np.random.RandomState(0)
    text = np.tile(np.arange(VOCAB), 20)
    with tf.Graph().as_default():
        ids, targets, cost, mean, _ = model(training=True)
        train = tf.train.AdamOptimizer(0.05).minimize(cost)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for step in range(30):
                start = rng.randint(0, len(text) - STEPS - 1, BATCH)
                x = np.stack([text[s : s + STEPS] for s in start])
                y = np.stack([text[s + 1 : s + STEPS + 1] for s in start])
                c, m, _ = sess.run([cost, mean, train], {ids: x, targets: y})
                if step in (0, 29):
                    print(f"step {step} loss {c:.4f} mean {m:.4f}")
            names = sorted(v.op.name for v in tf.trainable_variables())
            print("variables", " ".join(names))


if __name__ == "__main__":
    main()
