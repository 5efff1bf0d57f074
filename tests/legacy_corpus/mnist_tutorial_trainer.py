"""A TF 1.x trainer on the MNIST tutorial's model module from tensorflow.examples.

The era's reading_data examples imported `mnist` (inference, loss, training)
from `tensorflow.examples.tutorials.mnist`, which no TF 2 package ships.
Generated images, a tf.data pipeline, three training steps; prints the loss.
Usage: python mnist_tutorial_trainer.py WORK_DIR
"""

import sys

import numpy as np
import tensorflow as tf
from tensorflow.examples.tutorials.mnist import mnist


def inputs(batch_size):
    rng = np.random.RandomState(0)
    images = rng.rand(4 * batch_size, mnist.IMAGE_PIXELS).astype(np.float32)
    labels = rng.randint(0, mnist.NUM_CLASSES, 4 * batch_size).astype(np.int32)
    dataset = tf.data.Dataset.from_tensor_slices((images, labels))
    dataset = dataset.repeat().batch(batch_size)
    return dataset.make_one_shot_iterator().get_next()


def main(_):
    tf.set_random_seed(0)
    image_batch, label_batch = inputs(16)
    logits = mnist.inference(image_batch, 8, 4)
    loss = mnist.loss(logits, label_batch)
    train_op = mnist.training(loss, 0.1)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(3):
            _, value = sess.run([train_op, loss])
            print("step", step, "loss", round(float(value), 3))


if __name__ == "__main__":
    main(sys.argv[1:])
