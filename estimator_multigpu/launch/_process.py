"""One task's process: started in its own process group, output prefixed."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import threading

from estimator_multigpu.launch._plan import Task

_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """Runs in the child before exec: killed if the launcher dies (Linux)."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


class TaskProcess:
    """The running process of a `Task`, whose lines go to `out` prefixed."""

    def __init__(self, task: Task, command: list[str], out, lock: threading.Lock):
        self.task = task
        self.restarts = 0
        self.done = False  # Exited with status 0; not watched any more.
        self._command = command
        self._out = out
        self._lock = lock
        self._popen: subprocess.Popen | None = None
        self._pump: threading.Thread | None = None
        self.reaper = None  # A `Reaper` told of each process group started.

    def start(self) -> None:
        """Starts (or restarts) the task in a new process group.

        A restart first kills what is left of the previous group (children
        the failed task started), which might hold its port.
        """
        if self._popen is not None:
            self.signal(signal.SIGKILL)
            self._forget()
        env = dict(os.environ, TF_CONFIG=self.task.tf_config, PYTHONUNBUFFERED="1")
        self._popen = subprocess.Popen(
            self._command,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )
        if self.reaper is not None:
            self.reaper.watch(self._popen.pid)
        self._pump = threading.Thread(target=self._copy_lines, daemon=True)
        self._pump.start()

    @property
    def command(self) -> list[str]:
        """The command line every start runs."""
        return self._command

    @property
    def started(self) -> bool:
        return self._popen is not None

    def wait(self) -> None:
        """Waits for the process and for the last of its output lines."""
        self._popen.wait()
        self._pump.join(timeout=5)

    def finish_output(self, timeout: float) -> bool:
        """Waits up to `timeout` s for the last of the task's lines to be copied.

        Once the task's process group is gone the output ends, however much of
        it is still to copy. Returns False if it is still open (a process
        outside the group holds it).
        """
        self._pump.join(timeout=timeout)
        return not self._pump.is_alive()

    @property
    def pid(self) -> int:
        return self._popen.pid

    def poll(self) -> int | None:
        """None while running, else the exit status (128 + signal if killed)."""
        code = self._popen.poll()
        if code is None:
            return None
        self._pump.join(timeout=5)
        return 128 - code if code < 0 else code

    def signal(self, signum: int) -> None:
        """Sends `signum` to the task's whole process group."""
        try:
            os.killpg(self._popen.pid, signum)
        except (ProcessLookupError, PermissionError):
            pass

    def kill_group(self) -> None:
        """SIGKILL to the whole group (leftover children of an exited task too)."""
        self.signal(signal.SIGKILL)
        self._forget()

    def _forget(self) -> None:
        if self.reaper is not None:
            self.reaper.forget(self._popen.pid)

    def _copy_lines(self) -> None:
        prefix = f"[{self.task.name}] "
        for raw in iter(self._popen.stdout.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\n")
            with self._lock:
                self._out.write(prefix + line + "\n")
                self._out.flush()
        self._popen.stdout.close()
