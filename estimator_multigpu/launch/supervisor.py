"""Runs the tasks of a local cluster until the chief ends or a task fails."""

from __future__ import annotations

import signal
import sys
import threading
import time

from estimator_multigpu.launch.plan import Task
from estimator_multigpu.launch.process import TaskProcess

_POLL_SECONDS = 0.05


class Supervisor:
    """Starts every task, watches them, stops them all at the end.

    The job ends when the chief (worker 0 without a chief) exits: with its
    status. Any other task that fails ends it too, with the failing task's
    status, unless it is a worker (not worker 0 standing in for the chief)
    and `max_restarts` allows restarting it with the same `TF_CONFIG`.
    Stopping sends SIGTERM to each task's process group, then SIGKILL after
    `grace_seconds`.
    """

    def __init__(
        self,
        tasks: list[Task],
        command: list[str],
        max_restarts: int = 0,
        grace_seconds: float = 10.0,
        out=None,
    ):
        self._out = out or sys.stdout
        lock = threading.Lock()
        self._procs = [TaskProcess(t, command, self._out, lock) for t in tasks]
        self._lock = lock
        self._max_restarts = max_restarts
        self._grace = grace_seconds
        has_chief = any(t.task_type == "chief" for t in tasks)
        self._primary = "chief:0" if has_chief else "worker:0"

    def run(self) -> int:
        """Runs the job; returns the launcher's exit status."""
        try:
            for proc in self._procs:
                proc.start()
            return self._watch()
        except KeyboardInterrupt as stop:
            signum = getattr(stop, "signum", signal.SIGINT)
            self._say(f"{signal.Signals(signum).name}: stopping all tasks")
            return 128 + signum
        finally:
            self.stop_all()

    def stop_all(self) -> None:
        """SIGTERM to every task still running, SIGKILL after the grace period."""
        started = [p for p in self._procs if p.started]
        running = [p for p in started if p.poll() is None]
        for proc in running:
            proc.signal(signal.SIGTERM)
        deadline = time.monotonic() + self._grace
        while any(p.poll() is None for p in running) and time.monotonic() < deadline:
            time.sleep(_POLL_SECONDS)
        for proc in started:
            proc.signal(signal.SIGKILL)  # Leftover children of exited tasks too.
        for proc in running:
            proc.wait()

    def _watch(self) -> int:
        while True:
            for proc in self._procs:
                status = self._check(proc)
                if status is not None:
                    return status
            time.sleep(_POLL_SECONDS)

    def _check(self, proc: TaskProcess) -> int | None:
        """The job's exit status if `proc` ends the job, else None."""
        if proc.done:
            return None
        code = proc.poll()
        if code is None:
            return None
        name = proc.task.name
        if name == self._primary:
            self._say(f"{name} exited with status {code}: stopping all tasks")
            return code
        if code == 0:
            self._say(f"{name} finished")
            proc.done = True
            return None
        if proc.task.task_type == "worker" and proc.restarts < self._max_restarts:
            proc.restarts += 1
            self._say(f"{name} failed with status {code}: restart {proc.restarts}")
            proc.start()
            return None
        self._say(f"{name} failed with status {code}: stopping all tasks")
        return code

    def _say(self, text: str) -> None:
        with self._lock:
            self._out.write(f"[launch] {text}\n")
            self._out.flush()
