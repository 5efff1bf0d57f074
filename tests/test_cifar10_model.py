"""Tests for the CIFAR ResNet: paper parameter counts, batch norm, data formats."""

import numpy as np
import pytest
import tensorflow as tf

from cifar10 import model

PAPER = {20: 0.27e6, 32: 0.46e6, 44: 0.66e6, 56: 0.85e6, 110: 1.7e6}


def _build(depth=20, training=False, data_format="channels_last", batch=2, classes=10):
    graph = tf.Graph()
    with graph.as_default():
        images = tf.compat.v1.placeholder(tf.float32, [batch, 32, 32, 3])
        logits = model.resnet(images, depth, classes, training, data_format)
    return graph, images, logits


def _count(graph):
    with graph.as_default():
        return sum(int(np.prod(v.shape)) for v in tf.compat.v1.trainable_variables())


@pytest.mark.parametrize(
    "depth",
    [
        pytest.param(d, marks=[pytest.mark.slow] if d > 56 else [])
        for d in sorted(PAPER)
    ],
    ids=[f"resnet{d}" for d in sorted(PAPER)],
)
def test_parameter_count_matches_paper(depth):
    count = _count(_build(depth)[0])
    assert abs(count - PAPER[depth]) / PAPER[depth] < 0.02, count


def test_logits_shape():
    graph, images, logits = _build(classes=100, batch=3)
    assert logits.shape.as_list() == [3, 100]
    with tf.compat.v1.Session(graph=graph) as sess:
        sess.run(tf.compat.v1.global_variables_initializer())
        assert sess.run(logits, {images: np.zeros([3, 32, 32, 3])}).shape == (3, 100)


@pytest.mark.parametrize(
    "training, updates", [(True, 2 * 19), (False, 0)], ids=["train", "eval"]
)
def test_update_ops(training, updates):
    graph = _build(training=training)[0]
    assert len(graph.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)) == updates


def test_moving_averages_update_through_update_ops():
    graph, images, logits = _build(training=True)
    with graph.as_default():
        mean = [
            v for v in tf.compat.v1.global_variables() if "bn0/moving_mean" in v.name
        ][0]
        updates = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)
        init = tf.compat.v1.global_variables_initializer()
    with tf.compat.v1.Session(graph=graph) as sess:
        sess.run(init)
        feed = {images: np.random.default_rng(0).normal(size=[2, 32, 32, 3])}
        sess.run(logits, feed)
        assert not sess.run(mean).any()  # Only the update ops move it.
        sess.run(updates, feed)
        assert sess.run(mean).any()


def test_channels_first_has_the_same_variables():
    first, last = _build(data_format="channels_first")[0], _build()[0]
    shapes = lambda g: [
        (v.name, v.shape.as_list()) for v in g.get_collection("variables")
    ]  # noqa: E731
    assert shapes(first) == shapes(last)


def test_towers_share_variables():
    graph = tf.Graph()
    with graph.as_default():
        images = tf.zeros([2, 32, 32, 3])
        model.resnet(images, 20)
        count = len(tf.compat.v1.global_variables())
        with tf.compat.v1.variable_scope(tf.compat.v1.get_variable_scope(), reuse=True):
            model.resnet(images, 20)
        assert len(tf.compat.v1.global_variables()) == count


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"depth": 18}, r"`resnet_depth` must be one of .*received 18"),
        ({"data_format": "NHWC"}, r"`data_format` must be one of .*'NHWC'"),
        ({"num_classes": 1}, r"`num_classes` must be an int >= 2; received 1"),
    ],
    ids=["depth", "data-format", "classes"],
)
def test_bad_arguments(kwargs, match):
    with tf.Graph().as_default(), pytest.raises(ValueError, match=match):
        model.resnet(tf.zeros([1, 32, 32, 3]), **kwargs)
