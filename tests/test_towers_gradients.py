"""One N-tower training step equals the single-device step on the same batch."""

import functools

import numpy as np
import pytest
import tensorflow as tf
from conftest import ALL_DEVICES

import estimator_multigpu as emg
from estimator_multigpu.estimator._spec import EstimatorSpec, ModeKeys

_VOCAB, _EMBED, _DENSE = 10, 4, 3


def _features(batch_size, seed=0):
    rng = np.random.RandomState(seed)
    features = {
        "id": rng.randint(0, _VOCAB, batch_size).astype(np.int64),
        "x": rng.randn(batch_size, _DENSE).astype(np.float32),
    }
    return features, rng.randint(0, 2, batch_size).astype(np.int64)


def _logits(features):
    """Embedding lookup (sparse gradients), dense layer with L2, an UPDATE_OP."""
    init = tf.compat.v1.random_normal_initializer
    emb = tf.compat.v1.get_variable("emb", [_VOCAB, _EMBED], initializer=init(seed=1))
    l2 = lambda w: 0.05 * tf.nn.l2_loss(w)  # noqa: E731
    with tf.compat.v1.variable_scope("dense"):
        w = tf.compat.v1.get_variable(
            "kernel", [_EMBED + _DENSE, 2], initializer=init(seed=2), regularizer=l2
        )
        b = tf.compat.v1.get_variable("bias", [2], initializer=tf.zeros_initializer())
    # An update op whose forward pass does not depend on batch statistics.
    average = tf.compat.v1.get_variable(
        "kernel_average", w.shape, initializer=tf.zeros_initializer(), trainable=False
    )
    tf.compat.v1.add_to_collection(
        tf.compat.v1.GraphKeys.UPDATE_OPS,
        tf.compat.v1.assign(average, 0.9 * average + 0.1 * w),
    )
    x = tf.concat([tf.nn.embedding_lookup(emb, features["id"]), features["x"]], 1)
    return tf.matmul(x, w) + b


def _train_spec(mode, loss, optimizer=None, **tower_options):
    optimizer = optimizer or tf.compat.v1.train.GradientDescentOptimizer(0.5)
    optimizer = emg.TowerOptimizer(optimizer, **tower_options)
    step = tf.compat.v1.train.get_or_create_global_step()
    # After the loss: with reference variables (v1 behaviour) the L2 term,
    # which no gradient needs, could otherwise read the updated weights.
    with tf.control_dependencies(_update_ops_and(loss)):
        train_op = optimizer.minimize(loss, step)
    return EstimatorSpec(mode, loss=loss, train_op=train_op)


def _update_ops_and(loss):
    """What a single-device update waits for: UPDATE_OPS and the loss."""
    return tf.compat.v1.get_collection("update_ops") + [loss]


def mean_model_fn(features, labels, mode, params):
    logits = _logits(features)
    tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    loss = tf.compat.v1.losses.get_total_loss()  # This tower's loss + L2.
    return _train_spec(mode, loss, **params)


def nan_prone_model_fn(features, labels, mode, params):
    """tf.reduce_mean of an empty shard is NaN: the tower must be masked."""
    logits = _logits(features)
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    loss = tf.reduce_mean(xent) + tf.compat.v1.losses.get_regularization_loss()
    return _train_spec(mode, loss, **params)


def sum_model_fn(features, labels, mode, params):
    logits = _logits(features)
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    loss = tf.reduce_sum(xent) + tf.compat.v1.losses.get_regularization_loss()
    return _train_spec(
        mode, loss, optimizer=tf.compat.v1.train.GradientDescentOptimizer(0.05)
    )


def two_optimizers_model_fn(features, labels, mode, params):
    logits = _logits(features)
    tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    loss = tf.compat.v1.losses.get_total_loss()
    dense = tf.compat.v1.trainable_variables("dense")
    emb = tf.compat.v1.trainable_variables("emb")
    adam = emg.TowerOptimizer(tf.compat.v1.train.AdamOptimizer(0.1))
    momentum = emg.TowerOptimizer(tf.compat.v1.train.MomentumOptimizer(0.5, 0.9))
    step = tf.compat.v1.train.get_or_create_global_step()
    dense_pairs = adam.compute_gradients(loss, var_list=dense)
    emb_pairs = momentum.compute_gradients(loss, var_list=emb)
    # Both updates after all gradients: with reference variables (v1
    # behaviour) one device's step would otherwise race.
    grads = [g.op for g, _ in dense_pairs + emb_pairs]
    with tf.control_dependencies(_update_ops_and(loss) + grads):
        train_op = tf.group(
            adam.apply_gradients(dense_pairs, step),
            momentum.apply_gradients(emb_pairs),
        )
    return EstimatorSpec(mode, loss=loss, train_op=train_op)


def _one_step(model_fn, devices, batch_size, static, params=None, **options):
    """Runs one training step; returns (loss, {variable: change}, graph names)."""
    features, labels = _features(batch_size)
    with tf.Graph().as_default():
        tf.compat.v1.set_random_seed(0)
        shape = lambda v: ([batch_size] if static else [None]) + list(v.shape[1:])  # noqa: E731
        inputs = {
            k: tf.compat.v1.placeholder_with_default(v, shape(v))
            for k, v in features.items()
        }
        labels = tf.compat.v1.placeholder_with_default(labels, shape(labels))
        replicated = emg.replicate_model_fn(model_fn, devices=devices, **options)
        spec = replicated(inputs, labels, ModeKeys.TRAIN, params or {})
        variables = tf.compat.v1.global_variables()
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            before = session.run(variables)
            loss, _ = session.run([spec.loss, spec.train_op])
            after = session.run(variables)
    changes = {v.op.name: a - b for v, a, b in zip(variables, after, before)}
    return loss, changes


def _assert_same_step(reference, replicated):
    loss_1, changes_1 = reference
    loss_n, changes_n = replicated
    assert np.isfinite(loss_n)
    np.testing.assert_allclose(loss_n, loss_1, rtol=1e-5)
    assert sorted(changes_n) == sorted(changes_1)
    for name, change_1 in changes_1.items():
        tolerance = 1e-5 * np.max(np.abs(change_1)) + 1e-7
        assert np.max(np.abs(change_1 - changes_n[name])) <= tolerance, name


@functools.cache
def _reference(model_fn, batch_size, static, loss_reduction="mean"):
    """The single-device step, computed once per configuration."""
    options = {"loss_reduction": loss_reduction}
    return _one_step(model_fn, ALL_DEVICES[:1], batch_size, static, **options)


@pytest.mark.parametrize(
    "batch_size, static",
    [(8, True), (7, True), (7, False), (3, False)],
    ids=["divides", "uneven", "uneven_unknown_size", "fewer_than_devices"],
)
def test_step_equals_single_device(device_list, batch_size, static):
    reference = _reference(mean_model_fn, batch_size, static)
    replicated = _one_step(mean_model_fn, device_list, batch_size, static)
    _assert_same_step(reference, replicated)
    assert np.max(np.abs(reference[1]["emb"])) > 0  # The test can fail.


@pytest.mark.parametrize(
    "model_fn, options",
    [
        (nan_prone_model_fn, {}),
        (sum_model_fn, {"loss_reduction": "sum"}),
        (two_optimizers_model_fn, {}),
    ],
    ids=["reduce_mean_empty_tower", "sum_reduction", "two_optimizers"],
)
def test_variants_equal_single_device(device_list, model_fn, options):
    reference = _reference(model_fn, 3, False, **options)
    replicated = _one_step(model_fn, device_list, 3, False, **options)
    _assert_same_step(reference, replicated)


def test_clipping_applies_to_the_aggregate(device_list):
    params = {"clip_global_norm": 0.05}
    reference = _one_step(mean_model_fn, ALL_DEVICES[:1], 8, True, params)
    replicated = _one_step(mean_model_fn, device_list, 8, True, params)
    _assert_same_step(reference, replicated)
    unclipped = _reference(mean_model_fn, 8, True)
    assert not np.allclose(unclipped[1]["dense/kernel"], reference[1]["dense/kernel"])


def test_update_ops_run_once_per_step():
    def model_fn(features, labels, mode):
        counter = tf.compat.v1.get_variable("counter", [], trainable=False)
        increment = tf.compat.v1.assign_add(counter, 1.0)
        tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.UPDATE_OPS, increment)
        loss = tf.reduce_mean(features) * tf.compat.v1.get_variable("w", [])
        optimizer = emg.TowerOptimizer(tf.compat.v1.train.GradientDescentOptimizer(0.1))
        with tf.control_dependencies(tf.compat.v1.get_collection("update_ops")):
            train_op = optimizer.minimize(loss)
        return EstimatorSpec(mode, loss=loss, train_op=train_op)

    with tf.Graph().as_default():
        replicated = emg.replicate_model_fn(model_fn, devices=ALL_DEVICES)
        spec = replicated(tf.ones([8, 2]), None, ModeKeys.TRAIN)
        counter = tf.compat.v1.global_variables("counter")[0]
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            session.run(tf.compat.v1.assign(counter, 0.0))
            session.run(spec.train_op)
            assert session.run(counter) == 1.0


def test_sparse_gradients_stay_sparse():
    seen = {}

    def record(grads_and_vars):
        seen.update({v.op.name: type(g).__name__ for g, v in grads_and_vars})
        return grads_and_vars

    _one_step(mean_model_fn, ALL_DEVICES[:2], 8, True, {"transform_gradients": record})
    assert seen["emb"] == "IndexedSlices"
    assert seen["dense/kernel"] != "IndexedSlices"


# Ops whose output needs only their input's static shape: TensorFlow's graph
# optimizer folds them to constants, cutting the edge to their input.
_SHAPE_ONLY = {"Shape", "ShapeN", "Size", "Rank", "OnesLike", "ZerosLike"}


def _ancestors(op):
    """The ops `op` waits for at run time (edges through shape-only ops cut)."""
    seen, todo = set(), [op]
    while todo:
        op = todo.pop()
        inputs = [] if op.type in _SHAPE_ONLY else [t.op for t in op.inputs]
        for parent in inputs + list(op.control_inputs):
            if parent not in seen:
                seen.add(parent)
                todo.append(parent)
    return seen


def test_every_update_waits_for_every_towers_loss():
    """The reported loss is the loss before the update, in every tower.

    A model_fn that applies `tf.gradients` and waits only for UPDATE_OPS: no
    gradient needs a tower's loss value (nor its L2 term), so without the
    library's gate the loss could run after the update (with reference
    variables it then reads the updated weights).
    """
    with tf.Graph().as_default():
        features, labels = _features(6)
        replicated = emg.replicate_model_fn(
            lambda features, labels, mode: _plain_train_spec(features, labels, mode),
            devices=ALL_DEVICES[:3],
        )
        replicated(features, labels, ModeKeys.TRAIN)
        graph = tf.compat.v1.get_default_graph()
        ops = graph.get_operations()
        updates = [op for op in ops if "Apply" in op.type or "Scatter" in op.type]
        # Each tower's total: its cross-entropy and the L2 terms it adds.
        totals = [op for op in ops if op.name.split("/")[-1] == "total_loss"]
        assert len(updates) == 3 and len(totals) == 3  # emb, kernel, bias; 3 towers.
        for update in updates:
            assert set(totals) <= _ancestors(update), update.name


def _plain_train_spec(features, labels, mode):
    logits = _logits(features)
    tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    loss = tf.compat.v1.losses.get_total_loss()
    variables = tf.compat.v1.trainable_variables()
    # tf.gradients: only the loss's static shape reaches the gradients.
    pairs = zip(tf.gradients(loss, variables), variables)
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.5)
    with tf.control_dependencies(tf.compat.v1.get_collection("update_ops")):
        train_op = optimizer.apply_gradients(pairs)
    return EstimatorSpec(mode, loss=loss, train_op=train_op)
