"""Plain compat.v1 optimizers and tf.gradients pairs in towers: the single-device step."""

import numpy as np
import pytest
import tensorflow as tf
from conftest import ALL_DEVICES
from test_towers_gradients import (
    _assert_same_step,
    _logits,
    _one_step,
    _update_ops_and,
)

import estimator_multigpu as emg
from estimator_multigpu.estimator._spec import EstimatorSpec

DEVICE_COUNTS = [1, 2, 3]
_IDS = [f"{n}dev" for n in DEVICE_COUNTS]
# (batch size, static): uneven over 2 and 3 towers; 2 examples leave the
# third of 3 towers empty.
BATCHES = [(7, True), (2, False)]
_BATCH_IDS = ["uneven_static", "empty_tower_dynamic"]


def _loss(features, labels):
    logits = _logits(features)
    tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    return tf.compat.v1.losses.get_total_loss()  # This tower's loss + L2.


def _spec(mode, loss, train_op):
    return EstimatorSpec(mode, loss=loss, train_op=train_op)


def plain_minimize_model_fn(features, labels, mode):
    loss = _loss(features, labels)
    optimizer = tf.compat.v1.train.MomentumOptimizer(0.5, 0.9)
    step = tf.compat.v1.train.get_or_create_global_step()
    with tf.control_dependencies(_update_ops_and(loss)):
        return _spec(mode, loss, optimizer.minimize(loss, step))


def plain_compute_apply_model_fn(features, labels, mode):
    loss = _loss(features, labels)
    optimizer = tf.compat.v1.train.AdamOptimizer(0.1)
    pairs = optimizer.compute_gradients(loss)
    step = tf.compat.v1.train.get_or_create_global_step()
    with tf.control_dependencies(_update_ops_and(loss)):
        return _spec(mode, loss, optimizer.apply_gradients(pairs, step))


def _tf_gradients_model_fn(wrap):
    """The cifar10_estimator style: tf.gradients in the tower, apply_gradients."""

    def model_fn(features, labels, mode):
        loss = _loss(features, labels)
        variables = tf.compat.v1.trainable_variables()
        # tf.tuple: no update before all gradients, or with reference
        # variables (v1 behaviour) one device's step itself would race.
        grads = tf.tuple(tf.gradients(loss, variables))
        optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.5)
        optimizer = emg.TowerOptimizer(optimizer) if wrap else optimizer
        step = tf.compat.v1.train.get_or_create_global_step()
        with tf.control_dependencies(_update_ops_and(loss)):
            train_op = optimizer.apply_gradients(zip(grads, variables), step)
        return _spec(mode, loss, train_op)

    return model_fn


tf_gradients_tower_optimizer_model_fn = _tf_gradients_model_fn(wrap=True)
tf_gradients_plain_model_fn = _tf_gradients_model_fn(wrap=False)

MODEL_FNS = [
    plain_minimize_model_fn,
    plain_compute_apply_model_fn,
    tf_gradients_tower_optimizer_model_fn,
    tf_gradients_plain_model_fn,
]
_MODEL_IDS = [
    "plain_minimize",
    "plain_compute_apply",
    "tf_gradients",
    "tf_gradients_plain",
]


@pytest.mark.tf_compat
@pytest.mark.parametrize("model_fn", MODEL_FNS, ids=_MODEL_IDS)
@pytest.mark.parametrize("batch_size, static", BATCHES, ids=_BATCH_IDS)
@pytest.mark.parametrize("num_devices", DEVICE_COUNTS, ids=_IDS)
def test_step_equals_single_device(model_fn, batch_size, static, num_devices):
    reference = _one_step(model_fn, ALL_DEVICES[:1], batch_size, static)
    replicated = _one_step(model_fn, ALL_DEVICES[:num_devices], batch_size, static)
    _assert_same_step(reference, replicated)
    assert np.max(np.abs(reference[1]["dense/kernel"])) > 0  # The test can fail.


def clipped_model_fn(features, labels, mode):
    """An explicit TowerOptimizer still clips the aggregate; others are plain."""
    loss = _loss(features, labels)
    clipped = emg.TowerOptimizer(
        tf.compat.v1.train.GradientDescentOptimizer(0.5), clip_global_norm=0.05
    )
    plain = tf.compat.v1.train.GradientDescentOptimizer(0.5)
    dense = tf.compat.v1.trainable_variables("dense")
    emb = tf.compat.v1.trainable_variables("emb")
    dense_pairs = clipped.compute_gradients(loss, var_list=dense)
    emb_pairs = plain.compute_gradients(loss, var_list=emb)
    # Both updates after all gradients: with reference variables (v1
    # behaviour) one device's step would otherwise race.
    grads = [g.op for g, _ in dense_pairs + emb_pairs]
    with tf.control_dependencies(_update_ops_and(loss) + grads):
        train_op = tf.group(
            clipped.apply_gradients(dense_pairs), plain.apply_gradients(emb_pairs)
        )
    return _spec(mode, loss, train_op)


@pytest.mark.parametrize("num_devices", DEVICE_COUNTS, ids=_IDS)
def test_tower_optimizer_clipping_beside_a_plain_optimizer(num_devices):
    reference = _one_step(clipped_model_fn, ALL_DEVICES[:1], 7, True)
    replicated = _one_step(clipped_model_fn, ALL_DEVICES[:num_devices], 7, True)
    _assert_same_step(reference, replicated)
    norm = np.linalg.norm(
        np.concatenate(
            [reference[1]["dense/kernel"].ravel(), reference[1]["dense/bias"]]
        )
    )
    np.testing.assert_allclose(norm, 0.5 * 0.05, rtol=1e-4)  # Clipped.


def test_plain_optimizer_slots_keep_single_device_names():
    _, changes = _one_step(plain_compute_apply_model_fn, ALL_DEVICES[:2], 7, True)
    assert "dense/kernel/Adam" in changes
    assert not [name for name in changes if "Tower" in name or "tower_" in name]


def changed_pairs_model_fn(features, labels, mode):
    """compute_gradients' pairs changed before apply_gradients: ambiguous."""
    loss = _loss(features, labels)
    optimizer = emg.TowerOptimizer(tf.compat.v1.train.GradientDescentOptimizer(0.5))
    pairs = [
        (g if isinstance(g, tf.IndexedSlices) else tf.clip_by_norm(g, 1.0), v)
        for g, v in optimizer.compute_gradients(loss)
    ]
    return _spec(mode, loss, optimizer.apply_gradients(pairs))


def tf_gradients_sum_model_fn(features, labels, mode):
    loss = _loss(features, labels)
    variables = tf.compat.v1.trainable_variables()
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.5)
    train_op = optimizer.apply_gradients(zip(tf.gradients(loss, variables), variables))
    return _spec(mode, loss, train_op)


def test_changed_pairs_are_refused_with_the_fix():
    with pytest.raises(
        ValueError,
        match=r"tower 0 received gradients for \['dense/kernel:0'.*not the ones its "
        r"compute_gradients returned.*transform_gradients",
    ):
        _one_step(changed_pairs_model_fn, ALL_DEVICES[:2], 7, True)


def test_tf_gradients_with_sum_and_regularization_are_refused():
    with pytest.raises(
        ValueError,
        match=r"tower 0 received gradients that its compute_gradients did not "
        r"return, with loss_reduction='sum' and regularization.*minimize",
    ):
        _one_step(
            tf_gradients_sum_model_fn, ALL_DEVICES[:2], 7, True, loss_reduction="sum"
        )


def _estimator_model_fn(features, labels, mode):
    """A single-device model_fn, unchanged: a plain optimizer's minimize."""
    init = tf.compat.v1.random_normal_initializer(seed=3)
    w = tf.compat.v1.get_variable("w", [3, 1], initializer=init)
    loss = tf.reduce_mean(tf.square(tf.matmul(features, w) - labels))
    step = tf.compat.v1.train.get_or_create_global_step()
    optimizer = tf.compat.v1.train.MomentumOptimizer(0.1, 0.9)
    return EstimatorSpec(mode, loss=loss, train_op=optimizer.minimize(loss, step))


def _estimator_input_fn():
    rng = np.random.RandomState(1)
    x = rng.randn(14, 3).astype(np.float32)
    y = rng.randn(14, 1).astype(np.float32)
    return tf.data.Dataset.from_tensor_slices((x, y)).batch(7).repeat()


def _train_estimator(tmp_path, devices):
    config = emg.estimator.RunConfig(model_dir=str(tmp_path), devices=devices)
    estimator = emg.estimator.Estimator(_estimator_model_fn, config=config)
    estimator.train(_estimator_input_fn, steps=4)
    return estimator.get_variable_value("w")


@pytest.mark.parametrize("num_devices", [2, 3], ids=["2dev", "3dev"])
def test_run_config_devices_with_a_plain_optimizer(tmp_path, num_devices):
    reference = _train_estimator(tmp_path / "one", ALL_DEVICES[:1])
    replicated = _train_estimator(tmp_path / "many", ALL_DEVICES[:num_devices])
    np.testing.assert_allclose(replicated, reference, rtol=1e-5, atol=1e-6)
    with tf.Graph().as_default():
        w = tf.compat.v1.get_variable(
            "w", [3, 1], initializer=tf.compat.v1.random_normal_initializer(seed=3)
        )
        with tf.compat.v1.Session() as session:
            session.run(w.initializer)
            initial = session.run(w)
    assert np.max(np.abs(reference - initial)) > 1e-3  # It trained.
