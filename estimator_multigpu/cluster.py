"""`TF_CONFIG` (tf.estimator's format) parsed and validated into a frozen `Cluster`.

Pure functions, no TensorFlow: the launcher checks a cluster before it starts
a process, and a trainer can check its own `TF_CONFIG` before it builds a
graph. The format is tf.estimator's:

    {"cluster": {"chief": ["host:port"], "worker": [...], "ps": [...]},
     "task": {"type": "worker", "index": 1}}

The evaluator is outside the cluster: its task is `{"type": "evaluator",
"index": 0}` and no `"evaluator"` job is listed under `"cluster"`.
"""

from __future__ import annotations

import dataclasses
import json
import types

__all__ = [
    "CLUSTER_JOBS",
    "TASK_TYPES",
    "Cluster",
    "parse_tf_config",
    "tf_config_json",
]

CLUSTER_JOBS = ("chief", "worker", "ps")
TASK_TYPES = (*CLUSTER_JOBS, "evaluator")


@dataclasses.dataclass(frozen=True)
class Cluster:
    """One task's view of a cluster.

    Attributes:
      jobs: job name -> tuple of `host:port` addresses (read-only mapping).
      task_type: one of `TASK_TYPES`.
      task_index: the task's index in its job (0 for the evaluator).
    """

    jobs: types.MappingProxyType
    task_type: str
    task_index: int

    @property
    def is_chief(self) -> bool:
        """The chief, or worker 0 of a cluster without a chief."""
        if "chief" in self.jobs:
            return self.task_type == "chief"
        return self.task_type == "worker" and self.task_index == 0

    @property
    def num_worker_replicas(self) -> int:
        """Training tasks: chief plus workers."""
        return len(self.jobs.get("chief", ())) + len(self.jobs.get("worker", ()))

    @property
    def num_ps_replicas(self) -> int:
        return len(self.jobs.get("ps", ()))

    def to_json(self) -> str:
        """This cluster as a `TF_CONFIG` string."""
        return tf_config_json(dict(self.jobs), self.task_type, self.task_index)


def tf_config_json(jobs: dict, task_type: str, task_index: int) -> str:
    """A `TF_CONFIG` string for one task of `jobs` (validated first).

    Args:
      jobs: `{job name: [host:port, ...]}`, the cluster (chief, worker, ps).
      task_type: this task's job (or `"evaluator"`, which is not in `jobs`).
      task_index: this task's index in its job.

    Returns:
      The JSON text, as `parse_tf_config` accepts it.

    Raises:
      ValueError: naming the field that tf.estimator would refuse.
    """
    text = json.dumps(
        {
            "cluster": {name: list(addrs) for name, addrs in jobs.items()},
            "task": {"type": task_type, "index": task_index},
        }
    )
    parse_tf_config(text)
    return text


def parse_tf_config(text: str) -> Cluster:
    """Parses and validates a `TF_CONFIG` string.

    Args:
      text: the JSON text of `TF_CONFIG`.

    Returns:
      The `Cluster` it describes.

    Raises:
      ValueError: bad JSON, or a field that is missing, of the wrong kind or
        out of range; the message names the field.
    """
    try:
        config = json.loads(text)
    except (TypeError, json.JSONDecodeError) as error:
        raise ValueError(
            f"TF_CONFIG is not valid JSON ({error}): {text!r}. Write it as "
            '\'{"cluster": {...}, "task": {"type": "worker", "index": 0}}\'.'
        ) from None
    _expect_dict(config, "TF_CONFIG")
    jobs = _jobs(config.get("cluster"))
    task_type, task_index = _task(config.get("task"), jobs)
    return Cluster(types.MappingProxyType(jobs), task_type, task_index)


def _expect_dict(value, field: str) -> None:
    if not isinstance(value, dict):
        raise ValueError(
            f"TF_CONFIG field `{field}` must be a JSON object, got {value!r}."
        )


def _jobs(cluster) -> dict[str, tuple[str, ...]]:
    if cluster is None:
        raise ValueError(
            "TF_CONFIG field `cluster` is missing; list the jobs, e.g. "
            '"cluster": {"worker": ["127.0.0.1:2222"]}.'
        )
    _expect_dict(cluster, "cluster")
    jobs = {}
    for name, addresses in cluster.items():
        if name not in CLUSTER_JOBS:
            raise ValueError(
                f"TF_CONFIG field `cluster.{name}` is not a known job type; "
                f"use one of {list(CLUSTER_JOBS)} (the evaluator is not "
                "listed in the cluster)."
            )
        jobs[name] = _addresses(addresses, f"cluster.{name}")
    if len(jobs.get("chief", ())) > 1:
        raise ValueError(
            f"TF_CONFIG field `cluster.chief` has {len(jobs['chief'])} "
            "addresses; a cluster has at most one chief."
        )
    if not jobs.get("chief") and not jobs.get("worker"):
        raise ValueError(
            "TF_CONFIG field `cluster` has no `chief` or `worker` task; "
            "add at least one training task."
        )
    return jobs


def check_addresses(jobs: dict) -> None:
    """Raises unless every address of `jobs` (name -> list) is `host:port`.

    Raises:
      ValueError: naming the job and the address, with the fix.
    """
    for name, addresses in jobs.items():
        _addresses(list(addresses), f"cluster.{name}")


def _addresses(addresses, field: str) -> tuple[str, ...]:
    if not isinstance(addresses, list) or not addresses:
        raise ValueError(
            f"TF_CONFIG field `{field}` must be a non-empty list of "
            f'"host:port" strings, got {addresses!r}.'
        )
    for address in addresses:
        host, _, port = str(address).rpartition(":")
        if not isinstance(address, str) or not host or not port.isdigit():
            raise ValueError(
                f"TF_CONFIG field `{field}` has address {address!r}; "
                'write each address as "host:port".'
            )
    return tuple(addresses)


def _task(task, jobs: dict) -> tuple[str, int]:
    if task is None:
        raise ValueError(
            "TF_CONFIG field `task` is missing; add e.g. "
            '"task": {"type": "worker", "index": 0}.'
        )
    _expect_dict(task, "task")
    task_type, index = task.get("type"), task.get("index")
    if task_type not in TASK_TYPES:
        raise ValueError(
            f"TF_CONFIG field `task.type` is {task_type!r}; use one of "
            f"{list(TASK_TYPES)}."
        )
    if isinstance(index, bool) or not isinstance(index, int):
        raise ValueError(
            f"TF_CONFIG field `task.index` must be an integer, got {index!r}."
        )
    size = 1 if task_type == "evaluator" else len(jobs.get(task_type, ()))
    if not size:
        raise ValueError(
            f"TF_CONFIG field `task.type` is {task_type!r} but `cluster` has "
            f"no `{task_type}` job; add it to `cluster`."
        )
    if not 0 <= index < size:
        raise ValueError(
            f"TF_CONFIG field `task.index` is {index}, out of range for "
            f"{size} {task_type!r} task(s); use 0..{size - 1}."
        )
    return task_type, index
