"""One task's process: started in its own process group, output prefixed."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import threading

from estimator_multigpu.launch.plan import Task

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

    def start(self) -> None:
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
        self._pump = threading.Thread(target=self._copy_lines, daemon=True)
        self._pump.start()

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

    def _copy_lines(self) -> None:
        prefix = f"[{self.task.name}] "
        for raw in iter(self._popen.stdout.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\n")
            with self._lock:
                self._out.write(prefix + line + "\n")
                self._out.flush()
        self._popen.stdout.close()
