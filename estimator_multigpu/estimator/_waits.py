"""Bounded waits on a cluster's tasks, each logged with the task and address.

A task of a `TF_CONFIG` cluster waits for others twice: its session needs
the parameter servers to answer, and a `SyncReplicasOptimizer` step needs the
gradients of the other training tasks. TensorFlow waits for both forever
and silently; these waits log what they wait for every `LOG_EVERY_SECS`
and end after a bound the user sets.
"""

from __future__ import annotations

import socket
import threading
import time
import weakref

import tensorflow as tf

LOG_EVERY_SECS = 30  # How often a wait says what it still waits for.
# A server wait says nothing this long (a cluster's tasks start together, so
# the first tries often come before a peer listens), or half its bound.
FIRST_LOG_SECS = 5
_POLL_SECS = 0.5
_WATCHES = weakref.WeakSet()  # The StepWatchHooks whose thread may run.


def stop_watching() -> None:
    """Stops every `StepWatchHook`'s thread (a failed step skips `end`)."""
    for hook in list(_WATCHES):
        hook.end(None)


def tasks_of(cluster_spec, jobs: tuple[str, ...]) -> dict[str, str]:
    """`'/job:<job>/task:<i>' -> 'host:port'` for the tasks of `jobs`."""
    found = {}
    for job in jobs:
        if job in cluster_spec.jobs:
            for index in cluster_spec.task_indices(job):
                address = cluster_spec.task_address(job, index)
                found[f"/job:{job}/task:{index}"] = address
    return found


def describe(tasks: dict[str, str]) -> str:
    """`tasks` as `'/job:ps/task:0 at host:port, ...'`."""
    return ", ".join(f"{task} at {address}" for task, address in tasks.items())


def _answers(address: str) -> bool:
    """Whether something accepts TCP connections at `host:port`."""
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=1):
            return True
    except (OSError, ValueError):
        return False


def wait_for_servers(tasks: dict[str, str], timeout_secs: float) -> None:
    """Waits until every task's server accepts connections, at most `timeout_secs`.

    Logs a warning naming the tasks still silent after `FIRST_LOG_SECS` (or
    half of `timeout_secs`, if shorter), then every `LOG_EVERY_SECS`.

    Raises:
      RuntimeError: after `timeout_secs`, naming the tasks and addresses
        that never answered.
    """
    started = time.monotonic()
    next_log = started + min(FIRST_LOG_SECS, timeout_secs / 2)
    pending = dict(tasks)
    while True:
        pending = {t: a for t, a in pending.items() if not _answers(a)}
        if not pending:
            return
        waited = time.monotonic() - started
        if waited >= timeout_secs:
            raise RuntimeError(
                f"No server answered at {describe(pending)} within "
                f"session_creation_timeout_secs={timeout_secs:g} s. Start those "
                "tasks (each runs the same program with its own TF_CONFIG), fix "
                "their addresses in TF_CONFIG, or raise RunConfig("
                "session_creation_timeout_secs=...)."
            )
        if time.monotonic() >= next_log:
            tf.get_logger().warning(
                "Waiting for %s to answer (%d s so far, at most %g s: RunConfig "
                "session_creation_timeout_secs); is that task running?",
                describe(pending),
                waited,
                timeout_secs,
            )
            next_log += LOG_EVERY_SECS
        time.sleep(_POLL_SECS)


class StepWatchHook(tf.compat.v1.train.SessionRunHook):
    """Logs while a step waits on other tasks; optionally bounds the step.

    Args:
      awaited: `task -> address` of the tasks the step may wait for.
      what: what the step waits for, for the log line.
      timeout_secs: a step longer than this fails with
        `tf.errors.DeadlineExceededError`; None: no bound.
      log_every_secs: how often a waiting step is logged.
    """

    def __init__(self, awaited, what, timeout_secs=None, log_every_secs=None):
        self._awaited, self._what = dict(awaited), what
        self._timeout_secs = timeout_secs
        self._log_every = log_every_secs or LOG_EVERY_SECS
        self._step_started = None
        self._next_log = None
        self._stop = threading.Event()
        self._thread = None

    def after_create_session(self, session, coord):
        del session, coord
        self._stop.clear()
        _WATCHES.add(self)
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def before_run(self, run_context):
        del run_context
        self._next_log = self._log_every
        self._step_started = time.monotonic()
        if self._timeout_secs is None:
            return None
        options = tf.compat.v1.RunOptions(timeout_in_ms=int(self._timeout_secs * 1000))
        return tf.compat.v1.train.SessionRunArgs(None, options=options)

    def after_run(self, run_context, run_values):
        del run_context, run_values
        self._step_started = None

    def end(self, session):
        del session
        self._stop.set()

    def _watch(self) -> None:
        poll = min(_POLL_SECS, self._log_every / 4)
        while not self._stop.wait(poll):
            started = self._step_started
            if started is None or time.monotonic() - started < self._next_log:
                continue
            tf.get_logger().warning(
                "A training step has waited %d s for %s: %s. A task that stopped "
                "or died blocks every step%s.",
                time.monotonic() - started,
                self._what,
                describe(self._awaited),
                ""
                if self._timeout_secs is None
                else f"; the step ends at step_timeout_secs={self._timeout_secs:g}",
            )
            self._next_log += self._log_every
