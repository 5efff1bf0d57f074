"""One trainer per `model_dir`: a lock file that names the process holding it.

`Estimator.train` holds the lock while it runs; `evaluate`, `predict` and
`export_saved_model` only read checkpoints and take no lock. The lock file
(`model_dir/.emg-train.lock`, JSON) is created with `O_CREAT | O_EXCL`, so
exactly one of several processes starting together gets it, and it records
the holder's pid, host and start time. It is removed when training ends,
also on an exception. A lock left by a killed process on this host is taken
over with a warning; a lock from another host is never broken (its process
cannot be checked from here): the error says how to remove it.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import socket
import sys
import time
import uuid
from collections.abc import Iterator

import tensorflow as tf

from estimator_multigpu.estimator import _processes

LOCK_NAME = ".emg-train.lock"
_TAKEOVER_SUFFIX = ".takeover"
_READ_RETRIES = 20  # A new lock file is empty until its creator writes it.
_RETRY_SECS = 0.05


class ModelDirLockedError(RuntimeError):
    """Another process trains in the same `model_dir`."""


def lock_path(model_dir: str) -> str:
    """Where the training lock of `model_dir` lives."""
    return os.path.join(model_dir, LOCK_NAME)


def is_local(model_dir: str) -> bool:
    """False for paths of remote file systems (`gs://...`), which cannot be locked."""
    return "://" not in model_dir


@contextlib.contextmanager
def hold(model_dir: str) -> Iterator[dict | None]:
    """Holds the training lock of `model_dir` for the duration of the block.

    Creates `model_dir` if needed (and removes it again if it is still empty
    at the end). Yields the lock's contents, or None for a remote `model_dir`.

    Raises:
      ModelDirLockedError: if another live process holds the lock.
      ValueError: if `model_dir` cannot be created or written.
    """
    if not is_local(model_dir):
        tf.get_logger().warning(
            "model_dir %s is not on a local file system: training cannot lock "
            "it against a second trainer; make sure only one process trains it.",
            model_dir,
        )
        yield None
        return
    created = _make_dir(model_dir)
    try:
        holder = acquire(model_dir)
        try:
            yield holder
        finally:
            release(model_dir, holder)
    finally:
        if created:
            _remove_if_empty(model_dir)


def _make_dir(model_dir: str) -> bool:
    """Creates `model_dir`; returns whether it was created by this call."""
    if os.path.isdir(model_dir):
        return False
    try:
        os.makedirs(model_dir)
    except FileExistsError:
        return False
    except OSError as error:
        raise _not_writable(model_dir, error) from error
    return True


def _remove_if_empty(model_dir: str) -> None:
    with contextlib.suppress(OSError):
        os.rmdir(model_dir)


def _not_writable(model_dir: str, error: OSError) -> ValueError:
    return ValueError(
        f"`model_dir` ({model_dir!r}) cannot be written ({error.strerror}): "
        "training writes checkpoints, event files and its lock file there. "
        "Pass a directory you can write, or fix its permissions."
    )


def acquire(model_dir: str) -> dict:
    """Creates the lock file of `model_dir`; returns what it holds.

    Raises:
      ModelDirLockedError: if another live process holds the lock.
      ValueError: if the lock file cannot be written.
    """
    path = lock_path(model_dir)
    holder = _this_process()
    for _ in range(_READ_RETRIES):
        if _create_exclusive(path, holder, model_dir):
            return holder
        other = _read(path)
        if other is None:  # Released meanwhile, or not written yet.
            time.sleep(_RETRY_SECS)
            continue
        _refuse_unless_stale(model_dir, other)
        _take_over(path, other)
    raise ModelDirLockedError(
        f"The training lock {path} of model_dir {model_dir} is empty or "
        "unreadable. If no other process trains in this model_dir, delete "
        "the file and start again."
    )


def check_model_dir_unlocked(model_dir: str) -> None:
    """Fails now if another process trains in `model_dir`; takes no lock.

    For programs that do slow work (generating data, building a model)
    before `Estimator.train` takes the lock: they learn at once that
    training would be refused. A lock of a killed process on this host does
    not count (training takes it over); `train` still takes the lock itself.

    Args:
      model_dir: the directory training would write to.

    Raises:
      ModelDirLockedError: naming the process that holds the lock.
    """
    if not is_local(model_dir):
        return
    other = _read(lock_path(model_dir))
    if other is not None:
        _refuse_unless_stale(model_dir, other)


def release(model_dir: str, holder: dict) -> None:
    """Removes the lock file of `model_dir` if it is still `holder`'s."""
    path = lock_path(model_dir)
    other = _read(path)
    if other is not None and other.get("token") != holder["token"]:
        tf.get_logger().warning(
            "The training lock %s was replaced by %s while this process "
            "trained; leaving it in place.",
            path,
            describe(other),
        )
        return
    with contextlib.suppress(FileNotFoundError):
        os.remove(path)


def describe(holder: dict) -> str:
    """`pid 12 on host h (started 2024-01-01 10:00:00 UTC, command: ...)`."""
    command = holder.get("command")
    command = f", command: {command}" if command else ""
    return (
        f"pid {holder.get('pid')} on host {holder.get('host')} "
        f"(started {holder.get('started')}{command})"
    )


def _this_process() -> dict:
    pid = os.getpid()
    started = datetime.datetime.now(datetime.timezone.utc)
    return {
        "pid": pid,
        "host": socket.gethostname(),
        "started": started.strftime("%Y-%m-%d %H:%M:%S UTC"),
        "pid_namespace": _processes.pid_namespace(),
        "process_start": _processes.start_time(pid),
        "command": " ".join(sys.argv)[:200],
        "token": uuid.uuid4().hex,
    }


def _create_exclusive(path: str, holder: dict, model_dir: str) -> bool:
    """Writes `holder` to a new file `path`; False if `path` exists."""
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        return False
    except OSError as error:
        raise _not_writable(model_dir, error) from error
    try:
        os.write(fd, json.dumps(holder).encode())
        os.fsync(fd)
    except OSError as error:
        os.close(fd)
        os.remove(path)
        raise _not_writable(model_dir, error) from error
    os.close(fd)
    return True


def _read(path: str) -> dict | None:
    """The lock's contents; None if absent, empty or not (yet) valid JSON."""
    try:
        with open(path, encoding="utf-8") as f:
            holder = json.load(f)
    except (FileNotFoundError, ValueError):
        return None
    return holder if isinstance(holder, dict) else None


def _refuse_unless_stale(model_dir: str, other: dict) -> None:
    """Raises ModelDirLockedError unless `other` is a dead process of this host."""
    path = lock_path(model_dir)
    if not _same_machine(other):
        raise ModelDirLockedError(
            f"model_dir {model_dir} is being trained by {describe(other)}. "
            "Only one process may train a model_dir. Its host (or container) is "
            "not this one, so it cannot be checked from here: if no training "
            f"runs there any more, delete {path} and start again; otherwise "
            "train into another model_dir."
        )
    if not _processes.is_running(other.get("pid"), other.get("process_start")):
        return
    if other.get("pid") == os.getpid():
        raise ModelDirLockedError(
            f"model_dir {model_dir} is already being trained by this process "
            f"({describe(other)}): an earlier `train` call, e.g. in another "
            "thread, has not returned. Train one Estimator per model_dir at a time."
        )
    raise ModelDirLockedError(
        f"model_dir {model_dir} is being trained by {describe(other)}. Only "
        "one process may train a model_dir: wait for it to finish, stop it, or "
        f"train into another model_dir. (Lock file: {path}.)"
    )


def _same_machine(other: dict) -> bool:
    """Same host name and pid namespace: its pid can be checked from here."""
    return (
        other.get("host") == socket.gethostname()
        and other.get("pid_namespace") == _processes.pid_namespace()
    )


def _take_over(path: str, stale: dict) -> None:
    """Removes `stale`'s lock file, unless another process got there first.

    A `.takeover` file (created exclusively) lets one process at a time
    check and remove a stale lock, so a fresh lock is never removed.
    """
    mutex = path + _TAKEOVER_SUFFIX
    try:
        os.close(os.open(mutex, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
    except FileExistsError:
        _wait_for_takeover(mutex)
        return
    try:
        current = _read(path)
        if current is not None and current.get("token") == stale.get("token"):
            tf.get_logger().warning(
                "Taking over the training lock %s from %s, which is no longer "
                "running (killed?).",
                path,
                describe(stale),
            )
            os.remove(path)
    finally:
        os.remove(mutex)


def _wait_for_takeover(mutex: str) -> None:
    """Waits while another process takes a stale lock over."""
    for _ in range(_READ_RETRIES):
        if not os.path.exists(mutex):
            return
        time.sleep(_RETRY_SECS)
    raise ModelDirLockedError(
        f"{mutex} exists: a process was taking over a stale training lock and "
        "did not finish. If no other process trains in this model_dir, delete "
        "it and start again."
    )
