"""The towers of a two-file program: one per GPU over the count its flags
give (`self.num_gpus = args.num_gpus`), built after main.py made its session."""

import tensorflow as tf  # expect: compat-v1


class Model(object):
    def __init__(self, sess, args):
        self.sess = sess
        self.num_gpus = args.num_gpus

    def build(self):
        losses = []
        for i in range(self.num_gpus):  # expect: tower-loop
            with tf.device("/gpu:%d" % i):
                with tf.variable_scope(tf.get_variable_scope(), reuse=(i > 0)):
                    w = tf.get_variable("w", initializer=tf.constant(2.0))
                    x = tf.constant([1.0, 2.0, 3.0]) * (i + 1)
                    losses.append(tf.reduce_mean(tf.square(w * x - x), name="loss"))
        self.loss = tf.reduce_mean(losses)
        self.train = tf.train.GradientDescentOptimizer(0.01).minimize(
            self.loss, colocate_gradients_with_ops=True
        )
