"""The tasks of a local cluster: free ports on 127.0.0.1 and one TF_CONFIG each."""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import json
import socket

from estimator_multigpu import cluster

HOST = "127.0.0.1"


@dataclasses.dataclass(frozen=True)
class Task:
    """One process of the cluster.

    Attributes:
      task_type: `'chief'`, `'worker'`, `'ps'` or `'evaluator'`.
      index: the task's index in its job.
      tf_config: its `TF_CONFIG` JSON text (validated).
    """

    task_type: str
    index: int
    tf_config: str

    @property
    def name(self) -> str:
        """`'worker:1'`: the prefix of its output lines."""
        return f"{self.task_type}:{self.index}"

    @property
    def address(self) -> str | None:
        """Its `host:port` in the cluster; None for an evaluator."""
        jobs = json.loads(self.tf_config)["cluster"].get(self.task_type, [])
        return jobs[self.index] if self.index < len(jobs) else None


def port_in_use(address: str) -> bool:
    """Whether another process listens on `address` (`'host:port'`) now."""
    host, _, port = address.rpartition(":")
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, int(port)))
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                return True
            raise
    return False


def free_ports(count: int) -> list[int]:
    """`count` distinct ports that are free on 127.0.0.1 right now."""
    with contextlib.ExitStack() as stack:
        sockets = []
        for _ in range(count):
            sock = stack.enter_context(socket.socket())
            sock.bind((HOST, 0))
            sockets.append(sock)
        return [sock.getsockname()[1] for sock in sockets]


def plan_tasks(
    ps: int, workers: int, chief: bool = False, evaluator: bool = False
) -> list[Task]:
    """The tasks of a local cluster, training tasks first.

    Args:
      ps: number of parameter-server tasks (>= 0).
      workers: number of worker tasks (>= 0; >= 1 without a chief).
      chief: add a `chief` task.
      evaluator: add an `evaluator` task (outside the cluster).

    Returns:
      The tasks, each with its validated `TF_CONFIG`.

    Raises:
      ValueError: a count below 0, or no chief and no worker.
    """
    _check_counts(ps, workers, chief)
    sizes = {"chief": int(chief), "worker": workers, "ps": ps}
    ports = iter(free_ports(sum(sizes.values())))
    jobs = {
        name: [f"{HOST}:{next(ports)}" for _ in range(size)]
        for name, size in sizes.items()
        if size
    }
    tasks = [
        Task(name, index, cluster.tf_config_json(jobs, name, index))
        for name in jobs
        for index in range(len(jobs[name]))
    ]
    if evaluator:
        tasks.append(Task("evaluator", 0, cluster.tf_config_json(jobs, "evaluator", 0)))
    return tasks


def _check_counts(ps: int, workers: int, chief: bool) -> None:
    for name, value in (("ps", ps), ("workers", workers)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"`{name}` must be an integer >= 0, got {value!r}.")
    if not chief and workers == 0:
        raise ValueError(
            "`workers` is 0 and there is no chief: pass `workers` >= 1 or "
            "`chief=True` (--chief)."
        )
