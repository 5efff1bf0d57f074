"""A tiny Estimator trained with tf.contrib.estimator.replicate_model_fn.

Runs on TF 1.x only (tf.contrib); after `emg-migrate --fix` it runs on TF 2.x.
Usage: python estimator_replicate_train.py MODEL_DIR
"""

import sys

import numpy as np
import tensorflow as tf
from tensorflow.contrib.estimator import TowerOptimizer, replicate_model_fn

tf1 = tf.compat.v1


def model_fn(features, labels, mode, params):
    w = tf1.get_variable("w", [4, 1], initializer=tf1.zeros_initializer())
    predictions = tf.matmul(features["x"], w)
    if mode == tf.estimator.ModeKeys.PREDICT:  # expect: estimator
        return tf.estimator.EstimatorSpec(mode, predictions={"y": predictions})  # expect: estimator
    loss = tf1.losses.mean_squared_error(labels, predictions)
    if mode == tf.estimator.ModeKeys.EVAL:  # expect: estimator
        return tf.estimator.EstimatorSpec(mode, loss=loss)  # expect: estimator
    optimizer = TowerOptimizer(  # expect: replicate-model-fn
        tf1.train.GradientDescentOptimizer(params["learning_rate"])
    )
    train_op = optimizer.minimize(loss, global_step=tf1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)  # expect: estimator


def input_fn():
    x = np.arange(32, dtype=np.float32).reshape(8, 4) / 32.0
    y = x.sum(axis=1, keepdims=True)
    return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(4)


def main(model_dir):
    config = tf.estimator.RunConfig(model_dir=model_dir, tf_random_seed=1)  # expect: estimator
    estimator = tf.estimator.Estimator(  # expect: estimator
        model_fn=replicate_model_fn(model_fn, tf1.losses.Reduction.MEAN),  # expect: replicate-model-fn
        config=config,
        params={"learning_rate": 0.5},
    )
    before = estimator.train(input_fn, steps=1).evaluate(input_fn, steps=2)["loss"]
    log = tf.estimator.LoggingTensorHook({"step": "global_step"}, every_n_iter=10)  # expect: estimator
    stop = tf.estimator.StopAtStepHook(num_steps=20)  # expect: estimator
    after = estimator.train(input_fn, hooks=[log, stop]).evaluate(input_fn, steps=2)["loss"]
    print("loss before %.4f after %.4f" % (before, after))
    print("improved", after < before)


if __name__ == "__main__":
    main(sys.argv[1])
