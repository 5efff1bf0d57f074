"""An Estimator trained on several GPUs with tf.contrib.estimator.replicate_model_fn."""

import numpy as np
import tensorflow as tf
from tensorflow.contrib.estimator import TowerOptimizer, replicate_model_fn

slim = tf.contrib.slim  # expect: contrib-slim


def model_fn(features, labels, mode, params):
    w = tf.get_variable("w", [4, 1])
    predictions = tf.matmul(features["x"], w)
    if mode == tf.estimator.ModeKeys.PREDICT:  # expect: estimator
        return tf.estimator.EstimatorSpec(mode, predictions={"y": predictions})  # expect: estimator
    loss = tf.losses.mean_squared_error(labels, predictions)
    if mode == tf.estimator.ModeKeys.EVAL:  # expect: estimator
        return tf.estimator.EstimatorSpec(mode, loss=loss)  # expect: estimator
    optimizer = TowerOptimizer(  # expect: replicate-model-fn
        tf.train.GradientDescentOptimizer(params["learning_rate"])
    )
    train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)  # expect: estimator


def input_fn():
    x = np.random.rand(64, 4).astype(np.float32)
    y = x.sum(axis=1, keepdims=True)
    dataset = tf.data.Dataset.from_tensor_slices(({"x": x}, y))
    return dataset.repeat(2).batch(8)


def main(model_dir):
    config = tf.estimator.RunConfig(model_dir=model_dir, save_summary_steps=5)  # expect: estimator
    estimator = tf.estimator.Estimator(  # expect: estimator
        model_fn=replicate_model_fn(  # expect: replicate-model-fn
            model_fn, loss_reduction=tf.losses.Reduction.SUM
        ),
        config=config,
        params={"learning_rate": 0.1},
    )
    estimator.train(input_fn, steps=10)
    numpy_fn = tf.estimator.inputs.numpy_input_fn(  # expect: estimator
        {"x": np.ones([8, 4], np.float32)}, shuffle=False
    )
    print(list(estimator.predict(numpy_fn)))
    hook = tf.contrib.estimator.stop_if_no_decrease_hook(estimator, "loss", 100)  # expect: contrib
    return hook
