"""RunConfig reads TF_CONFIG as tf.estimator did: same acceptance, its text first.

Golden: every case runs against `emg_estimator.RunConfig` and, on the TF 2.15
leg, against the real `tf.estimator.RunConfig`; both accept or both refuse
(with tf.estimator's message at the start of ours), and accepted configs give
the same cluster properties. One deliberate extension: a cluster without a
`chief` job has worker 0 as its chief (the launcher's layout), which
tf.estimator refused. What RunConfig accepts but a cluster cannot run (an
evaluator index other than 0, a custom task type, an address without a
port) is refused by `train_and_evaluate`, before anything starts.
"""

import json
import re

import numpy as np
import pytest
import tensorflow as tf

from estimator_multigpu import estimator as emg_estimator

pytestmark = pytest.mark.tf_compat

JOBS = {
    "chief": ["host0:2222"],
    "worker": ["host1:2222", "host2:2222"],
    "ps": ["host3:2222"],
}
PROPERTIES = (
    "task_type",
    "task_id",
    "is_chief",
    "master",
    "evaluation_master",
    "num_ps_replicas",
    "num_worker_replicas",
    "global_id_in_cluster",
)


def _config(cluster, task_type=None, index=None, **extra):
    config = dict(extra)
    if cluster is not None:
        config["cluster"] = cluster
    task = {}
    if task_type is not None:
        task["type"] = task_type
    if index is not None:
        task["index"] = index
    if task or "task" not in extra:
        config.setdefault("task", task)
    return config


ACCEPTED = {
    "chief": _config(JOBS, "chief", 0),
    "worker": _config(JOBS, "worker", 1),
    "ps": _config(JOBS, "ps", 0),
    "evaluator": _config(JOBS, "evaluator", 0),
    "evaluator_index_3": _config(JOBS, "evaluator", 3),
    "custom_job_task": _config(dict(JOBS, foo=["host4:2222"]), "foo", 0),
    "custom_job_beside": _config(dict(JOBS, foo=["host4:2222"]), "worker", 0),
    "evaluator_job_listed": _config(dict(JOBS, evaluator=["h:1"]), "chief", 0),
    "index_as_string": _config(JOBS, "worker", "1"),
    "address_without_port": _config({"chief": ["nohost"], "ps": ["h:1"]}, "chief", 0),
    "master": _config({"master": ["m:1"], "worker": ["w:1"]}, "worker", 0),
    "local": _config(None, "worker", 0),
}

# name -> (TF_CONFIG, exception type, tf.estimator's text).
REFUSED = {
    "two_chiefs": (
        _config(dict(JOBS, chief=["a:1", "b:1"]), "chief", 0),
        ValueError,
        'The "cluster" in TF_CONFIG must have only one "chief" node.',
    ),
    "no_task_type": (
        _config(JOBS, None, 0),
        ValueError,
        'If "cluster" is set in TF_CONFIG, task type must be set.',
    ),
    "no_task": (
        {"cluster": JOBS},
        ValueError,
        'If "cluster" is set in TF_CONFIG, task type must be set.',
    ),
    "no_task_index": (
        _config(JOBS, "worker"),
        ValueError,
        'If "cluster" is set in TF_CONFIG, task index must be set.',
    ),
    "negative_index": (
        _config(JOBS, "worker", -1),
        ValueError,
        "Task index must be non-negative number.",
    ),
    "unknown_type": (
        _config(JOBS, "boss", 0),
        ValueError,
        "boss is not a valid task_type in the cluster_spec:",
    ),
    "index_out_of_range": (
        _config(JOBS, "worker", 2),
        ValueError,
        "2 is not a valid task_id for task_type worker in the cluster_spec:",
    ),
    "local_not_worker": (
        _config(None, "ps", 0),
        ValueError,
        'If "cluster" is not set in TF_CONFIG, task type must be WORKER.',
    ),
    "local_index": (
        _config(None, "worker", 1),
        ValueError,
        'If "cluster" is not set in TF_CONFIG, task index must be 0.',
    ),
    "master_and_chief": (
        _config(dict(JOBS, master=["m:1"]), "chief", 0),
        ValueError,
        "If `master` node exists in `cluster`, job `chief` is not supported.",
    ),
    "master_evaluator": (
        _config({"master": ["m:1"]}, "evaluator", 0),
        ValueError,
        "If `master` node exists in `cluster`, task_type `evaluator` is not",
    ),
    "only_ps": (
        _config({"ps": ["h:1"]}, "ps", 0),
        ValueError,
        'If "cluster" is set in TF_CONFIG, it must have one "chief" node.',
    ),
    "service_not_dict": (
        _config(JOBS, "chief", 0, service=[1]),
        TypeError,
        'If "service" is set in TF_CONFIG, it must be a dict.',
    ),
}

# Accepted by emg only: worker 0 is the chief of a cluster without a chief.
EXTENSIONS = {
    "no_chief_worker0": (
        _config({"worker": ["w:1", "w:2"], "ps": ["p:1"]}, "worker", 0),
        'If "cluster" is set in TF_CONFIG, it must have one "chief" node.',
    ),
}

IMPLEMENTATIONS = ["emg", "tf_estimator"]


def _run_config_class(impl):
    if impl == "emg":
        return emg_estimator.RunConfig
    if not emg_estimator.HAS_TF_ESTIMATOR:
        pytest.skip("tf.estimator (the reference) exists on TF <= 2.15 only")
    return tf.estimator.RunConfig


def _properties(config) -> dict:
    values = {name: getattr(config, name) for name in PROPERTIES}
    values["cluster_spec"] = config.cluster_spec.as_dict()
    return values


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_accepted_as_tf_estimator_accepted(monkeypatch, name):
    monkeypatch.setenv("TF_CONFIG", json.dumps(ACCEPTED[name]))
    emg_values = _properties(emg_estimator.RunConfig())
    if emg_estimator.HAS_TF_ESTIMATOR:
        assert emg_values == _properties(tf.estimator.RunConfig())


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_with_tf_estimators_text_first(monkeypatch, impl, name):
    tf_config, error, text = REFUSED[name]
    run_config = _run_config_class(impl)
    monkeypatch.setenv("TF_CONFIG", json.dumps(tf_config))
    with pytest.raises(error, match="^" + re.escape(text)) as raised:
        run_config()
    if impl == "emg":
        assert "TF_CONFIG" in str(raised.value)


@pytest.mark.parametrize("name", sorted(EXTENSIONS))
def test_worker0_chief_is_an_extension_tf_estimator_refused(monkeypatch, name):
    tf_config, text = EXTENSIONS[name]
    monkeypatch.setenv("TF_CONFIG", json.dumps(tf_config))
    config = emg_estimator.RunConfig()
    assert (config.task_type, config.is_chief) == ("worker", True)
    if emg_estimator.HAS_TF_ESTIMATOR:
        with pytest.raises(ValueError, match="^" + re.escape(text)):
            tf.estimator.RunConfig()


@pytest.mark.parametrize(
    "message, hint",
    [
        ("unknown_type", r"`task.type` is 'boss'; use a job of `cluster`"),
        ("index_out_of_range", r"`task.index` is 2, out of range for 2 'worker'"),
        ("no_task", r"add e.g. \"task\": \{\"type\": \"worker\", \"index\": 0\}"),
    ],
    ids=["type", "index", "task"],
)
def test_refusals_add_the_field_and_the_fix(monkeypatch, message, hint):
    monkeypatch.setenv("TF_CONFIG", json.dumps(REFUSED[message][0]))
    with pytest.raises(ValueError, match=hint):
        emg_estimator.RunConfig()


# Accepted by RunConfig, refused when the cluster is to run.


def _model_fn(features, labels, mode):
    weights = tf.compat.v1.get_variable("w", [4, 1])
    loss = tf.reduce_mean(tf.square(tf.matmul(features, weights) - labels))
    step = tf.compat.v1.train.get_or_create_global_step()
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=step
    )
    return emg_estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def _input_fn():
    x = np.ones([8, 4], np.float32)
    return tf.data.Dataset.from_tensor_slices((x, x[:, :1])).batch(4)


@pytest.mark.parametrize(
    "name, match",
    [
        (
            "evaluator_index_3",
            r"^For distributed training, there can only be one `evaluator` task",
        ),
        ("custom_job_task", r"^Task type foo is not supported"),
        (
            "address_without_port",
            r"TF_CONFIG field `cluster.chief` has address 'nohost'; write each "
            r"address as \"host:port\"",
        ),
    ],
    ids=["evaluator_index", "custom_type", "address"],
)
def test_train_and_evaluate_refuses_what_cannot_run(monkeypatch, tmp_path, name, match):
    monkeypatch.setenv("TF_CONFIG", json.dumps(ACCEPTED[name]))
    estimator = emg_estimator.Estimator(_model_fn, model_dir=str(tmp_path))
    train_spec = emg_estimator.TrainSpec(_input_fn, max_steps=1)
    eval_spec = emg_estimator.EvalSpec(_input_fn, steps=1)
    with pytest.raises(ValueError, match=match):
        emg_estimator.train_and_evaluate(estimator, train_spec, eval_spec)
    assert not list(tmp_path.iterdir())  # Refused before anything ran.
