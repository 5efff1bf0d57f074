"""A small convnet of tf.contrib.layers' core layers, in a TF 1.x session.

conv2d (relu, 'SAME' by default), max_pool2d (stride 2 by default), dropout
(keep_prob) and fully_connected (relu unless activation_fn=None); after
`emg-migrate --fix` each is tf_slim's copy, with contrib's arguments,
defaults and variable names.
Usage: python contrib_core_layers.py
"""

import numpy as np
import tensorflow as tf


def main():
    rng = np.random.RandomState(0)
    labels = rng.randint(0, 2, 64)
    images = rng.uniform(0, 0.2, (64, 8, 8, 1)).astype(np.float32)
    images[labels == 1, :4] += 0.8
    with tf.Graph().as_default():
        tf.set_random_seed(0)
        x = tf.placeholder(tf.float32, [None, 8, 8, 1])
        y = tf.placeholder(tf.int64, [None])
        training = tf.placeholder_with_default(False, [])
        net = tf.contrib.layers.conv2d(x, 4, [3, 3], scope="conv1")  # expect: contrib
        net = tf.contrib.layers.max_pool2d(net, [2, 2])  # expect: contrib
        net = tf.contrib.layers.flatten(net)  # expect: contrib
        net = tf.contrib.layers.dropout(  # expect: contrib
            net, keep_prob=0.9, is_training=training
        )
        logits = tf.contrib.layers.fully_connected(  # expect: contrib
            net, 2, activation_fn=None, scope="logits"
        )
        loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
        train_op = tf.train.AdamOptimizer(0.05).minimize(loss)
        names = sorted(v.op.name for v in tf.trainable_variables())
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            feed = {x: images, y: labels, training: True}
            for _ in range(30):
                _, value = sess.run([train_op, loss], feed)
            print("variables", " ".join(names))
            print("pooled", net.shape.as_list())
            print("final loss below 0.3", bool(value < 0.3))


if __name__ == "__main__":
    main()
