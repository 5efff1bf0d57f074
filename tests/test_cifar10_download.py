"""Tests for the verified download, against a local HTTP server on 127.0.0.1."""

import collections
import functools
import hashlib
import http.server
import io
import os
import socket
import tarfile
import threading

import pytest

from cifar10 import data, download, generate


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """Serves a generated archive, a corrupted copy and unsafe archives."""
    root = tmp_path_factory.mktemp("served")
    source = str(root / "source")
    generate.generate(source, train_examples=10, test_examples=2)
    good = generate.write_archive(source, str(root / "cifar-10-binary.tar.gz"))
    blob = open(good, "rb").read()
    (root / "corrupt.tar.gz").write_bytes(blob[:-10] + b"0123456789")
    _unsafe(root / "traversal.tar.gz", "../escaped.bin", tarfile.REGTYPE)
    _unsafe(root / "link.tar.gz", "cifar-10-batches-bin/evil", tarfile.SYMTYPE)
    _variants(source, root)
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}"
    yield Served(url, len(blob), hashlib.sha256(blob).hexdigest(), str(root))
    server.shutdown()


def _variants(source, root):
    """Archives with the right layout but a missing file, an extra member, './'."""
    folder = os.path.join(source, "cifar-10-batches-bin")
    with tarfile.open(root / "missing.tar.gz", "w:gz") as tar:
        for name in sorted(os.listdir(folder)):
            if name != "test_batch.bin":
                tar.add(os.path.join(folder, name), f"cifar-10-batches-bin/{name}")
    with tarfile.open(root / "extra.tar.gz", "w:gz") as tar:
        tar.add(folder, arcname="cifar-10-batches-bin")
        info = tarfile.TarInfo("notes.txt")
        info.size = 6
        tar.addfile(info, io.BytesIO(b"theirs"))
    with tarfile.open(root / "dotslash.tar.gz", "w:gz") as tar:
        tar.add(folder, arcname="./cifar-10-batches-bin")


Served = collections.namedtuple("Served", ["url", "size", "sha", "root"])


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def _unsafe(path, name, kind):
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo(name)
        info.type, info.linkname = kind, "/etc/passwd"
        payload = b"x" * 8 if kind == tarfile.REGTYPE else b""
        info.size = len(payload)
        tar.addfile(info, io.BytesIO(payload))


def test_download_verifies_and_extracts(served, tmp_path):
    url, size, sha, _ = served
    seen = []
    download.download(
        str(tmp_path),
        f"{url}/cifar-10-binary.tar.gz",
        size,
        sha,
        lambda done, total: seen.append((done, total)),
    )
    assert (
        data.num_examples(data.filenames(str(tmp_path), "cifar10", "train"), "cifar10")
        == 10
    )
    assert os.listdir(tmp_path) == ["cifar-10-batches-bin"]  # No archive, no temp.
    assert seen[-1] == (size, size) and all(t == size for _, t in seen)


def test_checksum_mismatch_leaves_nothing(served, tmp_path):
    url, size, _, _ = served
    with pytest.raises(ValueError, match=r"Checksum mismatch for .*corrupt.tar.gz"):
        download.download(
            str(tmp_path), f"{url}/corrupt.tar.gz", size, "0" * 64, lambda *_: None
        )
    assert os.listdir(tmp_path) == []


def test_checksum_of_corrupted_archive_differs(served, tmp_path):
    url, size, sha, _ = served
    with pytest.raises(ValueError, match=rf"expected {sha}"):
        download.download(
            str(tmp_path), f"{url}/corrupt.tar.gz", size, sha, lambda *_: None
        )
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("delta", [-1, 1], ids=["expects-fewer", "expects-more"])
def test_size_mismatch_leaves_nothing(served, tmp_path, delta):
    url, size, sha, _ = served
    with pytest.raises(ValueError, match=rf"expected {size + delta}"):
        download.download(
            str(tmp_path),
            f"{url}/cifar-10-binary.tar.gz",
            size + delta,
            sha,
            lambda *_: None,
        )
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize(
    "name, match",
    [
        ("traversal.tar.gz", r"'../escaped.bin' would extract outside"),
        ("link.tar.gz", r"'cifar-10-batches-bin/evil' is a link"),
    ],
    ids=["traversal", "symlink"],
)
def test_unsafe_archive_is_refused(served, tmp_path, name, match):
    archive = tmp_path / name
    archive.write_bytes(open(os.path.join(served.root, name), "rb").read())
    target = tmp_path / "out"
    target.mkdir()
    with pytest.raises(ValueError, match=match):
        download.extract(str(archive), str(target))
    assert os.listdir(target) == [] and not (tmp_path / "escaped.bin").exists()


def test_existing_data_is_not_fetched(tmp_path):
    generate.generate(str(tmp_path), train_examples=5, test_examples=1)
    # An address nothing listens on: fetching would fail.
    assert download.download(str(tmp_path), "http://127.0.0.1:9/x.tar.gz") == str(
        tmp_path
    )


def test_incomplete_existing_folder_is_an_error(tmp_path):
    generate.generate(str(tmp_path), train_examples=5, test_examples=1)
    os.remove(tmp_path / "cifar-10-batches-bin" / "test_batch.bin")
    with pytest.raises(ValueError, match=r"Missing cifar10 file .*test_batch.bin"):
        download.download(str(tmp_path), "http://127.0.0.1:9/x.tar.gz")


def test_official_constants():
    assert download.SIZE == 170_052_171
    assert download.URL.endswith("/cifar-10-binary.tar.gz")
    assert len(download.SHA256) == 64


def test_unsafe_download_leaves_nothing(served, tmp_path):
    blob = open(os.path.join(served.root, "traversal.tar.gz"), "rb").read()
    sha = hashlib.sha256(blob).hexdigest()
    with pytest.raises(ValueError, match=r"would extract outside"):
        download.download(
            str(tmp_path),
            f"{served.url}/traversal.tar.gz",
            len(blob),
            sha,
            lambda *_: None,
        )
    assert os.listdir(tmp_path) == []


def _fetch(served, name, data_dir):
    """Downloads the served archive `name` with its own size and sha256."""
    blob = open(os.path.join(served.root, name), "rb").read()
    return download.download(
        str(data_dir),
        f"{served.url}/{name}",
        len(blob),
        hashlib.sha256(blob).hexdigest(),
        lambda *_: None,
    )


def test_incomplete_archive_leaves_nothing_and_a_rerun_works(served, tmp_path):
    with pytest.raises(
        ValueError,
        match=r"missing.tar.gz does not hold the complete CIFAR-10 set: "
        r"missing or damaged \['test_batch.bin'\]; nothing was extracted",
    ):
        _fetch(served, "missing.tar.gz", tmp_path)
    assert os.listdir(tmp_path) == []
    _fetch(served, "cifar-10-binary.tar.gz", tmp_path)
    assert data.filenames(str(tmp_path), "cifar10", "test")
    assert os.listdir(tmp_path) == ["cifar-10-batches-bin"]


def test_members_outside_the_folder_are_not_extracted(served, tmp_path):
    (tmp_path / "notes.txt").write_bytes(b"mine")
    _fetch(served, "extra.tar.gz", tmp_path)
    assert (tmp_path / "notes.txt").read_bytes() == b"mine"
    assert sorted(os.listdir(tmp_path)) == ["cifar-10-batches-bin", "notes.txt"]
    assert data.filenames(str(tmp_path), "cifar10", "train")


def test_a_file_named_like_the_archive_is_kept(served, tmp_path):
    (tmp_path / "cifar-10-binary.tar.gz").write_bytes(b"mine")
    _fetch(served, "cifar-10-binary.tar.gz", tmp_path)
    assert (tmp_path / "cifar-10-binary.tar.gz").read_bytes() == b"mine"
    assert data.filenames(str(tmp_path), "cifar10", "test")


def test_members_with_a_dot_slash_prefix(served, tmp_path):
    _fetch(served, "dotslash.tar.gz", tmp_path)
    assert os.listdir(tmp_path) == ["cifar-10-batches-bin"]
    assert data.filenames(str(tmp_path), "cifar10", "train")


def test_extract_never_replaces_an_existing_folder(served, tmp_path):
    (tmp_path / "cifar-10-batches-bin").mkdir()
    (tmp_path / "cifar-10-batches-bin" / "mine.txt").write_bytes(b"mine")
    archive = os.path.join(served.root, "cifar-10-binary.tar.gz")
    with pytest.raises(ValueError, match=r"already holds 'cifar-10-batches-bin'"):
        download.extract(archive, str(tmp_path))
    assert os.listdir(tmp_path / "cifar-10-batches-bin") == ["mine.txt"]


def test_incomplete_existing_folder_says_what_to_do(tmp_path):
    generate.generate(str(tmp_path), train_examples=5, test_examples=1)
    os.remove(tmp_path / "cifar-10-batches-bin" / "test_batch.bin")
    with pytest.raises(
        ValueError, match=r"incomplete.*Move or delete .*cifar-10-batches-bin"
    ):
        download.download(str(tmp_path), "http://127.0.0.1:9/x.tar.gz")


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_http_404_names_the_url_and_the_offline_way(served, tmp_path):
    url = f"{served.url}/no-such.tar.gz"
    with pytest.raises(
        download.DownloadError,
        match=rf"Could not download {url}: HTTP Error 404.*--data_dir",
    ):
        download.download(str(tmp_path), url, 10, "0" * 64, lambda *_: None)
    assert os.listdir(tmp_path) == []


def test_connection_refused_names_the_url_and_the_offline_way(tmp_path):
    url = f"http://127.0.0.1:{_closed_port()}/cifar-10-binary.tar.gz"
    with pytest.raises(
        download.DownloadError,
        match=rf"Could not download {url}: .*refused.*offline.*--data_dir.*generate",
    ):
        download.download(str(tmp_path), url, 10, "0" * 64, lambda *_: None)
    assert os.listdir(tmp_path) == []


def test_download_error_is_an_os_error():
    assert issubclass(download.DownloadError, OSError)
