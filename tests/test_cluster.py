"""TF_CONFIG parsing and validation (estimator_multigpu.cluster)."""

import dataclasses
import json

import pytest

from estimator_multigpu import cluster

_JOBS = {
    "chief": ["127.0.0.1:2000"],
    "worker": ["127.0.0.1:2001", "127.0.0.1:2002"],
    "ps": ["127.0.0.1:2003"],
}


def _config(task, jobs=_JOBS):
    return json.dumps({"cluster": jobs, "task": task})


@pytest.mark.parametrize(
    "task, is_chief",
    [
        ({"type": "chief", "index": 0}, True),
        ({"type": "worker", "index": 1}, False),
        ({"type": "ps", "index": 0}, False),
        ({"type": "evaluator", "index": 0}, False),
    ],
    ids=["chief", "worker1", "ps", "evaluator"],
)
def test_parses_each_task(task, is_chief):
    parsed = cluster.parse_tf_config(_config(task))
    assert (parsed.task_type, parsed.task_index) == (task["type"], task["index"])
    assert parsed.is_chief == is_chief
    assert parsed.num_worker_replicas == 3
    assert parsed.num_ps_replicas == 1
    assert parsed.jobs["worker"] == ("127.0.0.1:2001", "127.0.0.1:2002")


def test_worker0_is_chief_without_chief_job():
    jobs = {"worker": ["127.0.0.1:1", "127.0.0.1:2"]}
    assert cluster.parse_tf_config(
        _config({"type": "worker", "index": 0}, jobs)
    ).is_chief
    assert not cluster.parse_tf_config(
        _config({"type": "worker", "index": 1}, jobs)
    ).is_chief


def test_frozen_and_round_trips():
    parsed = cluster.parse_tf_config(_config({"type": "worker", "index": 1}))
    with pytest.raises(dataclasses.FrozenInstanceError):
        parsed.task_index = 0
    with pytest.raises(TypeError):
        parsed.jobs["ps"] = ("x:1",)
    assert cluster.parse_tf_config(parsed.to_json()) == parsed


@pytest.mark.parametrize(
    "text, match",
    [
        ("{not json", r"TF_CONFIG is not valid JSON .*'\{not json'"),
        ("[1]", r"`TF_CONFIG` must be a JSON object, got \[1\]"),
        (json.dumps({"task": {"type": "worker", "index": 0}}), r"`cluster` is missing"),
        (json.dumps({"cluster": _JOBS}), r"`task` is missing"),
        (_config({"type": "master", "index": 0}), r"`task.type` is 'master'"),
        (_config({"type": "worker"}), r"`task.index` must be an integer, got None"),
        (_config({"type": "worker", "index": "1"}), r"`task.index` must be an integer"),
        (
            _config({"type": "worker", "index": 2}),
            r"`task.index` is 2, out of range .*0\.\.1",
        ),
        (_config({"type": "ps", "index": -1}), r"`task.index` is -1, out of range"),
        (
            _config({"type": "evaluator", "index": 1}),
            r"`task.index` is 1, out of range",
        ),
        (
            _config({"type": "ps", "index": 0}, {"worker": ["a:1"]}),
            r"`task.type` is 'ps' but `cluster` has no `ps` job",
        ),
        (
            _config({"type": "worker", "index": 0}, {**_JOBS, "evaluator": ["a:1"]}),
            r"`cluster.evaluator` is not a known job type",
        ),
        (
            _config({"type": "worker", "index": 0}, {**_JOBS, "worker": "a:1"}),
            r"`cluster.worker` must be a non-empty list",
        ),
        (
            _config({"type": "worker", "index": 0}, {**_JOBS, "worker": ["nohost"]}),
            r"`cluster.worker` has address 'nohost'",
        ),
        (
            _config({"type": "chief", "index": 0}, {"chief": ["a:1", "b:2"]}),
            r"`cluster.chief` has 2 addresses",
        ),
        (
            _config({"type": "ps", "index": 0}, {"ps": ["a:1"]}),
            r"`cluster` has no `chief` or `worker` task",
        ),
        (json.dumps({"cluster": [], "task": {}}), r"`cluster` must be a JSON object"),
    ],
    ids=[
        "bad_json",
        "not_object",
        "no_cluster",
        "no_task",
        "unknown_type",
        "no_index",
        "string_index",
        "index_high",
        "index_negative",
        "evaluator_index",
        "missing_job",
        "evaluator_in_cluster",
        "addresses_not_list",
        "address_no_port",
        "two_chiefs",
        "no_training_task",
        "cluster_not_object",
    ],
)
def test_rejects_malformed(text, match):
    with pytest.raises(ValueError, match=match):
        cluster.parse_tf_config(text)


def test_tf_config_json_validates():
    with pytest.raises(ValueError, match=r"`task.index` is 3, out of range"):
        cluster.tf_config_json({"worker": ["a:1"]}, "worker", 3)
