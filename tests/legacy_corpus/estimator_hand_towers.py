"""An Estimator whose model_fn builds its towers by hand (the cifar10_estimator shape).

The device string is built in the loop, each tower takes `gradients` of its
own loss with tf.gradients, the averaging is written inline and the input_fn
hands the model_fn one shard per tower. Trains three steps on one tower.
Usage: python estimator_hand_towers.py MODEL_DIR
"""

import itertools
import sys

import numpy as np
import tensorflow as tf

NUM_TOWERS = 1


def model_fn(features, labels, mode, params):
    tower_features = features
    tower_labels = labels
    tower_losses = []
    tower_gradvars = []
    for i in range(params["num_towers"]):  # expect: tower-loop
        worker_device = "/{}:{}".format("cpu", i)
        with tf.variable_scope("model", reuse=bool(i != 0)):
            with tf.device(worker_device):
                w = tf.get_variable("w", [3, 2], initializer=tf.zeros_initializer())
                logits = tf.matmul(tower_features[i], w)
                loss = tf.losses.sparse_softmax_cross_entropy(tower_labels[i], logits)
                variables = tf.trainable_variables()
                grads = tf.gradients(loss, variables)
                tower_losses.append(loss)
                tower_gradvars.append(zip(grads, variables))
    gradvars = []
    all_grads = {}
    for grad, var in itertools.chain(*tower_gradvars):  # expect: tower-loop
        all_grads.setdefault(var, []).append(grad)
    for var, grads in all_grads.items():
        gradvars.append((tf.multiply(tf.add_n(grads), 1.0 / len(grads)), var))
    optimizer = tf.train.GradientDescentOptimizer(0.5)
    step = tf.train.get_global_step()
    train_op = optimizer.apply_gradients(gradvars, global_step=step)
    loss = tf.reduce_mean(tower_losses)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)  # expect: estimator


def input_fn(num_shards):
    x = np.random.RandomState(0).randn(8, 3).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int32)
    dataset = tf.data.Dataset.from_tensors((x, y)).repeat()
    images, labels = dataset.make_one_shot_iterator().get_next()
    return tf.split(images, num_shards), tf.split(labels, num_shards)


def main(model_dir):
    estimator = tf.estimator.Estimator(  # expect: estimator
        model_fn, model_dir=model_dir, params={"num_towers": NUM_TOWERS}
    )
    estimator.train(lambda: input_fn(NUM_TOWERS), steps=3)
    print("global_step", estimator.get_variable_value("global_step"))
    print("w", np.round(estimator.get_variable_value("model/w"), 4).tolist())


if __name__ == "__main__":
    main(sys.argv[1])
