"""An Estimator with contrib-era tf.data arguments, contrib batch_norm and RunConfig.

Runs on TF 1.x only (tf.contrib); after `emg-migrate --fix` it runs on TF 2.x
(with tf-keras and TF_USE_LEGACY_KERAS=1 for tf.compat.v1.layers).
Usage: python contrib_era_estimator.py MODEL_DIR
"""

import sys

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1


def model_fn(features, labels, mode, params):
    training = mode == tf.estimator.ModeKeys.TRAIN  # expect: estimator
    x = features["x"]
    net = tf.contrib.layers.batch_norm(x, decay=0.9, is_training=training, scope="bn")  # expect: contrib-batch-norm
    net = tf.contrib.layers.batch_norm(net, 0.9, True, True, activation_fn=tf.nn.relu)  # expect: contrib-batch-norm
    w = tf1.get_variable("w", [4, 1], initializer=tf1.zeros_initializer())
    predictions = tf.matmul(net, w)
    loss = tf1.losses.mean_squared_error(labels, predictions)
    if mode == tf.estimator.ModeKeys.EVAL:  # expect: estimator
        return tf.estimator.EstimatorSpec(mode, loss=loss)  # expect: estimator
    optimizer = tf1.train.GradientDescentOptimizer(params["learning_rate"])
    update_ops = tf1.get_collection(tf1.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(update_ops):
        train_op = optimizer.minimize(loss, global_step=tf1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)  # expect: estimator


def _scale(x, y):
    return {"x": x / 32.0}, y / 32.0


def input_fn():
    x = np.arange(64, dtype=np.float32).reshape(16, 4)
    y = x.sum(axis=1, keepdims=True)
    dataset = tf.data.Dataset.from_tensor_slices((x, y))
    dataset = dataset.map(_scale, num_threads=2, output_buffer_size=8)  # expect: dataset-map-args
    return dataset.repeat().batch(4)


def main(model_dir):
    config = tf.contrib.learn.RunConfig(model_dir=model_dir, tf_random_seed=1)  # expect: contrib-learn
    estimator = tf.estimator.Estimator(  # expect: estimator
        model_fn=model_fn, config=config, params={"learning_rate": 0.1}
    )
    before = estimator.train(input_fn, steps=1).evaluate(input_fn, steps=2)["loss"]
    after = estimator.train(input_fn, steps=30).evaluate(input_fn, steps=2)["loss"]
    names = estimator.get_variable_names()
    print("variables", "bn/moving_mean" in names, "bn/beta" in names)
    print("loss before %.4f after %.4f" % (before, after))
    print("improved", after < before)


if __name__ == "__main__":
    main(sys.argv[1])
