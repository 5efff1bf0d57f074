"""Checks that the trainer's directories are usable, before anything is written."""

from __future__ import annotations

import os
import tempfile


def check_not_empty(path: str | None, name: str, hint: str) -> None:
    """Raises ValueError for an empty-string path (None means "not given").

    Args:
      path: the path to check.
      name: the config field and flag name, e.g. `'model_dir'`.
      hint: what to pass instead.
    """
    if path == "":
        raise ValueError(f"`{name}` is empty; {hint}")


def check_directory(path: str, name: str) -> None:
    """Raises ValueError if `path` exists and is not a directory."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise ValueError(
            f"`{name}` {path!r} is a file, not a directory; pass a directory "
            f"(--{name})."
        )


def _nearest_existing(path: str) -> str:
    path = os.path.abspath(path)
    while not os.path.exists(path):
        path = os.path.dirname(path)
    return path


def check_writable(path: str, name: str) -> None:
    """Raises ValueError unless `path` is, or can be made, a writable directory.

    Writes and removes one empty probe file in `path` (or in its nearest
    existing parent, when `path` does not exist yet); creates nothing else.

    Args:
      path: the directory the trainer will write into.
      name: the config field and flag name, e.g. `'model_dir'`.

    Raises:
      ValueError: if `path` (or a parent) is a file, or cannot be written.
    """
    check_directory(path, name)
    existing = _nearest_existing(path)
    if not os.path.isdir(existing):
        raise ValueError(
            f"`{name}` {path!r} cannot be created: {existing!r} is a file. Pass a "
            f"directory (--{name})."
        )
    try:
        handle, probe = tempfile.mkstemp(dir=existing, prefix=".write-check-")
    except OSError as error:
        raise ValueError(
            f"`{name}` {path!r} is not writable ({error.strerror} in {existing}); "
            f"pass a directory you can write to (--{name})."
        ) from error
    os.close(handle)
    os.remove(probe)
