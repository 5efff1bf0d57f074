"""The Estimator model_fn: ResNet, loss with weight decay, the paper's LR schedule."""

from __future__ import annotations

import tensorflow as tf

from cifar10 import augment, model, progress
from cifar10 import config as config_lib
from estimator_multigpu import estimator, towers

ModeKeys = estimator.ModeKeys
SCHEDULE = ((0.5, 0.1), (0.75, 0.01))  # (fraction of training, LR factor) steps.


def learning_rate(config: config_lib.TrainConfig, global_step: tf.Tensor) -> tf.Tensor:
    """The paper's schedule (divide by 10 at 50% and 75% of training), scaled.

    He et al. train 64k steps at batch 128 with LR 0.1, divided by 10 at 32k
    and 48k; here the boundaries are the same fractions of `train_steps` and
    the LR scales linearly with `global_batch_size / 128`.
    """
    base = config.scaled_learning_rate
    boundaries = [int(config.train_steps * f) for f, _ in SCHEDULE]
    values = [base] + [base * factor for _, factor in SCHEDULE]
    return tf.compat.v1.train.piecewise_constant(global_step, boundaries, values)


def _weight_decay(config: config_lib.TrainConfig) -> tf.Tensor:
    kernels = [v for v in tf.compat.v1.trainable_variables() if "kernel" in v.name]
    return config.weight_decay * tf.add_n([tf.nn.l2_loss(k) for k in kernels])


def _optimizer(config, rate, run_config):
    """Momentum SGD; synchronous over a cluster's workers with `sync_replicas`."""
    optimizer = tf.compat.v1.train.MomentumOptimizer(rate, config.momentum)
    if config.sync_replicas and run_config is not None:
        optimizer = estimator.sync_replicas_optimizer(optimizer, run_config)
    return towers.TowerOptimizer(optimizer)


def _train_op(config, loss, run_config=None):
    global_step = tf.compat.v1.train.get_or_create_global_step()
    rate = learning_rate(config, global_step)
    tf.compat.v1.summary.scalar("learning_rate", rate)
    optimizer = _optimizer(config, rate, run_config)
    updates = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(updates):
        return optimizer.minimize(loss, global_step), rate


def make_model_fn(config: config_lib.TrainConfig):
    """Returns `model_fn(features, labels, mode, config)` for one device's batch.

    `features`: float32 images `[batch, 32, 32, 3]`, normalised per channel
    (uint8 images are normalised here); `labels`: int32 `[batch]`. Wrap it in
    `emg.replicate_model_fn` for several devices. `config` is the Estimator's
    `RunConfig`: with `sync_replicas` on a cluster the optimizer is wrapped in
    `emg.estimator.sync_replicas_optimizer` (before `TowerOptimizer`).
    """

    train_config = config

    def model_fn(features, labels, mode, config=None):
        return _model_fn(features, labels, mode, train_config, config)

    return model_fn


def _model_fn(features, labels, mode, config, run_config):
    """The model_fn of `make_model_fn`, with its `TrainConfig` and `RunConfig`."""
    images = features if features.dtype == tf.float32 else augment.normalize(features)
    training = mode == ModeKeys.TRAIN
    logits = model.resnet(
        images,
        config.resnet_depth,
        config.num_classes,
        training,
        config.data_format,
    )
    classes = tf.argmax(logits, axis=1, output_type=tf.int32)
    if mode == ModeKeys.PREDICT:
        predictions = {"classes": classes, "probabilities": tf.nn.softmax(logits)}
        return estimator.EstimatorSpec(mode, predictions=predictions)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    loss += _weight_decay(config)
    accuracy = tf.compat.v1.metrics.accuracy(labels, classes)
    if not training:
        metrics = {"accuracy": accuracy}
        return estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops=metrics)
    train_op, rate = _train_op(config, loss, run_config)
    tf.compat.v1.summary.scalar("train_accuracy", accuracy[1])
    hooks = [
        progress.ProgressHook(
            loss,
            rate,
            config.global_batch_size,
            config.train_steps,
            config.log_every_steps,
        )
    ]
    return estimator.EstimatorSpec(
        mode, loss=loss, train_op=train_op, training_hooks=hooks
    )
