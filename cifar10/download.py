"""Verified download and safe extraction of the official CIFAR binary archive."""

from __future__ import annotations

import hashlib
import os
import tarfile
import tempfile
import urllib.request
from collections.abc import Callable

from absl import logging

from cifar10 import data

URL = "https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz"
SIZE = 170_052_171
SHA256 = "c4a38c50a1bc5f3a1c5537f2155ab9d68f9f25eb1ed8d9ddda3db29a59bca1dd"
CHUNK = 1 << 20

Progress = Callable[[int, int], None]  # (bytes done, bytes expected)


def log_progress(done: int, total: int) -> None:
    """Default progress report: an absl log line every 10%."""
    step = max(1, total // 10)
    if done == total or done // step != (done - CHUNK) // step:
        logging.info(
            "Downloaded %d of %d bytes (%.0f%%)", done, total, 100 * done / total
        )


def _fetch(url: str, dest, size: int, progress: Progress) -> str:
    """Streams `url` into the open file `dest`; returns the hex sha256."""
    digest, done = hashlib.sha256(), 0
    with urllib.request.urlopen(url, timeout=60) as response:
        while chunk := response.read(CHUNK):
            done += len(chunk)
            if done > size:
                break
            digest.update(chunk)
            dest.write(chunk)
            progress(done, size)
    if done != size:
        raise ValueError(
            f"Download of {url} gave {'more than ' if done > size else ''}{done} "
            f"bytes; expected {size}. Nothing was kept; try again."
        )
    return digest.hexdigest()


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


def extract(archive: str, data_dir: str) -> None:
    """Extracts regular files and folders of `archive` into `data_dir`, safely.

    Every member is checked before anything is written: no absolute paths, no
    `..`, no symbolic or hard links, no devices.

    Raises:
      ValueError: for an unsafe member.
    """
    root = os.path.realpath(data_dir)
    with tarfile.open(archive, "r:gz") as tar:
        members = tar.getmembers()
        for member in members:
            _check_member(member, root)
        with tempfile.TemporaryDirectory(dir=root, prefix=".extract-") as tmp:
            tar.extractall(tmp, members=members)
            for name in os.listdir(tmp):
                os.replace(os.path.join(tmp, name), os.path.join(root, name))


def download(
    data_dir: str,
    url: str = URL,
    size: int = SIZE,
    sha256: str = SHA256,
    progress: Progress = log_progress,
) -> str:
    """Downloads, verifies and extracts the CIFAR-10 binary archive.

    The archive is streamed into a temporary file in `data_dir`, checked
    against `size` and `sha256`, renamed into place only when both match, and
    then extracted safely. A failure leaves nothing behind. If the extracted
    folder is already there, it is validated and nothing is fetched.

    Args:
      data_dir: where `cifar-10-batches-bin/` ends up.
      url: where to fetch the archive from.
      size: expected size in bytes.
      sha256: expected hex sha256 digest.
      progress: called as `progress(bytes_done, size)` after every chunk.

    Returns:
      `data_dir`.

    Raises:
      ValueError: for a size or checksum mismatch, an unsafe archive, or an
        incomplete `cifar-10-batches-bin/` already in `data_dir`.
    """
    folder = os.path.join(data_dir, data.CIFAR10.folder)
    if os.path.isdir(folder):
        data.filenames(data_dir, "cifar10", "test")  # Raises if incomplete.
        data.filenames(data_dir, "cifar10", "train")
        return data_dir
    os.makedirs(data_dir, exist_ok=True)
    archive = os.path.join(data_dir, os.path.basename(url) or "cifar-10-binary.tar.gz")
    _download_verified(url, archive, size, sha256, progress)
    try:
        extract(archive, data_dir)
    finally:
        os.remove(archive)
    data.filenames(data_dir, "cifar10", "train")
    return data_dir


def _download_verified(url, archive, size, sha256, progress) -> None:
    """Fetches `url` to a temporary file and renames it to `archive` if it verifies."""
    folder = os.path.dirname(archive)
    with tempfile.NamedTemporaryFile(
        dir=folder, prefix=".download-", delete=False
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
    os.replace(f.name, archive)
