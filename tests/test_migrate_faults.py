"""Faults under `emg-migrate --fix`: full disks, read-only files, odd files, races."""

import errno
import json
import os
import re
import stat
import threading

import pytest
from migrate_helpers import CLI, CORPUS, run, run_cli, start

from estimator_multigpu.migrate import _files, _runner
from estimator_multigpu.migrate.__main__ import main

LEGACY = "import tensorflow as tf\nx = tf.estimator.RunConfig()  # keep me\ny = tf.train.Supervisor\n"
FIXED_LINE = "x = emg.estimator.RunConfig()  # keep me\n"
ENOSPC = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def legacy(tag: str) -> str:
    return f"# file {tag}\n" + LEGACY


@pytest.fixture
def tree(tmp_path):
    for tag in ("a", "b"):
        (tmp_path / f"{tag}.py").write_text(legacy(tag))
    return tmp_path


def listing(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# Row 2: a full disk never cuts a file short, with or without a backup.


def _failing_write(monkeypatch, fails):
    """Makes `os.write` write half of the data, then fail with ENOSPC, when `fails(data)`."""
    real = os.write

    def write(fd, data):
        if fails(bytes(data)):
            real(fd, bytes(data)[: len(data) // 2])
            raise ENOSPC
        return real(fd, data)

    monkeypatch.setattr(os, "write", write)


@pytest.mark.parametrize("backup", [True, False], ids=["backup", "no_backup"])
def test_full_disk_leaves_the_original_whole(tree, capsys, monkeypatch, backup):
    _failing_write(monkeypatch, lambda data: b"# file a" in data)
    argv = [str(tree), "--fix"] + ([] if backup else ["--no-backup"])
    assert main(argv) == 2
    out = capsys.readouterr().out
    assert (
        f"{tree / 'a.py'}: error: cannot write: [Errno 28] No space left on device; "
        "file left unchanged" in out
    )
    assert (tree / "a.py").read_text() == legacy("a")
    assert FIXED_LINE in (tree / "b.py").read_text()  # the next file is written
    assert listing(tree) == ["a.py", "b.py"] + (["b.py.bak"] if backup else [])
    assert f"{tree / 'a.py'}:3:5: estimator [manual]" in out
    assert f"{tree / 'b.py'}:3:5: estimator [fixed]" in out


def test_full_disk_while_writing_the_backup(tree, capsys, monkeypatch):
    original = legacy("a").encode()
    _failing_write(monkeypatch, lambda data: data == original)
    assert main([str(tree / "a.py"), "--fix"]) == 2
    assert "cannot write: [Errno 28] No space left on device" in capsys.readouterr().out
    assert (tree / "a.py").read_bytes() == original
    assert listing(tree) == ["a.py", "b.py"]


@pytest.mark.parametrize("call", ["replace", "fsync"])
def test_failing_rename_or_flush_leaves_nothing_behind(tree, capsys, monkeypatch, call):
    def fail(*args):
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(os, call, fail)
    assert main([str(tree / "a.py"), "--fix"]) == 2
    assert "cannot write: [Errno 5] Input/output error" in capsys.readouterr().out
    assert (tree / "a.py").read_text() == legacy("a")
    assert listing(tree) == ["a.py", "b.py"]


def test_interrupt_while_writing_leaves_nothing_behind(tree, monkeypatch):
    result = _runner.process(str(tree / "a.py"))

    def interrupt(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupt)
    with pytest.raises(KeyboardInterrupt):
        _runner.write(result)
    assert (tree / "a.py").read_text() == legacy("a")
    assert listing(tree) == ["a.py", "b.py"]


def test_new_text_is_flushed_then_renamed_over_the_file(tree, monkeypatch):
    events = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        events.append(("fsync", os.fstat(fd).st_ino))
        return real_fsync(fd)

    def replace(src, dst):
        events.append(("replace", os.stat(src).st_ino, os.path.dirname(src), dst))
        return real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    path = tree / "a.py"
    assert _runner.write(_runner.process(str(path)), backup=False)
    _, inode, folder, dst = events[1]
    assert events[0] == ("fsync", inode) and (folder, dst) == (str(tree), str(path))
    assert os.stat(path).st_ino == inode and FIXED_LINE in path.read_text()


@pytest.mark.parametrize("mode", [0o640, 0o755, 0o600])
def test_mode_is_kept(tree, capsys, mode):
    path = tree / "a.py"
    path.chmod(mode)
    assert main([str(path), "--fix"]) == 1
    assert stat.S_IMODE(path.stat().st_mode) == mode
    assert stat.S_IMODE((tree / "a.py.bak").stat().st_mode) == mode
    assert FIXED_LINE in path.read_text()
    capsys.readouterr()


# Row 3: an existing backup is never overwritten.


@pytest.mark.parametrize(
    "taken, used",
    [(["a.py.bak"], "a.py.bak.1"), (["a.py.bak", "a.py.bak.1"], "a.py.bak.2")],
    ids=["bak", "bak_and_bak1"],
)
def test_existing_backup_is_kept(tree, capsys, taken, used):
    for name in taken:
        (tree / name).write_text(f"mine: {name}\n")
    assert main([str(tree / "a.py"), "--fix"]) == 1
    for name in taken:
        assert (tree / name).read_text() == f"mine: {name}\n"
    assert (tree / used).read_text() == legacy("a")
    out = capsys.readouterr().out
    assert f"{tree / 'a.py'}: note: original saved as {tree / used}\n" in out


def test_backup_name_that_is_a_link_is_never_followed(tree, capsys):
    precious = tree / "precious.txt"
    precious.write_text("keep\n")
    (tree / "a.py.bak").symlink_to(precious)
    (tree / "b.py.bak").symlink_to(tree / "nowhere")
    assert main([str(tree), "--fix"]) == 1
    assert precious.read_text() == "keep\n" and not (tree / "nowhere").exists()
    assert (tree / "a.py.bak.1").read_text() == legacy("a")
    assert (tree / "b.py.bak.1").read_text() == legacy("b")
    capsys.readouterr()


def test_backup_name_is_in_the_json_report(tree, capsys):
    (tree / "a.py.bak").write_text("mine\n")
    main([str(tree), "--fix", "--format=json"])
    doc = json.loads(capsys.readouterr().out)
    assert [f["backup"] for f in doc["files"]] == [
        str(tree / "a.py.bak.1"),
        str(tree / "b.py.bak"),
    ]


def test_every_backup_name_taken_is_an_error(tree, capsys, monkeypatch):
    monkeypatch.setattr(_files, "MAX_BACKUPS", 2)
    for name in ("a.py.bak", "a.py.bak.1", "a.py.bak.2"):
        (tree / name).write_text("mine\n")
    assert main([str(tree / "a.py"), "--fix"]) == 2
    out = capsys.readouterr().out
    assert (
        f"every backup name from `{tree / 'a.py'}.bak` to `{tree / 'a.py'}.bak.2` "
        "is taken; move old backups away or pass --no-backup" in out
    )
    assert (tree / "a.py").read_text() == legacy("a")
    assert listing(tree) == ["a.py", "a.py.bak", "a.py.bak.1", "a.py.bak.2", "b.py"]


# Row 11: read-only files and folders are reported, and the run goes on.


def test_read_only_file_is_reported_and_the_run_goes_on(tree, capsys):
    (tree / "a.py").chmod(0o444)
    assert main([str(tree), "--fix"]) == 2
    out = capsys.readouterr().out
    assert (
        f"{tree / 'a.py'}: error: not rewritten: `{tree / 'a.py'}` is read-only "
        "(mode -r--r--r--); make it writable (chmod u+w) to rewrite it; "
        "file left unchanged" in out
    )
    assert (tree / "a.py").read_text() == legacy("a")
    assert FIXED_LINE in (tree / "b.py").read_text()
    assert listing(tree) == ["a.py", "b.py", "b.py.bak"]
    assert out.rstrip().endswith("1 file(s) with errors, 0 skipped.")


@pytest.fixture
def read_only_folder(tree):
    folder = tree / "ro"
    folder.mkdir()
    (folder / "c.py").write_text(legacy("c"))
    folder.chmod(0o555)
    yield folder
    folder.chmod(0o755)


def test_read_only_folder_is_reported_and_the_run_goes_on(
    tree, read_only_folder, capsys
):
    assert main([str(tree), "--fix"]) == 2
    out = capsys.readouterr().out
    assert (
        f"{read_only_folder / 'c.py'}: error: not rewritten: its folder "
        f"`{read_only_folder}` is read-only; --fix writes the new text to a "
        "temporary file there and renames it over the file" in out
    )
    assert (read_only_folder / "c.py").read_text() == legacy("c")
    assert listing(read_only_folder) == ["c.py"]
    assert FIXED_LINE in (tree / "a.py").read_text()
    assert FIXED_LINE in (tree / "b.py").read_text()


@pytest.fixture
def immutable_file(tree):
    """`a.py` with the immutable attribute (`chattr +i`), removed afterwards."""
    path = tree / "a.py"
    try:
        proc = run(["chattr", "+i", path], timeout=60)
    except FileNotFoundError:
        pytest.skip("no chattr command on this system")
    if proc.returncode != 0:
        pytest.skip(f"chattr +i is not supported where tmp_path lives: {proc.stderr}")
    yield path
    assert run(["chattr", "-i", path], timeout=60).returncode == 0


def test_immutable_file_is_reported_as_immutable(tree, immutable_file, capsys):
    assert main([str(tree), "--fix"]) == 2
    out = capsys.readouterr().out
    assert (
        f"{immutable_file}: error: not rewritten: `{immutable_file}` is immutable "
        f"(chattr +i); remove the attribute (chattr -i {immutable_file}, as root) "
        "to rewrite it; file left unchanged" in out
    )
    assert "chmod" not in out
    assert immutable_file.read_text() == legacy("a")
    assert FIXED_LINE in (tree / "b.py").read_text()
    assert listing(tree) == ["a.py", "b.py", "b.py.bak"]


# Row 12: FIFOs and other non-regular files are never opened.


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_fifo_is_skipped_with_a_note(tree):
    os.mkfifo(tree / "pipe.py")
    # In a subprocess, so a blocking open fails the test, not hangs it.
    proc = run_cli(tree, "--fix", timeout=60)
    assert proc.returncode == 1, proc.stderr  # Supervisor stays manual
    assert (
        f"{tree / 'pipe.py'}: note: skipped: a FIFO (named pipe), not a regular "
        f"file; `{tree / 'pipe.py'}` was not read\n" in proc.stdout
    )
    assert stat.S_ISFIFO(os.lstat(tree / "pipe.py").st_mode)
    assert FIXED_LINE in (tree / "a.py").read_text()
    assert listing(tree) == ["a.py", "a.py.bak", "b.py", "b.py.bak", "pipe.py"]
    assert proc.stdout.rstrip().endswith("0 file(s) with errors, 1 skipped.")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_fifo_named_on_the_command_line_is_skipped(tmp_path):
    os.mkfifo(tmp_path / "x.py")
    proc = run_cli(tmp_path / "x.py", "--format=json", timeout=60)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["files"][0]["skipped"].startswith("a FIFO (named pipe)")
    assert doc["summary"]["skipped"] == 1


def test_broken_link_is_skipped_with_a_note(tree, capsys):
    (tree / "gone.py").symlink_to(tree / "missing.py")
    assert main([str(tree)]) == 1
    out = capsys.readouterr().out
    assert (
        f"{tree / 'gone.py'}: note: skipped: a broken symbolic link "
        f"(to `{tree / 'missing.py'}`); not read" in out
    )


def test_directory_is_skipped_by_process(tmp_path):
    (tmp_path / "x.py").mkdir()
    result = _runner.process(str(tmp_path / "x.py"))
    assert result.skipped == (
        f"a directory, not a regular file; `{tmp_path / 'x.py'}` was not read"
    )
    assert result.error is None and result.findings == []


def test_directory_named_like_a_source_is_walked(tmp_path, capsys):
    (tmp_path / "x.py").mkdir()
    (tmp_path / "x.py" / "inner.py").write_text(LEGACY)
    assert main([str(tmp_path), "--fix", "--no-backup"]) == 1
    assert FIXED_LINE in (tmp_path / "x.py" / "inner.py").read_text()
    capsys.readouterr()


# Hostile use: races, links, odd sources.


def test_file_changed_since_it_was_read_is_not_written(tree):
    path = tree / "a.py"
    result = _runner.process(str(path))
    path.write_text(legacy("a") + "z = 1\n")  # an editor saves meanwhile
    assert not _runner.write(result)
    assert result.error == (
        f"not rewritten: `{path}` changed since it was read (an editor, or another "
        "`--fix` run?); run emg-migrate on it again; file left unchanged"
    )
    assert path.read_text() == legacy("a") + "z = 1\n"
    assert not any(f.fixed for f in result.findings)
    assert listing(tree) == ["a.py", "b.py"]


def test_file_replaced_by_a_link_since_it_was_read_is_not_written(tree):
    path = tree / "a.py"
    result = _runner.process(str(path))
    path.unlink()
    path.symlink_to(tree / "b.py")
    assert not _runner.write(result)
    assert f"`{path}` is now a symbolic link, not the file that was read" in (
        result.error
    )
    assert (tree / "b.py").read_text() == legacy("b")


def test_two_fix_runs_at_once_lose_nothing(tmp_path):
    names = ["cifar10_queue_input.py", "estimator_replicate.py", "alias_variants.py"]
    for name in names:
        (tmp_path / name).write_bytes((CORPUS / name).read_bytes())
    expected = {n: _runner.process(str(tmp_path / n)).rewritten for n in names}
    procs = [start([*CLI, tmp_path, "--fix"]) for _ in range(2)]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    for out, proc in zip(outs, procs):
        assert proc.returncode in (1, 2), out
        for line in out.splitlines():
            if ": error:" in line:
                assert "changed since it was read" in line, line
    for name in names:
        assert (tmp_path / name).read_text() == expected[name]
        backups = sorted(tmp_path.glob(name + ".bak*"))
        assert 1 <= len(backups) <= 2
        assert all(b.read_bytes() == (CORPUS / name).read_bytes() for b in backups)
    assert not list(tmp_path.glob(".*.tmp"))


def test_link_to_a_file_outside_the_tree_is_scanned_not_rewritten(tmp_path, capsys):
    outside, inside = tmp_path / "outside", tmp_path / "tree"
    outside.mkdir()
    inside.mkdir()
    (outside / "target.py").write_text(LEGACY)
    (inside / "link.py").symlink_to(outside / "target.py")
    assert main([str(inside), "--fix"]) == 1
    out = capsys.readouterr().out
    assert f"{inside / 'link.py'}:2:5: estimator [manual]" in out
    assert (
        f"{inside / 'link.py'}: note: not rewritten: a symbolic link to "
        f"`{outside / 'target.py'}`; run --fix on that file itself" in out
    )
    assert (outside / "target.py").read_text() == LEGACY
    assert (inside / "link.py").is_symlink() and listing(inside) == ["link.py"]
    assert listing(outside) == ["target.py"]


@pytest.mark.parametrize(
    "raw, status, message",
    [
        (b"", 0, None),
        (b"x = '\xff'\n", 2, "cannot read: invalid or missing encoding declaration"),
        (b"import tensorflow as tf\ndef f(:\n", 2, r"cannot parse \(line 2\)"),
    ],
    ids=["empty", "not_utf8", "syntax_error"],
)
def test_odd_sources_are_never_changed_and_the_run_goes_on(
    tree, capsys, raw, status, message
):
    (tree / "odd.py").write_bytes(raw)
    (tree / "z.py").write_text(legacy("z"))
    assert main([str(tree), "--fix", "--format=json"]) == max(status, 1)
    doc = json.loads(capsys.readouterr().out)
    odd = doc["files"][2]
    assert odd["path"] == str(tree / "odd.py") and odd["backup"] is None
    if message:
        assert re.search(message, odd["error"])
    assert (tree / "odd.py").read_bytes() == raw
    assert FIXED_LINE in (tree / "z.py").read_text()
    assert not (tree / "odd.py.bak").exists()


def test_a_path_named_twice_is_processed_once(tree, capsys):
    path = str(tree / "a.py")
    assert main([path, path, str(tree), "--fix"]) == 1
    out = capsys.readouterr().out
    assert out.count(f"{path}: note: original saved as") == 1
    assert listing(tree) == ["a.py", "a.py.bak", "b.py", "b.py.bak"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_fifo_swapped_in_after_the_check_is_not_read(tmp_path, monkeypatch):
    """A FIFO that appears between the type check and the open cannot block."""
    fifo, regular = tmp_path / "x.py", tmp_path / "regular.py"
    os.mkfifo(fifo)
    regular.write_text("")
    real_stat = os.stat

    def stat_before_the_swap(path, *args, **kwargs):
        return real_stat(regular if str(path) == str(fifo) else path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", stat_before_the_swap)
    done = {}
    thread = threading.Thread(
        target=lambda: done.update(result=_runner.process(str(fifo))), daemon=True
    )
    thread.start()
    thread.join(timeout=30)
    assert not thread.is_alive(), "opening the FIFO blocked"
    assert done["result"].skipped == (
        f"a FIFO (named pipe), not a regular file; `{fifo}` was not read"
    )


@pytest.mark.parametrize("flags", [[], ["--diff"]], ids=["report", "diff"])
def test_file_name_that_is_not_utf8_is_reported(tmp_path, flags):
    name = os.fsdecode(b"caf\xff.py")
    try:
        (tmp_path / name).write_text(LEGACY.replace("y = tf.train.Supervisor\n", ""))
    except (OSError, UnicodeEncodeError):
        pytest.skip("this file system takes only UTF-8 file names")
    proc = run_cli(tmp_path, "--fix", *flags, timeout=60, PYTHONIOENCODING="utf-8")
    assert proc.returncode == 0, proc.stderr
    assert (
        f"{tmp_path}/caf\\udcff.py:2:5: estimator [fixed]" in proc.stdout + proc.stderr
    )
    assert FIXED_LINE in (tmp_path / name).read_text()


def test_code_nested_too_deeply_to_scan_is_a_file_error(tree, capsys):
    chain = "tf" + ".a" * 1500  # parses; deeper than a recursive resolve
    (tree / "deep.py").write_text(f"import tensorflow as tf\nx = {chain}\n")
    assert main([str(tree), "--fix", "--no-backup"]) == 2
    out = capsys.readouterr().out
    assert (
        f"{tree / 'deep.py'}: error: cannot scan: the code nests deeper than the "
        "scanner can follow (Python's recursion limit" in out
    )
    assert FIXED_LINE in (tree / "b.py").read_text()  # the next file is processed


def test_a_long_flat_expression_is_scanned_to_its_last_term(tree, capsys):
    terms = " + ".join(["tf.train.batch"] * 2000)  # 2000 deep: no recursion walks it
    (tree / "deep.py").write_text(f"import tensorflow as tf\nx = {terms}\n")
    main([str(tree / "deep.py")])
    out = capsys.readouterr().out
    assert "0 file(s) with errors" in out and "cannot scan" not in out
    assert out.count(": queue-batcher [manual] `tf.train.batch`") == 2000


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_file_swapped_for_a_fifo_while_writing_is_not_written(tree, monkeypatch):
    path = tree / "a.py"
    result = _runner.process(str(path))
    path.unlink()
    os.mkfifo(path)
    real_lstat = os.lstat

    def lstat_before_the_swap(p, *args, **kwargs):
        return real_lstat(tree / "b.py" if str(p) == str(path) else p, *args, **kwargs)

    monkeypatch.setattr(os, "lstat", lstat_before_the_swap)
    assert not _runner.write(result)
    assert result.error.startswith(
        f"not rewritten: `{path}` is no longer the file that was read: a FIFO"
    )
    assert stat.S_ISFIFO(real_lstat(path).st_mode)
    assert listing(tree) == ["a.py", "b.py"]
