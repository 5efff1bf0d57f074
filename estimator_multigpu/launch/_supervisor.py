"""Runs the tasks of a local cluster until the chief ends or a task fails."""

from __future__ import annotations

import signal
import sys
import threading
import time

from estimator_multigpu.launch._plan import Task, port_in_use
from estimator_multigpu.launch._process import TaskProcess
from estimator_multigpu.launch._reaper import Reaper

_POLL_SECONDS = 0.05
_OUTPUT_SECONDS = 60.0  # Bounds the wait for a task's output to end.
_PORT_IN_USE_STATUS = 1
_PORT_WAIT_SECONDS = 2.0
_CANNOT_EXECUTE_STATUS = 126  # As a shell reports a command it cannot run.


def _taken(address: str) -> bool:
    """In use for `_PORT_WAIT_SECONDS` (killed children may still be closing)."""
    deadline = time.monotonic() + _PORT_WAIT_SECONDS
    while port_in_use(address):
        if time.monotonic() > deadline:
            return True
        time.sleep(_POLL_SECONDS)
    return False


class _PortInUse(Exception):
    """A task's port is taken by a process outside the cluster."""


class _CannotExecute(Exception):
    """The command cannot be started (exec failed)."""


class Supervisor:
    """Starts every task, watches them, stops them all at the end.

    The job ends when the chief (worker 0 without a chief) exits: with its
    status. Any other task that fails ends it too, with the failing task's
    status, unless it is a worker (not worker 0 standing in for the chief)
    and `max_restarts` allows restarting it with the same `TF_CONFIG`.
    Stopping sends SIGTERM to each task's process group, then SIGKILL after
    `grace_seconds`.

    When the chief finishes with status 0, an evaluator still running gets
    up to `evaluator_grace_seconds` to evaluate the final checkpoint and exit
    by itself (the other tasks are stopped at once); then it is stopped. A
    failing evaluator then ends the job with its status.

    Args:
      tasks: the cluster's tasks (`plan_tasks`), each run with its TF_CONFIG.
      command: the program every task runs.
      max_restarts: how many times a failed worker is restarted.
      grace_seconds: SIGTERM to SIGKILL, when stopping a task.
      out: where the tasks' prefixed output goes (default stdout).
      evaluator_grace_seconds: how long an evaluator may still run after the
        chief finished with status 0.
    """

    def __init__(
        self,
        tasks: list[Task],
        command: list[str],
        max_restarts: int = 0,
        grace_seconds: float = 10.0,
        out=None,
        evaluator_grace_seconds: float = 120.0,
    ):
        self._out = out or sys.stdout
        lock = threading.RLock()  # Also taken by `_kill_now`, a signal handler.
        self._procs = [TaskProcess(t, command, self._out, lock) for t in tasks]
        self._lock = lock
        self._max_restarts = max_restarts
        self._grace = grace_seconds
        self._evaluator_grace = evaluator_grace_seconds
        has_chief = any(t.task_type == "chief" for t in tasks)
        self._primary = "chief:0" if has_chief else "worker:0"
        self._reaper: Reaper | None = None

    def run(self) -> int:
        """Runs the job; returns the launcher's exit status.

        A watchdog process takes every task's process group down if the
        launcher itself dies, even by SIGKILL (a new one is started if it
        dies). Once stopping has begun, Ctrl-C or SIGTERM (a second one, on
        Ctrl-C) kills every task at once instead of waiting out the grace.
        """
        reaper = Reaper(self._grace, say=self._say)
        self._reaper = reaper
        try:
            for proc in self._procs:
                proc.reaper = reaper
            for proc in self._procs:
                self._check_port(proc)
            for proc in self._procs:
                self._start(proc)
            return self._watch()
        except _PortInUse as error:
            self._say(f"{error}")
            return _PORT_IN_USE_STATUS
        except _CannotExecute as error:
            self._say(f"{error}")
            return _CANNOT_EXECUTE_STATUS
        except KeyboardInterrupt as stop:
            signum = getattr(stop, "signum", signal.SIGINT)
            self._say(f"{signal.Signals(signum).name}: stopping all tasks")
            return 128 + signum
        finally:
            previous = self._kill_on_next_signal()
            self.stop_all()
            reaper.close()
            for signum, handler in previous.items():
                signal.signal(signum, handler)

    def _kill_on_next_signal(self) -> dict:
        """Makes SIGINT and SIGTERM kill the tasks; returns the old handlers."""
        if threading.current_thread() is not threading.main_thread():
            return {}
        return {
            signum: signal.signal(signum, self._kill_now)
            for signum in (signal.SIGINT, signal.SIGTERM)
        }

    def _kill_now(self, signum, frame) -> None:
        """While stopping: SIGKILL to every task's group, no more grace."""
        self._say(f"{signal.Signals(signum).name} while stopping: killing all tasks")
        for proc in self._procs:
            if proc.started:
                proc.signal(signal.SIGKILL)

    def stop_all(self) -> None:
        """SIGTERM to every task still running, SIGKILL after the grace period."""
        self._stop(self._procs)

    def _stop(self, procs: list[TaskProcess]) -> None:
        """SIGTERM to each of `procs` still running, SIGKILL after the grace."""
        started = [p for p in procs if p.started]
        running = [p for p in started if p.poll() is None]
        for proc in running:
            proc.signal(signal.SIGTERM)
        deadline = time.monotonic() + self._grace
        while any(p.poll() is None for p in running) and time.monotonic() < deadline:
            time.sleep(_POLL_SECONDS)
        for proc in started:
            proc.kill_group()  # Leftover children of exited tasks too.
        for proc in running:
            proc.wait()
        for proc in started:  # Every line of every task, before the launcher exits.
            if not proc.finish_output(_OUTPUT_SECONDS):
                self._say(f"{proc.task.name}: output still open; not waiting for it")

    def _watch(self) -> int:
        while True:
            for proc in self._procs:
                status = self._check(proc)
                if status is not None:
                    return status
            self._reaper.check()
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
            evaluators = self._running_evaluators() if code == 0 else []
            if evaluators:
                return self._finish_evaluation(name, evaluators)
            self._say(f"{name} exited with status {code}: stopping all tasks")
            return code
        if code == 0:
            self._say(f"{name} finished")
            proc.done = True
            return None
        if proc.task.task_type == "worker" and proc.restarts < self._max_restarts:
            proc.restarts += 1
            self._say(f"{name} failed with status {code}: restart {proc.restarts}")
            proc.kill_group()  # Its leftover children may hold its port.
            self._check_port(proc)
            self._start(proc)
            return None
        self._say(f"{name} failed with status {code}: stopping all tasks")
        return code

    def _start(self, proc: TaskProcess) -> None:
        """Starts `proc`; `_CannotExecute` naming the command if exec fails."""
        try:
            proc.start()
        except OSError as error:
            program = proc.command[0]
            raise _CannotExecute(
                f"{proc.task.name}: cannot run {program!r}: "
                f"{error.strerror or error}; a script without a #! line? Run it "
                f"through its interpreter (-- python {program} ...) or fix the "
                "command after `--`."
            ) from None

    def _check_port(self, proc: TaskProcess) -> None:
        """Raises `_PortInUse` naming the task if its port is taken."""
        address = proc.task.address
        if address is None or not _taken(address):
            return
        raise _PortInUse(
            f"{proc.task.name}: its port {address} (in its TF_CONFIG) is in "
            "use by another process, so the task could not serve on it; not "
            "starting it: stopping all tasks. Stop that process (`ss -ltnp "
            f"'sport = :{address.rpartition(':')[2]}'` shows it), or run the "
            "launcher again: it picks new free ports each time."
        )

    def _running_evaluators(self) -> list[TaskProcess]:
        return [
            p
            for p in self._procs
            if p.task.task_type == "evaluator" and p.started and p.poll() is None
        ]

    def _finish_evaluation(self, name: str, evaluators: list[TaskProcess]) -> int:
        """Stops all but `evaluators`, waits for them; the job's exit status."""
        grace = self._evaluator_grace
        self._say(
            f"{name} exited with status 0: stopping all tasks but the evaluator, "
            f"which gets up to {grace:g} s to finish"
        )
        self._stop([p for p in self._procs if p not in evaluators])
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            codes = [p.poll() for p in evaluators]
            if None not in codes:
                return self._evaluation_status(evaluators, codes)
            self._reaper.check()
            time.sleep(_POLL_SECONDS)
        names = ", ".join(p.task.name for p in evaluators)
        self._say(f"{names} still running after {grace:g} s: stopping it")
        return 0

    def _evaluation_status(self, evaluators, codes) -> int:
        """0 when every evaluator finished, else the first failing status."""
        for proc, code in zip(evaluators, codes):
            if code:
                self._say(f"{proc.task.name} failed with status {code}")
                return code
            self._say(f"{proc.task.name} finished")
        return 0

    def _say(self, text: str) -> None:
        with self._lock:
            self._out.write(f"[launch] {text}\n")
            self._out.flush()
