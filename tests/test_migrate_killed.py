"""`emg-migrate --fix` killed (SIGKILL) while it writes: no file is lost or cut short.

A run over many files is killed at several points of its writing: once the
first backup exists, and once about half of the files are written. Each
file must then hold either its original bytes or the whole rewrite an
uninterrupted run makes, every backup must hold the original it backs up,
and a second `--fix` must finish the job with the same result as one
uninterrupted run (the temporary files a kill leaves are hidden `.tmp`
files, never scanned or rewritten).
"""

import os
import shutil
import signal
import time

import pytest
from migrate_helpers import CLI, CORPUS, run_cli, start

pytestmark = pytest.mark.slow


def _corpus_copy(folder):
    folder.mkdir()
    for path in sorted(CORPUS.glob("*.py")):
        shutil.copy(path, folder / path.name)
    return folder


def _snapshot(folder) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.py"))}


@pytest.fixture(scope="module")
def expected(tmp_path_factory):
    """(the originals, the files after one uninterrupted `--fix`)."""
    folder = _corpus_copy(tmp_path_factory.mktemp("whole") / "corpus")
    originals = _snapshot(folder)
    proc = run_cli(folder, "--fix", "--no-backup", timeout=900)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    fixed = _snapshot(folder)
    assert sum(fixed[n] != originals[n] for n in originals) >= len(originals) // 2
    return originals, fixed


def _kill_after(folder, backups: int, limit: float = 600.0) -> int:
    """Starts `--fix` on `folder` and SIGKILLs it once `backups` backups exist;
    returns how many existed at the kill."""
    proc = start([*CLI, folder, "--fix"])
    deadline = time.monotonic() + limit
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            made = len(list(folder.glob("*.bak*")))
            if made >= backups:
                break
            time.sleep(0.002)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
    assert proc.returncode == -signal.SIGKILL, "the run ended before the kill"
    return len(list(folder.glob("*.bak*")))


def _check_each_file_whole(folder, originals, fixed) -> int:
    """Asserts every file is its original or its whole rewrite and every backup
    its original; returns how many files were rewritten."""
    now = _snapshot(folder)
    assert sorted(now) == sorted(originals)
    rewritten = 0
    for name, data in now.items():
        assert data in (originals[name], fixed[name]), f"{name} is neither"
        rewritten += data != originals[name]
        for backup in folder.glob(f"{name}.bak*"):
            held = backup.read_bytes()
            # A kill between reserving a backup's name and moving the copy
            # there leaves the name empty; the file itself is then unwritten.
            assert held in (originals[name], b""), f"{backup.name} is cut short"
            if not held:
                assert data == originals[name]
    return rewritten


@pytest.mark.parametrize("at", ["first", "half"])
def test_a_killed_fix_leaves_whole_files_and_a_rerun_finishes(tmp_path, expected, at):
    originals, fixed = expected
    changed = sum(fixed[n] != originals[n] for n in originals)
    folder = _corpus_copy(tmp_path / "corpus")
    backups = 1 if at == "first" else changed // 2
    made = _kill_after(folder, backups)
    assert made >= backups
    rewritten = _check_each_file_whole(folder, originals, fixed)
    assert rewritten < changed, "the kill came after every file was written"
    # What a kill leaves beside the files is hidden and not Python.
    for leftover in set(os.listdir(folder)) - set(originals):
        assert ".bak" in leftover or (
            leftover.startswith(".") and leftover.endswith(".tmp")
        ), leftover
    proc = run_cli(folder, "--fix", timeout=900)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    assert _snapshot(folder) == fixed
    for name in originals:
        if fixed[name] == originals[name]:
            continue
        held = {b.read_bytes() for b in folder.glob(f"{name}.bak*")} - {b""}
        assert held == {originals[name]}, name
