"""Verified download and safe extraction of the official CIFAR binary archive."""

from __future__ import annotations

import hashlib
import os
import posixpath
import tarfile
import tempfile
import urllib.error
import urllib.request
from collections.abc import Callable

from absl import logging

from cifar10 import data, paths

URL = "https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz"
SIZE = 170_052_171
SHA256 = "c4a38c50a1bc5f3a1c5537f2155ab9d68f9f25eb1ed8d9ddda3db29a59bca1dd"
CHUNK = 1 << 20

Progress = Callable[[int, int], None]  # (bytes done, bytes expected)

OFFLINE = (
    "To work offline, fetch cifar-10-binary.tar.gz on a machine that can, "
    "extract it, and pass --data_dir=<the directory holding "
    "cifar-10-batches-bin/> without --download; or leave out the data flags to "
    "train on generated data (python -m cifar10.generate --out DIR writes a set)."
)
# tarfile's own safety filter where this Python has it (3.12, and 3.11.4+).
_FILTER = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}


class DownloadError(OSError):
    """The archive could not be fetched: no network, refused, or an HTTP error."""


def log_progress(done: int, total: int) -> None:
    """Default progress report: an absl log line every 10%."""
    step = max(1, total // 10)
    if done == total or done // step != (done - CHUNK) // step:
        logging.info(
            "Downloaded %d of %d bytes (%.0f%%)", done, total, 100 * done / total
        )


def _reason(error: OSError) -> str:
    if isinstance(error, urllib.error.HTTPError):
        return str(error)
    if isinstance(error, urllib.error.URLError):
        return str(error.reason)
    return str(error) or type(error).__name__


def _fetch(url: str, dest, size: int, progress: Progress) -> str:
    """Streams `url` into the open file `dest`; returns the hex sha256.

    Raises:
      DownloadError: if the server cannot be reached or answers with an error.
      ValueError: if the size is not `size`.
    """
    try:
        done, digest = _stream(url, dest, size, progress)
    except OSError as error:  # urllib's URLError and HTTPError are OSErrors.
        raise DownloadError(
            f"Could not download {url}: {_reason(error)}. Nothing was kept. " + OFFLINE
        ) from error
    if done != size:
        raise ValueError(
            f"Download of {url} gave {'more than ' if done > size else ''}{done} "
            f"bytes; expected {size}. Nothing was kept; try again."
        )
    return digest


def _stream(url: str, dest, size: int, progress: Progress):
    """Copies `url` into `dest`; returns (bytes read, sha256 hex digest)."""
    digest, done = hashlib.sha256(), 0
    with urllib.request.urlopen(url, timeout=60) as response:
        while chunk := response.read(CHUNK):
            done += len(chunk)
            if done > size:
                break
            digest.update(chunk)
            dest.write(chunk)
            progress(done, size)
    return done, digest.hexdigest()


def _check_member(member: tarfile.TarInfo, root: str) -> None:
    """Raises ValueError for members that would land outside `root` or are links."""
    target = os.path.realpath(os.path.join(root, member.name))
    inside = target == root or target.startswith(root + os.sep)
    if not inside or os.path.isabs(member.name):
        raise ValueError(
            f"Archive member {member.name!r} would extract outside {root}."
        )
    if not (member.isfile() or member.isdir()):
        raise ValueError(
            f"Archive member {member.name!r} is a link or special file; refusing "
            "to extract it."
        )


def _top_folder(name: str) -> str:
    """The first component of a member name: `'./a/b'` -> `'a'`."""
    return posixpath.normpath(name).split("/")[0]


def _wanted_members(members, root: str, folder: str) -> list[tarfile.TarInfo]:
    """Checks every member, and returns those under `folder/`."""
    for member in members:
        _check_member(member, root)
    wanted = [m for m in members if _top_folder(m.name) == folder]
    skipped = [m.name for m in members if _top_folder(m.name) not in (folder, ".")]
    if skipped:
        logging.warning(
            "Not extracting %d archive member(s) outside %s/: %s",
            len(skipped),
            folder,
            skipped[:5],
        )
    return wanted


def _damaged(folder: str) -> list[str]:
    """The CIFAR-10 files that `folder` lacks or holds with a bad size."""
    bad = []
    for split in data.SPLITS:
        for name in data.CIFAR10.files[split]:
            try:
                data.check_file(os.path.join(folder, name), "cifar10")
            except ValueError:
                bad.append(name)
    return bad


def _fsync_tree(folder: str) -> None:
    """Flushes the extracted files and the folder itself to disk."""
    for parent, _, names in os.walk(folder):
        for name in names:
            with open(os.path.join(parent, name), "rb") as f:
                os.fsync(f.fileno())
    handle = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


def extract(archive: str, data_dir: str, source: str | None = None) -> str:
    """Extracts the archive's `cifar-10-batches-bin/` into `data_dir`, all or nothing.

    Every member is checked before anything is written: no absolute paths, no
    `..`, no symbolic or hard links, no devices. Only members under
    `cifar-10-batches-bin/` are extracted, into a temporary folder inside
    `data_dir`; the folder is renamed into place only when it holds every
    CIFAR-10 file, whole. An existing `cifar-10-batches-bin/` is never touched.

    Args:
      archive: the `.tar.gz` file.
      data_dir: where `cifar-10-batches-bin/` ends up.
      source: how messages name the archive (default: `archive`).

    Returns:
      The path of the extracted folder.

    Raises:
      ValueError: for an unsafe member, an incomplete archive, or a
        `data_dir` that already holds `cifar-10-batches-bin`.
    """
    folder, root = data.CIFAR10.folder, os.path.realpath(data_dir)
    target = os.path.join(root, folder)
    if os.path.lexists(target):
        raise ValueError(
            f"`data_dir` {data_dir!r} already holds {folder!r}; nothing was "
            "extracted. Move or delete it to extract again."
        )
    with tarfile.open(archive, "r:gz") as tar:
        members = _wanted_members(tar.getmembers(), root, folder)
        with tempfile.TemporaryDirectory(dir=root, prefix=".extract-") as tmp:
            tar.extractall(tmp, members=members, **_FILTER)
            _move_complete(os.path.join(tmp, folder), target, source or archive)
    return target


def _move_complete(extracted: str, target: str, source: str) -> None:
    """Renames `extracted` to `target` if it holds every file, whole."""
    bad = _damaged(extracted)
    if bad:
        raise ValueError(
            f"{source} does not hold the complete CIFAR-10 set: missing or "
            f"damaged {bad}; nothing was extracted into {os.path.dirname(target)}. "
            "Download it again; if this repeats, the archive at that address is "
            "not the CIFAR-10 binary release."
        )
    _fsync_tree(extracted)
    os.rename(extracted, target)


def _check_existing(data_dir: str) -> None:
    """Validates a `cifar-10-batches-bin/` already in `data_dir`."""
    try:
        for split in data.SPLITS:
            data.filenames(data_dir, "cifar10", split)
    except ValueError as error:
        folder = os.path.join(data_dir, data.CIFAR10.folder)
        raise ValueError(
            f"`data_dir` {data_dir!r} already holds an incomplete "
            f"{data.CIFAR10.folder!r}, so nothing was fetched: {error} Move or "
            f"delete {folder} and run --download again."
        ) from error


def download(
    data_dir: str,
    url: str = URL,
    size: int = SIZE,
    sha256: str = SHA256,
    progress: Progress = log_progress,
) -> str:
    """Downloads, verifies and extracts the CIFAR-10 binary archive.

    The archive is streamed into a temporary file in `data_dir`, checked
    against `size` and `sha256`, extracted with `extract` (all or nothing,
    `cifar-10-batches-bin/` only) and deleted. A failure leaves nothing
    behind, so running it again starts afresh; no file of the user's is
    overwritten. If the extracted folder is already there, it is validated
    and nothing is fetched.

    Args:
      data_dir: where `cifar-10-batches-bin/` ends up.
      url: where to fetch the archive from.
      size: expected size in bytes.
      sha256: expected hex sha256 digest.
      progress: called as `progress(bytes_done, size)` after every chunk.

    Returns:
      `data_dir`.

    Raises:
      DownloadError: if `url` cannot be fetched (no network, HTTP error).
      ValueError: for a size or checksum mismatch, an unsafe or incomplete
        archive, a `data_dir` that is a file or not writable, or an
        incomplete `cifar-10-batches-bin/` already in `data_dir`.
    """
    if os.path.isdir(os.path.join(data_dir, data.CIFAR10.folder)):
        _check_existing(data_dir)
        return data_dir
    paths.check_writable(data_dir, "data_dir")
    os.makedirs(data_dir, exist_ok=True)
    archive = _download_verified(url, data_dir, size, sha256, progress)
    try:
        extract(archive, data_dir, source=url)
    finally:
        os.remove(archive)
    return data_dir


def _download_verified(url, folder, size, sha256, progress) -> str:
    """Fetches `url` into a temporary file in `folder`; returns its path if it verifies."""
    with tempfile.NamedTemporaryFile(
        dir=folder, prefix=".download-", suffix=".tar.gz", delete=False
    ) as f:
        try:
            digest = _fetch(url, f, size, progress)
        except BaseException:
            f.close()
            os.remove(f.name)
            raise
    if digest != sha256.lower():
        os.remove(f.name)
        raise ValueError(
            f"Checksum mismatch for {url}: sha256 {digest}, expected {sha256}. "
            "The download is corrupt or was tampered with; nothing was kept."
        )
    return f.name
