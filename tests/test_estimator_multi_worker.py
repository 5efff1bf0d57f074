"""emg.estimator on a TF_CONFIG cluster, in process: config, placement, sync, roles."""

import json
import os
import re
import time

import numpy as np
import pytest
import tensorflow as tf
from conftest import ALL_DEVICES

import estimator_multigpu as emg
from estimator_multigpu import estimator as emg_estimator
from estimator_multigpu.estimator import (
    _continuous_eval,
    _distributed,
)

# The launcher's layout: no chief, worker 0 is the chief.
JOBS = {
    "worker": ["127.0.0.1:2000", "127.0.0.1:2001"],
    "ps": ["127.0.0.1:2002"],
}


def _set_tf_config(monkeypatch, task_type, index, jobs=JOBS):
    config = {"cluster": jobs, "task": {"type": task_type, "index": index}}
    monkeypatch.setenv("TF_CONFIG", json.dumps(config))


@pytest.mark.parametrize(
    "task_type, index, is_chief, master",
    [
        ("worker", 0, True, "grpc://127.0.0.1:2000"),
        ("worker", 1, False, "grpc://127.0.0.1:2001"),
        ("ps", 0, False, "grpc://127.0.0.1:2002"),
    ],
    ids=["worker0", "worker1", "ps"],
)
def test_cluster_without_chief_has_worker0_as_chief(
    monkeypatch, task_type, index, is_chief, master
):
    _set_tf_config(monkeypatch, task_type, index)
    config = emg_estimator.RunConfig()
    assert (config.is_chief, config.master) == (is_chief, master)
    assert (config.num_worker_replicas, config.num_ps_replicas) == (2, 1)
    assert (config.task_type, config.task_id) == (task_type, index)


@pytest.mark.parametrize(
    "text, match",
    [
        ('{"cluster": ', r"TF_CONFIG is not valid JSON"),
        ("[1]", r"TF_CONFIG field `TF_CONFIG` must be a JSON object"),
        (
            json.dumps({"cluster": JOBS, "task": {"type": "worker", "index": 2}}),
            r"`task.index` is 2, out of range for 2 'worker' task\(s\); use 0..1",
        ),
        (
            json.dumps({"cluster": JOBS, "task": {"type": "boss", "index": 0}}),
            r"`task.type` is 'boss'; use a job of `cluster`",
        ),
        (json.dumps({"cluster": JOBS}), r"`task.type` is missing"),
    ],
    ids=["bad_json", "not_object", "index", "type", "no_task"],
)
def test_malformed_tf_config_rejected_by_run_config(monkeypatch, text, match):
    monkeypatch.setenv("TF_CONFIG", text)
    with pytest.raises(ValueError, match=match):
        emg_estimator.RunConfig()


def test_estimator_train_on_a_cluster_points_to_train_and_evaluate(
    monkeypatch, tmp_path
):
    _set_tf_config(monkeypatch, "worker", 1)
    estimator = emg_estimator.Estimator(_model_fn, model_dir=str(tmp_path))
    with pytest.raises(ValueError, match="run emg.estimator.train_and_evaluate in"):
        estimator.train(_input_fn, max_steps=1)


# Placement: variables on ps, each worker's towers on its local devices.


def _model_fn(features, labels, mode, params=None, config=None):
    weights = tf.compat.v1.get_variable(
        "w", [4, 1], initializer=tf.compat.v1.zeros_initializer()
    )
    loss = tf.reduce_mean(tf.square(tf.matmul(features, weights) - labels))
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    if (params or {}).get("sync"):
        optimizer = _distributed.sync_replicas_optimizer(optimizer, config)
    if (params or {}).get("towers"):
        optimizer = emg.TowerOptimizer(optimizer)
    step = tf.compat.v1.train.get_or_create_global_step()
    train_op = optimizer.minimize(loss, global_step=step)
    return emg_estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def _input_fn():
    x = np.arange(32, dtype=np.float32).reshape(8, 4) / 32
    y = x.sum(axis=1, keepdims=True)
    return tf.data.Dataset.from_tensor_slices((x, y)).repeat().batch(4)


def _towers_graph(config, params=None):
    model_fn = emg.replicate_model_fn(_model_fn, devices=ALL_DEVICES[:2])
    graph = tf.Graph()
    with graph.as_default(), graph.device(_distributed.replica_device_setter(config)):
        tf.compat.v1.train.create_global_step()
        features, labels = tf.compat.v1.data.make_one_shot_iterator(
            _input_fn()
        ).get_next()
        model_fn(features, labels, emg_estimator.ModeKeys.TRAIN, params or {}, config)
    return graph


@pytest.mark.tf_compat
@pytest.mark.parametrize("is_chief", [True, False], ids=["chief", "worker"])
def test_sync_replicas_under_towers_hooks_only_the_applying_optimizer(
    monkeypatch, is_chief
):
    # Each tower's model_fn call wraps its own optimizer; only the one that
    # applies the towers' summed gradients gets a session hook.
    _set_tf_config(monkeypatch, "worker", 1)
    params = {"sync": True, "towers": True}
    graph = _towers_graph(emg_estimator.RunConfig(), params)
    with graph.as_default():
        hooks = _distributed.sync_hooks(is_chief)
        assert len(hooks) == 1
        hooks[0].begin()  # Raises for an optimizer that applied nothing.


@pytest.mark.tf_compat
def test_replica_device_setter_puts_variables_on_ps_towers_on_the_worker(
    monkeypatch,
):
    _set_tf_config(monkeypatch, "worker", 1)
    graph = _towers_graph(emg_estimator.RunConfig())
    variables = graph.get_collection(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES)
    assert variables
    for variable in variables:
        assert variable.device.startswith("/job:ps/task:0"), variable
    matmuls = [op.device for op in graph.get_operations() if op.type == "MatMul"]
    assert sorted({tf.DeviceSpec.from_string(d).device_index for d in matmuls}) == [
        0,
        1,
    ]
    for device in matmuls:
        assert device.startswith("/job:worker/task:1/"), device


def test_no_ps_means_no_device_setter(monkeypatch):
    _set_tf_config(monkeypatch, "worker", 1, jobs={"worker": JOBS["worker"]})
    assert _distributed.replica_device_setter(emg_estimator.RunConfig()) is None


# Synchronous training on request.


@pytest.mark.tf_compat
def test_sync_replicas_optimizer_aggregates_every_training_task(monkeypatch):
    _set_tf_config(monkeypatch, "worker", 1)
    config = emg_estimator.RunConfig()
    with tf.Graph().as_default():
        plain = tf.compat.v1.train.GradientDescentOptimizer(0.1)
        sync = _distributed.sync_replicas_optimizer(plain, config)
        assert isinstance(sync, tf.compat.v1.train.SyncReplicasOptimizer)
        assert sync._replicas_to_aggregate == 2
        assert _distributed.sync_hooks(is_chief=False) == []  # Nothing applied.
        weights = tf.compat.v1.get_variable("w", [1])
        step = tf.compat.v1.train.get_or_create_global_step()
        sync.minimize(tf.reduce_sum(weights), global_step=step)
        assert len(_distributed.sync_hooks(is_chief=False)) == 1
    with tf.Graph().as_default():
        assert _distributed.sync_hooks(is_chief=False) == []


def test_sync_replicas_optimizer_is_public_at_emg_estimator():
    assert "sync_replicas_optimizer" in emg_estimator.__all__
    assert emg.estimator.sync_replicas_optimizer is _distributed.sync_replicas_optimizer


def test_sync_replicas_optimizer_outside_a_cluster_is_the_optimizer():
    plain = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    config = emg_estimator.RunConfig()
    assert _distributed.sync_replicas_optimizer(plain, config) is plain


@pytest.mark.parametrize("value", [0, -1, True], ids=["zero", "negative", "bool"])
def test_sync_replicas_optimizer_rejects_bad_aggregation(monkeypatch, value):
    _set_tf_config(monkeypatch, "worker", 0)
    plain = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    with pytest.raises(ValueError, match=r"`replicas_to_aggregate` must be an int"):
        _distributed.sync_replicas_optimizer(
            plain, emg_estimator.RunConfig(), replicas_to_aggregate=value
        )


# Roles.


@pytest.mark.tf_compat
def test_single_node_cluster_trains_in_process_without_eval(monkeypatch, tmp_path):
    _set_tf_config(monkeypatch, "chief", 0, jobs={"chief": ["127.0.0.1:2000"]})
    estimator = emg_estimator.Estimator(_model_fn, model_dir=str(tmp_path))
    train_spec = emg_estimator.TrainSpec(_input_fn, max_steps=3)
    eval_spec = emg_estimator.EvalSpec(_input_fn, steps=1, throttle_secs=0)
    assert emg_estimator.train_and_evaluate(estimator, train_spec, eval_spec) is None
    assert tf.train.latest_checkpoint(str(tmp_path)).endswith("model.ckpt-3")
    assert not os.path.exists(estimator.eval_dir())


def test_worker_waits_for_the_chief_at_most_its_delay(monkeypatch, tmp_path):
    _set_tf_config(monkeypatch, "worker", 1)
    config = emg_estimator.RunConfig(experimental_max_worker_delay_secs=1)
    start = time.monotonic()
    _distributed.wait_for_chief(config, str(tmp_path))
    assert 0.9 <= time.monotonic() - start < 5


def test_worker_waits_although_an_old_checkpoint_is_there(monkeypatch, tmp_path):
    estimator = emg_estimator.Estimator(_model_fn, model_dir=str(tmp_path))
    estimator.train(_input_fn, max_steps=1)
    old = time.time() - 3600  # Written before this process (a previous run).
    os.utime(tmp_path / "checkpoint", (old, old))
    _set_tf_config(monkeypatch, "worker", 0)
    config = emg_estimator.RunConfig(experimental_max_worker_delay_secs=1)
    start = time.monotonic()
    _distributed.wait_for_chief(config, str(tmp_path))
    assert time.monotonic() - start >= 0.9


def test_worker_stops_waiting_once_the_chief_checkpointed(monkeypatch, tmp_path):
    estimator = emg_estimator.Estimator(_model_fn, model_dir=str(tmp_path))
    estimator.train(_input_fn, max_steps=1)
    _set_tf_config(monkeypatch, "worker", 1)
    start = time.monotonic()
    _distributed.wait_for_chief(emg_estimator.RunConfig(), str(tmp_path))
    assert time.monotonic() - start < 1


def test_evaluator_evaluates_until_max_steps(monkeypatch, tmp_path):
    estimator = emg_estimator.Estimator(_model_fn, model_dir=str(tmp_path))
    estimator.train(_input_fn, max_steps=3)
    _set_tf_config(monkeypatch, "evaluator", 0)
    evaluator = emg_estimator.Estimator(_model_fn, model_dir=str(tmp_path))
    train_spec = emg_estimator.TrainSpec(_input_fn, max_steps=3)
    eval_spec = emg_estimator.EvalSpec(
        _input_fn, steps=1, start_delay_secs=0, throttle_secs=0
    )
    emg_estimator.train_and_evaluate(evaluator, train_spec, eval_spec)
    assert os.listdir(evaluator.eval_dir())


def _rotating_input_fn(model_dir, newer):
    """An eval input_fn that, as evaluation starts, rotates the checkpoint."""

    def input_fn():
        for path in tf.io.gfile.glob(os.path.join(model_dir, "model.ckpt-1.*")):
            tf.io.gfile.remove(path)
        tf.compat.v1.train.update_checkpoint_state(model_dir, newer)
        return _input_fn()

    return input_fn


def _evaluator_at_step_1(tmp_path, input_fn):
    model_dir = str(tmp_path)
    estimator = emg_estimator.Estimator(_model_fn, model_dir=model_dir)
    estimator.train(_input_fn, max_steps=1)
    estimator.train(_input_fn, max_steps=2)
    newer = estimator.latest_checkpoint()
    tf.compat.v1.train.update_checkpoint_state(
        model_dir, os.path.join(model_dir, "model.ckpt-1")
    )
    spec = emg_estimator.EvalSpec(input_fn(model_dir, newer), steps=1)
    return estimator, _continuous_eval.Evaluator(estimator, spec, 2)


def test_evaluator_skips_a_checkpoint_rotated_away_under_it(tmp_path):
    estimator, evaluator = _evaluator_at_step_1(tmp_path, _rotating_input_fn)
    assert _continuous_eval._evaluate_latest(estimator, evaluator) is None
    metrics = _continuous_eval._evaluate_latest(estimator, evaluator)
    assert metrics["global_step"] == 2


def test_evaluator_still_raises_for_a_damaged_latest_checkpoint(tmp_path):
    def damaging_input_fn(model_dir, newer):
        def input_fn():
            for path in tf.io.gfile.glob(os.path.join(model_dir, "model.ckpt-1.*")):
                tf.io.gfile.remove(path)
            return _input_fn()

        return input_fn

    estimator, evaluator = _evaluator_at_step_1(tmp_path, damaging_input_fn)
    with pytest.raises(tf.errors.DataLossError, match="model.ckpt-1 cannot be read"):
        _continuous_eval._evaluate_latest(estimator, evaluator)


def test_a_given_session_config_gets_the_cluster_device_filters(monkeypatch):
    _set_tf_config(monkeypatch, "worker", 1)
    given = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=3)
    config = emg_estimator.RunConfig(session_config=given)
    session = _distributed.session_config(config)
    assert list(session.device_filters) == ["/job:ps", "/job:worker/task:1"]
    assert session.intra_op_parallelism_threads == 3
    assert not given.device_filters  # The user's proto is not changed.


def test_own_device_filters_are_kept(monkeypatch):
    _set_tf_config(monkeypatch, "worker", 1)
    given = tf.compat.v1.ConfigProto(device_filters=["/job:ps"])
    assert (
        _distributed.session_config(emg_estimator.RunConfig(session_config=given))
        is None
    )


def test_parameter_server_strategy_is_refused_for_tf_config_ps_jobs():
    strategy = tf.compat.v1.distribute.experimental.ParameterServerStrategy()
    match = (
        r"got a ParameterServerStrategyV1.*leave `train_distribute` unset and "
        r"give `TF_CONFIG` a `ps` job: `emg.estimator.train_and_evaluate` places "
        r"the variables on the ps tasks"
    )
    with pytest.raises(ValueError, match=match):
        emg_estimator.RunConfig(train_distribute=strategy)


def _uninitialised(strategy_class):
    """A strategy of `strategy_class` whose __init__ (cluster setup) never ran."""
    return strategy_class.__new__(strategy_class)


def test_tf2_parameter_server_strategy_names_the_ps_job_alternative():
    strategy = _uninitialised(tf.distribute.experimental.ParameterServerStrategy)
    with pytest.raises(ValueError, match=r"give `TF_CONFIG` a `ps` job: `emg"):
        emg_estimator.RunConfig(train_distribute=strategy)


TF_ESTIMATOR_PS_REFUSAL = (
    "Please use `tf.compat.v1.distribute.experimental.ParameterServerStrategy` "
    "for parameter server strategy with estimator."
)


@pytest.mark.tf_compat
@pytest.mark.parametrize("argument", ["train_distribute", "eval_distribute"])
def test_tf2_parameter_server_strategy_refusal_begins_with_tf_estimators(argument):
    strategy = _uninitialised(tf.distribute.experimental.ParameterServerStrategy)
    begins = "^" + re.escape(TF_ESTIMATOR_PS_REFUSAL) + " "
    with pytest.raises(ValueError, match=begins + r".*`TF_CONFIG` a `ps` job"):
        emg_estimator.RunConfig(**{argument: strategy})
    if emg_estimator.HAS_TF_ESTIMATOR:
        with pytest.raises(ValueError, match=re.escape(TF_ESTIMATOR_PS_REFUSAL)):
            tf.estimator.RunConfig(**{argument: strategy})


@pytest.mark.parametrize(
    "strategy_class",
    [
        tf.distribute.MultiWorkerMirroredStrategy,
        tf.distribute.experimental.MultiWorkerMirroredStrategy,
        tf.compat.v1.distribute.experimental.MultiWorkerMirroredStrategy,
    ],
    ids=["tf2", "tf2_experimental", "v1"],
)
def test_multi_worker_mirrored_strategy_names_emg_distribute(strategy_class):
    match = (
        r"got a MultiWorkerMirroredStrategy \(CollectiveAllReduceStrategy.*\); "
        r".*use `emg.distribute`"
    )
    with pytest.raises(ValueError, match=match):
        emg_estimator.RunConfig(train_distribute=_uninitialised(strategy_class))


def test_empty_tf_config_is_unset(monkeypatch):
    monkeypatch.setenv("TF_CONFIG", "")
    config = emg_estimator.RunConfig()
    assert (config.is_chief, config.cluster_spec.as_dict()) == (True, {})


def test_checkpoint_watch_warns_once_while_nothing_is_new(tmp_path, caplog):
    estimator = emg_estimator.Estimator(_model_fn, model_dir=str(tmp_path))
    watch = _continuous_eval.CheckpointWatch(estimator)
    with caplog.at_level("WARNING", logger="tensorflow"):
        assert [watch.new_checkpoint() for _ in range(3)] == [None] * 3
    assert caplog.text.count("Estimator is not trained yet") == 1
    estimator.train(_input_fn, max_steps=1)
    checkpoint = watch.new_checkpoint()
    assert checkpoint.endswith("model.ckpt-1")
    watch.evaluated(checkpoint)
    caplog.clear()
    with caplog.at_level("WARNING", logger="tensorflow"):
        assert [watch.new_checkpoint() for _ in range(3)] == [None] * 3
    assert caplog.text.count("No new checkpoint ready for evaluation") == 1
