"""A TF 1.x session trainer over a reinitializable iterator.

It sets an environment variable between its imports, reads the structure of
a dataset another module made (`train.output_types`, `train.output_shapes`)
and switches the iterator between the training and the test set each epoch.
Usage: python trainer.py
"""

import os

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"

import mnist_like
import tensorflow as tf  # expect: compat-v1

train, test = mnist_like.get_datasets(16)
iterator = tf.data.Iterator.from_structure(
    train.output_types,  # expect: dataset-property
    train.output_shapes,  # expect: dataset-property
)
images, labels = iterator.get_next()
train_init = iterator.make_initializer(train)
test_init = iterator.make_initializer(test)

w = tf.get_variable("w", [8, 3], initializer=tf.zeros_initializer())
logits = tf.matmul(images, w)
loss = tf.reduce_mean(
    tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
)
train_op = tf.train.AdamOptimizer(0.1).minimize(loss)
correct = tf.reduce_sum(
    tf.cast(tf.equal(tf.argmax(logits, 1), tf.argmax(labels, 1)), tf.float32)
)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(3):
        sess.run(train_init)
        total, batches = 0.0, 0
        try:
            while True:
                _, value = sess.run([train_op, loss])
                total, batches = total + value, batches + 1
        except tf.errors.OutOfRangeError:
            pass
        print("epoch", epoch, "loss", round(total / batches, 4))
    sess.run(test_init)
    right = 0.0
    try:
        while True:
            right += sess.run(correct)
    except tf.errors.OutOfRangeError:
        pass
    print("accuracy", right / 32)
