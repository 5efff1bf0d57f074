"""Hostile but plausible model_fns under replicate_model_fn: same step, or a clear error."""

import re

import numpy as np
import pytest
import tensorflow as tf
from conftest import ALL_DEVICES

import estimator_multigpu as emg
from estimator_multigpu.estimator._spec import EstimatorSpec, ModeKeys

DEVICE_COUNTS = [1, 2, 3]
_RNG = np.random.RandomState(0)
X = _RNG.randn(12, 3).astype(np.float32)
Y = _RNG.randn(12, 1).astype(np.float32)


def _prediction(features):
    init = tf.compat.v1.random_normal_initializer(seed=3)
    w = tf.compat.v1.get_variable("w", [3, 1], initializer=init)
    b = tf.compat.v1.get_variable("b", [1], initializer=tf.zeros_initializer())
    return tf.matmul(features, w) + b


def _loss(features, labels):
    return tf.reduce_mean(tf.square(_prediction(features) - labels))


def _spec(mode, loss, train_op):
    return EstimatorSpec(mode, loss=loss, train_op=train_op)


def _run_step(model_fn, num_devices, features=X, labels=Y, static=True):
    """One training step; returns {variable name: value after the step}."""
    with tf.Graph().as_default():
        shape = lambda a: ([a.shape[0]] if static else [None]) + list(a.shape[1:])  # noqa: E731
        if isinstance(features, np.ndarray):
            features = tf.compat.v1.placeholder_with_default(features, shape(features))
        if isinstance(labels, np.ndarray):
            labels = tf.compat.v1.placeholder_with_default(labels, shape(labels))
        replicated = emg.replicate_model_fn(model_fn, devices=ALL_DEVICES[:num_devices])
        spec = replicated(features, labels, ModeKeys.TRAIN)
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            session.run(tf.compat.v1.local_variables_initializer())
            session.run(spec.train_op)
            variables = tf.compat.v1.trainable_variables()
            return {v.op.name: session.run(v) for v in variables}


def _assert_same_step(model_fn, **kwargs):
    reference = _run_step(model_fn, 1, **kwargs)
    for num_devices in DEVICE_COUNTS[1:]:
        result = _run_step(model_fn, num_devices, **kwargs)
        assert sorted(result) == sorted(reference)
        for name, value in reference.items():
            np.testing.assert_allclose(result[name], value, rtol=1e-5, atol=1e-6)


# Case: gradients clipped inside the tower.


def clipped_tf_gradients_model_fn(features, labels, mode):
    """tf.gradients -> tf.clip_by_global_norm -> apply_gradients, in the tower."""
    loss = _loss(features, labels)
    variables = tf.compat.v1.trainable_variables()
    grads, _ = tf.clip_by_global_norm(tf.gradients(loss, variables), 0.05)
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.5)
    step = tf.compat.v1.train.get_or_create_global_step()
    return _spec(mode, loss, optimizer.apply_gradients(zip(grads, variables), step))


def clipped_aggregate_model_fn(features, labels, mode):
    """The fix the refusal names: unclipped tf.gradients, TowerOptimizer clips."""
    loss = _loss(features, labels)
    variables = tf.compat.v1.trainable_variables()
    grads = tf.gradients(loss, variables)
    optimizer = emg.TowerOptimizer(
        tf.compat.v1.train.GradientDescentOptimizer(0.5), clip_global_norm=0.05
    )
    step = tf.compat.v1.train.get_or_create_global_step()
    return _spec(mode, loss, optimizer.apply_gradients(zip(grads, variables), step))


def clipped_compute_gradients_model_fn(features, labels, mode):
    loss = _loss(features, labels)
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.5)
    pairs = optimizer.compute_gradients(loss)
    grads, _ = tf.clip_by_global_norm([g for g, _ in pairs], 0.05)
    variables = [v for _, v in pairs]
    step = tf.compat.v1.train.get_or_create_global_step()
    return _spec(mode, loss, optimizer.apply_gradients(zip(grads, variables), step))


def test_the_fix_steps_as_tower_clipping_does_on_one_device():
    clipped = _run_step(clipped_tf_gradients_model_fn, 1)
    fixed = _run_step(clipped_aggregate_model_fn, 1)
    for name, value in clipped.items():
        np.testing.assert_allclose(fixed[name], value, rtol=1e-6)


@pytest.mark.parametrize("num_devices", [2, 3], ids=["2dev", "3dev"])
def test_tower_clipped_tf_gradients_are_refused_with_the_fix(num_devices):
    with pytest.raises(ValueError) as error:
        _run_step(clipped_tf_gradients_model_fn, num_devices)
    message = str(error.value)
    assert "clip_by_global_norm" in message
    assert "clip_global_norm=" in message
    assert "test_towers_faults.py" in message  # The user's line.


def test_clipping_the_aggregate_gives_the_same_step_on_1_2_3_devices():
    _assert_same_step(clipped_aggregate_model_fn)


def test_clipped_compute_gradients_refusal_does_not_suggest_tower_clipping():
    with pytest.raises(ValueError, match="clip_global_norm=") as error:
        _run_step(clipped_compute_gradients_model_fn, 2)
    assert "compute every gradient with tf.gradients" not in str(error.value)


# Case: a loss that is not a scalar.


def batch_loss_model_fn(features, labels, mode):
    loss = tf.square(_prediction(features) - labels)  # [batch, 1]
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.5)
    step = tf.compat.v1.train.get_or_create_global_step()
    return _spec(mode, loss, optimizer.minimize(loss, step))


@pytest.mark.parametrize("static", [True, False], ids=["static", "dynamic"])
@pytest.mark.parametrize("num_devices", [1, 2], ids=["1dev", "2dev"])
def test_non_scalar_loss_names_shape_and_fix(num_devices, static):
    with pytest.raises(ValueError, match=r"Loss must be scalar") as error:
        _run_step(batch_loss_model_fn, num_devices, static=static)
    assert "tf.reduce_mean" in str(error.value)
    # The shape: [None, 1] where only the batch is unknown, else (12, 1) or (6, 1).
    assert re.search(r"(\[None|\(12|\(6), 1[\])]", str(error.value)), error.value


# Case: SparseTensor features are split by rows.

_IDS = tf.compat.v1.SparseTensorValue(
    indices=[[r, c] for r in range(12) for c in range(r % 3)],
    values=[(r * 7 + c) % 10 for r in range(12) for c in range(r % 3)],
    dense_shape=[12, 2],
)


def sparse_model_fn(features, labels, mode):
    """Bag of embeddings over a SparseTensor feature, plus a dense one."""
    init = tf.compat.v1.random_normal_initializer(seed=5)
    emb = tf.compat.v1.get_variable("emb", [10, 2], initializer=init)
    ids = tf.sparse.SparseTensor(
        features["ids"].indices,
        tf.cast(features["ids"].values, tf.int64),
        features["ids"].dense_shape,
    )
    bag = tf.nn.safe_embedding_lookup_sparse(emb, ids, combiner="sum")
    w = tf.compat.v1.get_variable("w", [5, 1], initializer=init)
    prediction = tf.matmul(tf.concat([bag, features["x"]], 1), w)
    loss = tf.reduce_mean(tf.square(prediction - labels))
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.5)
    step = tf.compat.v1.train.get_or_create_global_step()
    return _spec(mode, loss, optimizer.minimize(loss, step))


def _sparse_input(static):
    ids = tf.sparse.SparseTensor(
        np.array(_IDS.indices, np.int64),
        np.array(_IDS.values, np.int64),
        np.array(_IDS.dense_shape, np.int64),
    )
    if not static:
        ids = tf.sparse.SparseTensor(
            ids.indices,
            ids.values,
            tf.compat.v1.placeholder_with_default(ids.dense_shape, [2]),
        )
    return {"ids": ids, "x": tf.constant(X)}


@pytest.mark.parametrize("static", [True, False], ids=["static", "dynamic"])
def test_sparse_features_are_split_by_rows(static):
    def run(num_devices):
        with tf.Graph().as_default():
            replicated = emg.replicate_model_fn(
                sparse_model_fn, devices=ALL_DEVICES[:num_devices]
            )
            spec = replicated(_sparse_input(static), tf.constant(Y), ModeKeys.TRAIN)
            with tf.compat.v1.Session() as session:
                session.run(tf.compat.v1.global_variables_initializer())
                session.run(spec.train_op)
                variables = tf.compat.v1.trainable_variables()
                return {v.op.name: session.run(v) for v in variables}

    reference = run(1)
    for num_devices in (2, 3, 4):
        result = run(num_devices)
        for name, value in reference.items():
            np.testing.assert_allclose(result[name], value, rtol=1e-5, atol=1e-6)


def test_sparse_split_keeps_each_row_in_its_tower():
    from estimator_multigpu.towers import _split

    with tf.Graph().as_default():
        features, _, counts = _split.split(_sparse_input(False), None, 3, "uneven")
        with tf.compat.v1.Session() as session:
            shards = session.run([f["ids"] for f in features])
    dense = np.zeros(_IDS.dense_shape, np.int64)
    for (r, c), v in zip(_IDS.indices, _IDS.values):
        dense[r, c] = v
    assert [s.dense_shape[0] for s in shards] == [4, 4, 4]
    for t, shard in enumerate(shards):
        got = np.zeros(shard.dense_shape, np.int64)
        for (r, c), v in zip(shard.indices, shard.values):
            got[r, c] = v
        np.testing.assert_array_equal(got, dense[4 * t : 4 * t + 4])


# Case: labels given as a Python list.


def list_labels_model_fn(features, labels, mode):
    loss = tf.reduce_mean(
        tf.square(_prediction(features) - tf.cast(labels, tf.float32))
    )
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.5)
    step = tf.compat.v1.train.get_or_create_global_step()
    return _spec(mode, loss, optimizer.minimize(loss, step))


@pytest.mark.parametrize("num_devices", [2, 3], ids=["2dev", "3dev"])
def test_python_list_labels_are_converted_as_a_single_device_run_does(num_devices):
    labels = Y.tolist()  # A list of 12 one-element lists.
    reference = _run_step(list_labels_model_fn, 1, labels=labels)
    result = _run_step(list_labels_model_fn, num_devices, labels=labels)
    for name, value in reference.items():
        np.testing.assert_allclose(result[name], value, rtol=1e-5, atol=1e-6)


def test_python_list_labels_of_device_count_length_are_a_batch():
    labels = [[0.5], [1.5]]  # Two examples on two devices, not two shards.
    reference = _run_step(list_labels_model_fn, 1, features=X[:2], labels=labels)
    result = _run_step(list_labels_model_fn, 2, features=X[:2], labels=labels)
    for name, value in reference.items():
        np.testing.assert_allclose(result[name], value, rtol=1e-5, atol=1e-6)


# Case: an optimizer factory instead of an optimizer.


def test_tower_optimizer_accepts_an_optimizer_factory():
    with tf.Graph().as_default():
        optimizer = emg.TowerOptimizer(
            lambda: tf.compat.v1.train.GradientDescentOptimizer(0.5)
        )
        assert isinstance(
            optimizer.optimizer, tf.compat.v1.train.GradientDescentOptimizer
        )


def factory_model_fn(features, labels, mode):
    loss = _loss(features, labels)
    optimizer = emg.TowerOptimizer(
        lambda: tf.compat.v1.train.GradientDescentOptimizer(0.5)
    )
    step = tf.compat.v1.train.get_or_create_global_step()
    return _spec(mode, loss, optimizer.minimize(loss, step))


def test_optimizer_factory_gives_the_same_step_on_1_2_3_devices():
    _assert_same_step(factory_model_fn)


@pytest.mark.parametrize(
    "optimizer, match",
    [
        (
            tf.compat.v1.train.AdamOptimizer,
            r"the class AdamOptimizer.*AdamOptimizer\(learning_rate",
        ),
        (lambda: "adam", r"returned 'adam' of type str.*GradientDescentOptimizer"),
        (lambda lr: None, r"takes arguments"),
    ],
    ids=["class", "factory_returns_a_string", "factory_with_arguments"],
)
def test_bad_optimizer_factories_are_named(optimizer, match):
    with pytest.raises(TypeError, match=match):
        emg.TowerOptimizer(optimizer)


# Case: towers that create their own non-trainable variables.


def _ema_model_fn(every_tower):
    def model_fn(features, labels, mode):
        loss = _loss(features, labels)
        dependencies = []
        if every_tower or emg.towers.tower_index() == 0:
            averages = tf.compat.v1.train.ExponentialMovingAverage(0.9, name="avg")
            dependencies.append(averages.apply([loss]))
        optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.5)
        step = tf.compat.v1.train.get_or_create_global_step()
        with tf.control_dependencies(dependencies):
            train_op = optimizer.minimize(loss, step)
        return _spec(mode, loss, train_op)

    return model_fn


@pytest.mark.parametrize("every_tower", [True, False], ids=["every_tower", "tower_0"])
def test_moving_averages_in_towers_train_as_one_device(every_tower):
    _assert_same_step(_ema_model_fn(every_tower))


def test_per_tower_averages_are_local_and_checkpoints_move(tmp_path):
    with tf.Graph().as_default():
        replicated = emg.replicate_model_fn(
            _ema_model_fn(True), devices=ALL_DEVICES[:2]
        )
        replicated(tf.constant(X), tf.constant(Y), ModeKeys.TRAIN)
        names = [v.op.name for v in tf.compat.v1.global_variables()]
        local = [v.op.name for v in tf.compat.v1.local_variables()]
    assert not [n for n in names if n.startswith("tower_1/")]
    assert [n for n in local if n.startswith("tower_1/")]


def auto_reuse_ema_model_fn(features, labels, mode):
    """The whole model in a reuse=AUTO_REUSE scope, an average in every tower."""
    with tf.compat.v1.variable_scope("model", reuse=tf.compat.v1.AUTO_REUSE):
        return _ema_model_fn(True)(features, labels, mode)


def test_moving_averages_under_auto_reuse_train_as_one_device():
    _assert_same_step(auto_reuse_ema_model_fn)


def trainable_in_tower_1_model_fn(features, labels, mode):
    loss = _loss(features, labels)
    if emg.towers.tower_index() == 1:
        extra = tf.compat.v1.get_variable("extra", [], trainable=True)
        loss += extra
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.5)
    step = tf.compat.v1.train.get_or_create_global_step()
    return _spec(mode, loss, optimizer.minimize(loss, step))


def test_trainable_variable_only_in_a_later_tower_is_named():
    with pytest.raises(ValueError, match=r"Tower 1 creates the trainable variable"):
        _run_step(trainable_in_tower_1_model_fn, 2)


def _inception_tower_loss(features, labels):
    """research/inception's tower loss: loss averages in every tower."""
    loss = _loss(features, labels)
    averages = tf.compat.v1.train.ExponentialMovingAverage(0.9, name="avg")
    with tf.control_dependencies([averages.apply([loss])]):
        return tf.identity(loss)


def _minimize_step(num_devices):
    with tf.Graph().as_default():
        optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.5)
        _, train_op = emg.towers.minimize(
            _inception_tower_loss,
            (tf.constant(X), tf.constant(Y)),
            optimizer,
            devices=ALL_DEVICES[:num_devices],
        )
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            session.run(tf.compat.v1.local_variables_initializer())
            session.run(train_op)
            variables = tf.compat.v1.trainable_variables()
            return {v.op.name: session.run(v) for v in variables}


def test_tower_loop_with_loss_averages_in_every_tower_trains_as_one_device():
    reference = _minimize_step(1)
    for num_devices in DEVICE_COUNTS[1:]:
        result = _minimize_step(num_devices)
        for name, value in reference.items():
            np.testing.assert_allclose(result[name], value, rtol=1e-5, atol=1e-6)
