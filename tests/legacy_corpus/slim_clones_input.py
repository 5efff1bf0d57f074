"""slim's multi-GPU framework: a data provider, a prefetch queue, model_deploy clones."""

import tensorflow.compat.v1 as tf
from deployment import model_deploy
from tensorflow.contrib import slim


def clone_fn(batch_queue):
    images, labels = batch_queue.dequeue()
    net = slim.conv2d(images, 8, [3, 3], normalizer_fn=slim.batch_norm)  # expect: contrib-slim, contrib-slim  # port: contrib-slim, contrib-slim
    logits = slim.fully_connected(slim.flatten(net), 10)  # expect: contrib-slim, contrib-slim
    slim.losses.softmax_cross_entropy(logits, labels)  # expect: contrib-slim
    return logits


def train(dataset, num_clones):
    config = model_deploy.DeploymentConfig(num_clones=num_clones)  # port: slim-clones
    provider = slim.dataset_data_provider.DatasetDataProvider(dataset)  # expect: contrib-slim  # port: contrib-slim
    image, label = provider.get(["image", "label"])
    images, labels = tf.train.batch([image, label], batch_size=32)  # expect: queue-batcher  # port: queue-batcher
    batch_queue = slim.prefetch_queue.prefetch_queue([images, labels], capacity=2)  # expect: slim-prefetch-queue  # port: slim-prefetch-queue
    clones = model_deploy.create_clones(config, clone_fn, [batch_queue])  # port: slim-clones
    optimizer = tf.train.GradientDescentOptimizer(0.1)
    total_loss, grads = model_deploy.optimize_clones(clones, optimizer)  # port: slim-clones
    return optimizer.apply_gradients(grads)
