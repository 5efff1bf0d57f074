"""A watchdog process that takes the tasks' process groups down if the launcher dies.

SIGKILL of the launcher cannot be caught, and `PR_SET_PDEATHSIG` reaches
only each task's own process, not the children it started (`sh -c 'a & b'`,
data loaders, servers). So the launcher starts this file as a small
separate process reading a pipe: the launcher writes `+PGID` when a task's
process group starts and `-PGID` once it is gone. When the pipe ends (the
launcher exited, however it died), every group still listed gets SIGTERM,
then SIGKILL after the grace period.

Run by path (`python reaper.py GRACE`), it imports only the standard library.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

_POLL_SECONDS = 0.05


class Reaper:
    """The launcher's side: starts the watchdog, tells it the task groups.

    If the watchdog dies (someone killed it), the next `check`, `watch` or
    `forget` notices, logs it through `say` and starts a new one told of
    every group still listed, so the launcher carries on and its tasks are
    still taken down if it dies later.

    Args:
      grace_seconds: SIGTERM to SIGKILL, when the watchdog takes a group down.
      say: called with a line of text when the watchdog is restarted.
    """

    def __init__(self, grace_seconds: float, say=None):
        self._grace = grace_seconds
        self._say = say or (lambda text: None)
        self._groups: set[int] = set()
        self._pipe: int | None = None
        self._popen: subprocess.Popen | None = None
        self._start()

    def watch(self, pgid: int) -> None:
        """From now on, the group `pgid` is taken down if the launcher dies."""
        self._groups.add(pgid)
        self._send(f"+{pgid}\n")

    def forget(self, pgid: int) -> None:
        """The group `pgid` is gone (its id may be reused): no longer watched."""
        self._groups.discard(pgid)
        self._send(f"-{pgid}\n")

    def check(self) -> None:
        """Restarts the watchdog if it has died."""
        if self._pipe is not None and self._popen.poll() is not None:
            self._restart()

    def close(self) -> None:
        """Ends the watchdog (it takes down the groups still listed)."""
        if self._pipe is not None:
            os.close(self._pipe)
            self._pipe = None
            self._popen.wait()

    def _start(self) -> None:
        read_end, self._pipe = os.pipe()  # Not inherited by the tasks.
        try:
            self._popen = subprocess.Popen(
                [sys.executable, "-I", os.path.abspath(__file__), repr(self._grace)],
                stdin=read_end,
                stdout=subprocess.DEVNULL,
                start_new_session=True,  # Outlives the launcher, away from Ctrl-C.
            )
        finally:
            os.close(read_end)
        lines = "".join(f"+{pgid}\n" for pgid in sorted(self._groups))
        if lines:
            os.write(self._pipe, lines.encode())

    def _restart(self) -> None:
        code = self._popen.wait()
        os.close(self._pipe)
        self._pipe = None
        status = f"signal {-code}" if code < 0 else f"status {code}"
        self._say(
            f"watchdog (pid {self._popen.pid}) ended with {status}: starting a "
            "new one for the tasks still running"
        )
        self._start()

    def _send(self, line: str) -> None:
        if self._pipe is None:
            return
        try:
            os.write(self._pipe, line.encode())
        except BrokenPipeError:  # The watchdog died: the new one gets all groups.
            self._restart()


def _exists(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _signal_groups(groups: set[int], signum: int) -> None:
    for pgid in groups:
        try:
            os.killpg(pgid, signum)
        except (ProcessLookupError, PermissionError):
            pass


def take_down(groups: set[int], grace_seconds: float) -> None:
    """SIGTERM to each of `groups`, SIGKILL to those left after the grace."""
    _signal_groups(groups, signal.SIGTERM)
    deadline = time.monotonic() + grace_seconds
    while any(map(_exists, groups)) and time.monotonic() < deadline:
        time.sleep(_POLL_SECONDS)
    _signal_groups(groups, signal.SIGKILL)


def read_groups(stream) -> set[int]:
    """The groups listed when `stream` ends: `+PGID` adds one, `-PGID` drops it."""
    groups: set[int] = set()
    for line in stream:
        sign, pgid = line[:1], int(line[1:])
        (groups.add if sign == "+" else groups.discard)(pgid)
    return groups


def main(argv: list[str]) -> int:
    """The watchdog: waits for the launcher's pipe to end, then takes down."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    grace = float(argv[1])
    take_down(read_groups(sys.stdin), grace)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
