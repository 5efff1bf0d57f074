"""Is the process that wrote a lock still running? pid, start time, pid namespace."""

from __future__ import annotations

import errno
import os


def pid_namespace() -> str | None:
    """The pid namespace (`pid:[4026531836]`); containers on one host differ."""
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return None


def start_time(pid: int) -> str | None:
    """The start time of process `pid` in clock ticks (Linux), else None."""
    stat = _proc_stat(pid)
    return stat[19] if stat else None


def _proc_stat(pid: int) -> list[str] | None:
    """Fields of `/proc/<pid>/stat` after the command name; None if absent."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()


def is_running(pid, start: str | None) -> bool:
    """Whether `pid` is a live (non-zombie) process that started at `start`."""
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)  # Signal 0: only checks that the process exists.
    except ProcessLookupError:
        return False
    except OSError as error:
        if error.errno != errno.EPERM:  # EPERM: it exists, owned by another user.
            return False
    stat = _proc_stat(pid)
    if stat is None:  # No /proc (or it hides other users' processes).
        return True
    if stat[0] == "Z":
        return False
    return start is None or stat[19] == start  # Else its pid was reused.
