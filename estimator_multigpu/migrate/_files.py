"""Reads only regular files; replaces them atomically, keeping a backup under a free name."""

from __future__ import annotations

import errno
import os
import stat
import sys
import tempfile

MAX_BACKUPS = 1000
# Linux inode flags (`chattr`): FS_IOC_GETFLAGS, and the flags under which
# even root can neither replace nor rename over the file.
_FS_IOC_GETFLAGS = 0x80086601
_LINUX_FLAGS = ((0x10, "immutable", "i"), (0x20, "append-only", "a"))
_BSD_FLAGS = (
    (getattr(stat, "UF_IMMUTABLE", 0) | getattr(stat, "SF_IMMUTABLE", 0), "immutable"),
    (getattr(stat, "UF_APPEND", 0) | getattr(stat, "SF_APPEND", 0), "append-only"),
)
_WRITE_BITS = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


class Skipped(Exception):
    """The path is not a regular file (nor a link to one); it was not opened."""


class Refused(Exception):
    """The file must not be rewritten; the message says why and what to do."""


def _kind(mode: int) -> str:
    for test, name in _KINDS:
        if test(mode):
            return name
    return "a special file"


def _not_regular(path: str, mode: int) -> Skipped:
    return Skipped(f"{_kind(mode)}, not a regular file; `{path}` was not read")


def _stat_source(path: str) -> os.stat_result:
    """`os.stat(path)`; a broken symbolic link raises `Skipped`."""
    try:
        return os.stat(path)
    except OSError as e:
        if e.errno in (errno.ENOENT, errno.ELOOP) and os.path.islink(path):
            target = os.readlink(path)
            raise Skipped(f"a broken symbolic link (to `{target}`); not read") from e
        raise


def read_source(path: str) -> bytes:
    """Returns the bytes of `path`, a regular file or a link to one.

    A FIFO, socket, device or directory is never opened. The file is opened
    without blocking and checked again once open, so one swapped in between
    cannot block the scan either.

    Raises:
      Skipped: `path` is not a regular file, or is a broken link.
      OSError: it cannot be read.
    """
    st = _stat_source(path)
    if not stat.S_ISREG(st.st_mode):
        raise _not_regular(path, st.st_mode)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise _not_regular(path, mode)
        f = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with f:
        return f.read()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        if not written:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        view = view[written:]


def _remove(path: str) -> None:
    """Removes a file this module created; cleanup never hides the first error."""
    try:
        os.unlink(path)
    except OSError:
        pass


def _fill(fd: int, data: bytes, st: os.stat_result) -> None:
    """Writes `data` to `fd`, gives it the mode (and owner) of `st`, flushes it."""
    try:
        _write_all(fd, data)
        if hasattr(os, "fchown"):
            _keep_owner(fd, st)  # before chmod: a chown may clear set-id bits
        os.fchmod(fd, stat.S_IMODE(st.st_mode))
        os.fsync(fd)
    finally:
        os.close(fd)


def _temp_copy(path: str, data: bytes, st: os.stat_result) -> str:
    """Writes `data` to a new hidden file beside `path`; returns its name."""
    folder, base = os.path.split(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp", dir=folder)
    try:
        _fill(fd, data, st)
    except BaseException:
        _remove(tmp)
        raise
    return tmp


def _keep_owner(fd: int, st: os.stat_result) -> None:
    """Gives the new file the original's owner where allowed (e.g. as root)."""
    current = os.fstat(fd)
    if (current.st_uid, current.st_gid) != (st.st_uid, st.st_gid):
        try:
            os.fchown(fd, st.st_uid, st.st_gid)
        except PermissionError:
            pass


def backup_names(path: str):
    """Yields `<path>.bak`, then `<path>.bak.1` ... `<path>.bak.<MAX_BACKUPS>`."""
    yield f"{path}.bak"
    for n in range(1, MAX_BACKUPS + 1):
        yield f"{path}.bak.{n}"


def _reserve(path: str) -> str:
    """Creates an empty file under the first free backup name; returns the name.

    `O_EXCL` never opens an existing file (nor follows a link), so no file a
    user owns is touched, and a concurrent run cannot take the same name.
    """
    for name in backup_names(path):
        try:
            os.close(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except FileExistsError:
            continue
        return name
    raise Refused(
        f"every backup name from `{path}.bak` to `{path}.bak.{MAX_BACKUPS}` "
        "is taken; move old backups away or pass --no-backup"
    )


def _write_backup(path: str, original: bytes, st: os.stat_result) -> str:
    """Writes `original` under a free backup name, whole or not at all."""
    tmp = _temp_copy(path, original, st)
    try:
        name = _reserve(path)
        try:
            os.replace(tmp, name)  # over our own empty placeholder
        except BaseException:
            _remove(name)
            raise
    except BaseException:
        _remove(tmp)
        raise
    return name


def _writable(st: os.stat_result, path: str) -> bool:
    """False if no write bit is set (even for root) or the user may not write."""
    return bool(st.st_mode & _WRITE_BITS) and os.access(path, os.W_OK)


def _linux_flags(path: str) -> int:
    """The file's `chattr` flags, or 0 where they cannot be read."""
    try:
        import fcntl
    except ImportError:
        return 0
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return 0
    try:
        flags = fcntl.ioctl(fd, _FS_IOC_GETFLAGS, bytes(8))
    except OSError:  # a filesystem without inode flags
        return 0
    finally:
        os.close(fd)
    return int.from_bytes(flags[:4], sys.byteorder)


def _locked(path: str, st: os.stat_result) -> str | None:
    """Why no one (root included) may replace `path`: an immutable or
    append-only attribute and how to remove it; None if it has neither."""
    for flag, name in _BSD_FLAGS:
        if flag and getattr(st, "st_flags", 0) & flag:
            return (
                f"`{path}` is {name} (file flags); remove the flag "
                f"(chflags noschg,nouchg {path}) to rewrite it"
            )
    flags = _linux_flags(path) if sys.platform.startswith("linux") else 0
    for flag, name, letter in _LINUX_FLAGS:
        if flags & flag:
            return (
                f"`{path}` is {name} (chattr +{letter}); remove the attribute "
                f"(chattr -{letter} {path}, as root) to rewrite it"
            )
    return None


def _check(path: str, original: bytes) -> os.stat_result:
    """Refuses a file that changed since it was read or that the user protected."""
    st = os.lstat(path)
    if not stat.S_ISREG(st.st_mode):
        what = "a symbolic link" if stat.S_ISLNK(st.st_mode) else _kind(st.st_mode)
        raise Refused(f"`{path}` is now {what}, not the file that was read")
    try:
        current = read_source(path)
    except Skipped as e:  # swapped since the lstat above
        raise Refused(f"`{path}` is no longer the file that was read: {e}") from e
    if current != original:
        raise Refused(
            f"`{path}` changed since it was read (an editor, or another "
            "`--fix` run?); run emg-migrate on it again"
        )
    locked = _locked(path, st)
    if locked:
        raise Refused(locked)
    if not _writable(st, path):
        raise Refused(
            f"`{path}` is read-only (mode {stat.filemode(st.st_mode)}); "
            "make it writable (chmod u+w) to rewrite it"
        )
    folder = os.path.dirname(os.path.abspath(path))
    if not _writable(os.stat(folder), folder):
        raise Refused(
            f"its folder `{folder}` is read-only; --fix writes the new text to a "
            "temporary file there and renames it over the file: make the folder "
            "writable (chmod u+w)"
        )
    return st


def _sync_folder(path: str) -> None:
    """Makes the rename durable (best effort: not every system can fsync a folder)."""
    try:
        fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def replace(path: str, data: bytes, original: bytes, backup: bool = True) -> str | None:
    """Replaces the file `path`, read as `original`, by `data`, atomically.

    The new bytes go to a temporary file in the same folder (with the
    original's mode), are flushed to disk, and only then renamed over `path`;
    the backup is written the same way under the first free name. Whatever
    fails, `path` keeps its bytes and no temporary file or backup is left.

    Args:
      path: the file.
      data: its new bytes.
      original: the bytes it had when it was read; a file that changed since
        is not written.
      backup: whether to keep `original` as `<path>.bak` (or `.bak.N`).

    Returns:
      The backup's name, or None without `backup`.

    Raises:
      Refused: the file changed, is read-only, immutable or append-only, or
        sits in a read-only folder, or every backup name is taken.
      OSError: writing failed (e.g. the disk is full).
    """
    st = _check(path, original)
    tmp = _temp_copy(path, data, st)
    name = None
    try:
        if backup:
            name = _write_backup(path, original, st)
        os.replace(tmp, path)
    except BaseException:
        _remove(tmp)
        if name:
            _remove(name)
        raise
    _sync_folder(path)
    return name
