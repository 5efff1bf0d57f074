"""SyncReplicasOptimizer under replicate_model_fn: session start trains nothing.

The chief's `chief_init_op` (and a worker's `local_step_init_op`) run once
when the session starts. Built under the towers' update gate they pulled the
towers' losses, so a forward pass consumed a batch before the first step: a
finite input lost a batch (or ran dry). With a finite input at 2 devices
every batch must be trained exactly once, in order.
"""

import json

import numpy as np
import pytest
import tensorflow as tf
from conftest import ALL_DEVICES

import estimator_multigpu as emg
from estimator_multigpu import estimator as emg_estimator

pytestmark = pytest.mark.tf_compat

BATCHES, BATCH, LEARNING_RATE = 3, 4, 0.1
_X = np.arange(BATCHES * BATCH * 4, dtype=np.float32).reshape(-1, 4) / 48
_Y = _X.sum(axis=1, keepdims=True) + 1


def _emg_sync(plain):
    """emg's wrapper, on a 2-worker TF_CONFIG, aggregating one step."""
    config = emg_estimator.RunConfig()
    return emg.estimator.sync_replicas_optimizer(plain, config, replicas_to_aggregate=1)


def _tf_sync(plain):
    return tf.compat.v1.train.SyncReplicasOptimizer(
        plain, replicas_to_aggregate=1, total_num_replicas=1
    )


WRAPPERS = {"emg": _emg_sync, "tf": _tf_sync}


def _model_fn(features, labels, mode, params):
    weights = tf.compat.v1.get_variable(
        "w", [4, 1], initializer=tf.compat.v1.zeros_initializer()
    )
    loss = tf.reduce_mean(tf.square(tf.matmul(features, weights) - labels))
    sync = WRAPPERS[params["wrapper"]](
        tf.compat.v1.train.GradientDescentOptimizer(LEARNING_RATE)
    )
    params["optimizers"].append(sync)
    step = tf.compat.v1.train.get_or_create_global_step()
    train_op = emg.TowerOptimizer(sync).minimize(loss, global_step=step)
    return emg_estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def _applying_hook(optimizers, is_chief):
    """The hook of the one optimizer that applied the towers' gradients."""
    hooks = []
    for optimizer in optimizers:
        hook = optimizer.make_session_run_hook(is_chief)
        try:
            hook.begin()  # Raises for an optimizer that applied nothing.
        except ValueError:
            continue
        hooks.append(hook)
    assert len(hooks) == 1
    return hooks[0]


def _build(wrapper, devices):
    params = {"wrapper": wrapper, "optimizers": []}
    model_fn = emg.replicate_model_fn(_model_fn, devices=devices)
    dataset = tf.data.Dataset.from_tensor_slices((_X, _Y)).batch(BATCH)
    features, labels = tf.compat.v1.data.make_one_shot_iterator(dataset).get_next()
    spec = model_fn(features, labels, emg_estimator.ModeKeys.TRAIN, params)
    return spec, params["optimizers"]


def _ancestors(op):
    seen, stack = set(), [op]
    while stack:
        current = stack.pop()
        if current not in seen:
            seen.add(current)
            stack.extend(t.op for t in current.inputs)
            stack.extend(current.control_inputs)
    return seen


def _numpy_replay():
    weights = np.zeros([4, 1], np.float32)
    for i in range(BATCHES):
        x, y = _X[i * BATCH : (i + 1) * BATCH], _Y[i * BATCH : (i + 1) * BATCH]
        grad = 2 * x.T @ (x @ weights - y) / len(x)
        weights = weights - LEARNING_RATE * grad
    return weights


@pytest.fixture
def cluster_env(monkeypatch):
    jobs = {"worker": ["127.0.0.1:2000", "127.0.0.1:2001"]}
    config = {"cluster": jobs, "task": {"type": "worker", "index": 0}}
    monkeypatch.setenv("TF_CONFIG", json.dumps(config))


@pytest.mark.usefixtures("cluster_env")
@pytest.mark.parametrize("wrapper", sorted(WRAPPERS))
@pytest.mark.parametrize("is_chief", [True, False], ids=["chief", "worker"])
def test_init_ops_do_not_read_the_input(wrapper, is_chief):
    with tf.Graph().as_default():
        tf.compat.v1.train.create_global_step()
        _, optimizers = _build(wrapper, ALL_DEVICES[:2])
        hook = _applying_hook(optimizers, is_chief)
        init = getattr(hook._local_init_op, "op", hook._local_init_op)
        types = {op.type for op in _ancestors(init)}
    assert not types & {"IteratorGetNext", "MatMul"}, sorted(types)


@pytest.mark.parametrize("num_devices", [1, 2], ids=["1dev", "2dev"])
def test_every_batch_of_a_finite_input_is_trained_once(num_devices):
    # One replica aggregating its own gradients. No initial token
    # (num_tokens=0): with the default one, a lone replica runs a step ahead
    # of the update and that step's gradient is stale and dropped, by design.
    with tf.Graph().as_default():
        step = tf.compat.v1.train.create_global_step()
        spec, optimizers = _build("tf", ALL_DEVICES[:num_devices])
        _applying_hook(optimizers, is_chief=True)
        (applying,) = [o for o in optimizers if o._gradients_applied]
        hook = applying.make_session_run_hook(is_chief=True, num_tokens=0)
        weights = tf.compat.v1.global_variables("w")[0]
        steps = 0
        with tf.compat.v1.train.MonitoredTrainingSession(
            hooks=[hook], stop_grace_period_secs=1, log_step_count_steps=None
        ) as session:
            while not session.should_stop():
                session.run(spec.train_op)
                steps += 1
                final = session.run_step_fn(
                    lambda step_context: step_context.session.run([step, weights])
                )
    assert steps == BATCHES
    assert final[0] == BATCHES
    np.testing.assert_allclose(final[1], _numpy_replay(), rtol=1e-5)


def _unwrapped_model_fn(features, labels, mode, params):
    """`_model_fn` with the SyncReplicasOptimizer's own `minimize`."""
    weights = tf.compat.v1.get_variable(
        "w", [4, 1], initializer=tf.compat.v1.zeros_initializer()
    )
    loss = tf.reduce_mean(tf.square(tf.matmul(features, weights) - labels))
    sync = WRAPPERS[params["wrapper"]](
        tf.compat.v1.train.GradientDescentOptimizer(LEARNING_RATE)
    )
    step = tf.compat.v1.train.get_or_create_global_step()
    train_op = sync.minimize(loss, global_step=step)
    return emg_estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


@pytest.mark.usefixtures("cluster_env")
@pytest.mark.parametrize("wrapper", sorted(WRAPPERS))
def test_unwrapped_sync_replicas_optimizer_is_refused_with_the_wrapper(wrapper):
    with tf.Graph().as_default():
        model_fn = emg.replicate_model_fn(_unwrapped_model_fn, devices=ALL_DEVICES[:2])
        features, labels = tf.constant(_X[:BATCH]), tf.constant(_Y[:BATCH])
        with pytest.raises(
            TypeError,
            match=r"SyncReplicasOptimizer \('sync_replicas'\) was called unwrapped "
            r"in tower 0.*wrap it in emg\.TowerOptimizer.*"
            r"emg\.TowerOptimizer\(sync_optimizer\)\.minimize\(loss, global_step=",
        ):
            model_fn(
                features, labels, emg_estimator.ModeKeys.TRAIN, {"wrapper": wrapper}
            )


@pytest.mark.parametrize("num_devices", [1, 2], ids=["1dev", "2dev"])
def test_minimize_wraps_a_sync_replicas_optimizer_itself(num_devices):
    def tower_fn(x, y):
        weights = tf.compat.v1.get_variable(
            "w", [4, 1], initializer=tf.compat.v1.zeros_initializer()
        )
        return tf.reduce_mean(tf.square(tf.matmul(x, weights) - y))

    with tf.Graph().as_default():
        step = tf.compat.v1.train.create_global_step()
        sync = _tf_sync(tf.compat.v1.train.GradientDescentOptimizer(LEARNING_RATE))
        _, train_op = emg.towers.minimize(
            tower_fn, (_X[:BATCH], _Y[:BATCH]), sync, ALL_DEVICES[:num_devices], step
        )
        assert sync._gradients_applied and train_op is not None
