"""Tests for the `emg-migrate` command line: output formats, exit codes, writing."""

import json
import os
import pathlib
import re
import sys

import pytest
from migrate_helpers import run

from estimator_multigpu.migrate import _edits, _fixer
from estimator_multigpu.migrate.__main__ import main

LEGACY = "import tensorflow as tf\nx = tf.estimator.RunConfig()  # keep me\ny = tf.train.Supervisor\n"
CLEAN = "import tensorflow as tf\nx = tf.data.Dataset.range(3)\n"
BROKEN = "import tensorflow as tf\ndef f(:\n    tf.train.batch\n"
REPO = pathlib.Path(__file__).resolve().parents[1]


@pytest.fixture
def tree(tmp_path):
    files = {"legacy.py": LEGACY, "clean.py": CLEAN, "pkg/broken.py": BROKEN}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


@pytest.mark.parametrize(
    "name, status",
    [("clean.py", 0), ("legacy.py", 1), ("pkg/broken.py", 2), ("missing.py", 2)],
    ids=["clean", "findings", "unparsable", "missing"],
)
def test_exit_status(tree, capsys, name, status):
    assert main([str(tree / name)]) == status
    capsys.readouterr()


def test_text_report_names_position_replacement_and_guide(tree, capsys):
    main([str(tree / "legacy.py")])
    out = capsys.readouterr().out
    assert (
        f"{tree / 'legacy.py'}:2:5: estimator [fixable] `tf.estimator.RunConfig`" in out
    )
    assert "Use: emg.estimator.RunConfig. See migration_guide.md#estimator" in out
    assert f"{tree / 'legacy.py'}:3:5: supervisor [manual]" in out
    assert out.rstrip().endswith(
        "0 fixed, 2 remaining (1 fixable with --fix); 0 file(s) with errors, 0 skipped."
    )


def test_unparsable_file_is_reported_and_never_modified(tree, capsys):
    assert main([str(tree), "--fix"]) == 2
    out = capsys.readouterr().out
    assert f"{tree / 'pkg' / 'broken.py'}: error: cannot parse (line 2)" in out
    assert (tree / "pkg" / "broken.py").read_text() == BROKEN
    assert not (tree / "pkg" / "broken.py.bak").exists()


def test_json_report(tree, capsys):
    main([str(tree), "--format=json"])
    doc = json.loads(capsys.readouterr().out)
    assert [f["path"] for f in doc["files"]] == [
        str(tree / "clean.py"),
        str(tree / "legacy.py"),
        str(tree / "pkg" / "broken.py"),
    ]
    first = doc["files"][1]["findings"][0]
    assert {k: first[k] for k in ("line", "col", "rule", "api", "fixed")} == {
        "line": 2,
        "col": 5,
        "rule": "estimator",
        "api": "tf.estimator.RunConfig",
        "fixed": False,
    }
    assert first["guide"] == "migration_guide.md#estimator"
    assert doc["summary"] == {
        "files": 3,
        "findings": 2,
        "fixed": 0,
        "fixable": 1,
        "remaining": 2,
        "errors": 1,
        "skipped": 0,
    }


@pytest.mark.parametrize("backup", [True, False], ids=["backup", "no_backup"])
def test_fix_writes_in_place(tree, capsys, backup):
    path = tree / "legacy.py"
    argv = [str(path), "--fix"] + ([] if backup else ["--no-backup"])
    assert main(argv) == 1  # tf.train.Supervisor is left for a manual rewrite
    assert "x = emg.estimator.RunConfig()  # keep me\n" in path.read_text()
    assert (tree / "legacy.py.bak").exists() == backup
    if backup:
        assert (tree / "legacy.py.bak").read_text() == LEGACY
    assert "[fixed]" in capsys.readouterr().out


def test_fix_exits_0_when_everything_was_fixed(tree, capsys):
    path = tree / "legacy.py"
    path.write_text(LEGACY.replace("y = tf.train.Supervisor\n", ""))
    assert main([str(path), "--fix", "--no-backup"]) == 0
    assert main([str(path)]) == 0
    capsys.readouterr()


def test_diff_prints_and_writes_nothing(tree, capsys):
    path = tree / "legacy.py"
    main([str(path), "--diff"])
    captured = capsys.readouterr()
    assert f"--- {path}\n+++ {path}\n" in captured.out
    assert "-x = tf.estimator.RunConfig()  # keep me\n" in captured.out
    assert "+x = emg.estimator.RunConfig()  # keep me\n" in captured.out
    assert "+import estimator_multigpu as emg\n" in captured.out
    assert "estimator [fixable]" in captured.err  # the report goes to stderr
    assert path.read_text() == LEGACY and not (tree / "legacy.py.bak").exists()


def test_directories_are_walked_and_hidden_folders_skipped(tree, capsys):
    (tree / ".venv").mkdir()
    (tree / ".venv" / "x.py").write_text(LEGACY)
    main([str(tree), "--format=json"])
    paths = [f["path"] for f in json.loads(capsys.readouterr().out)["files"]]
    assert str(tree / ".venv" / "x.py") not in paths and len(paths) == 3


def test_no_paths_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([])
    assert exit_info.value.code == 2
    assert "PATH" in capsys.readouterr().err


_NO_TF = """
import runpy, sys
sys.argv = ["emg-migrate", sys.argv[1], "--diff", "--format=json"]
try:
    runpy.run_module("estimator_multigpu.migrate", run_name="__main__")
except SystemExit as e:
    assert e.code == 1, e.code
heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("tensorflow", "numpy", "absl"))
print("HEAVY", heavy)
"""


@pytest.mark.slow
def test_migrate_never_imports_tensorflow():
    """`python -m estimator_multigpu.migrate` scans and rewrites without TF."""
    corpus = REPO / "tests" / "legacy_corpus"
    proc = run([sys.executable, "-c", _NO_TF, corpus], timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.rstrip().endswith("HEAVY []")


@pytest.mark.parametrize(
    "command",
    [
        [sys.executable, "-m", "estimator_multigpu.migrate"],
        [os.path.join(os.path.dirname(sys.executable), "emg-migrate")],
    ],
    ids=["module", "console_script"],
)
def test_entry_points(tree, command):
    proc = run(command + [tree / "legacy.py", "--format=json"])
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["summary"]["remaining"] == 2


@pytest.mark.parametrize(
    "raw, encoding",
    [
        (b"# -*- coding: latin-1 -*-\n# caf\xe9\n", "latin-1"),
        (b"\xef\xbb\xbf# bom\n", "utf-8-sig"),
        (b"# \xc3\xa9t\xc3\xa9\n", "utf-8"),
    ],
    ids=["latin1_cookie", "utf8_bom", "utf8"],
)
def test_source_encoding_is_kept(tmp_path, capsys, raw, encoding):
    path = tmp_path / "enc.py"
    path.write_bytes(raw + b"import tensorflow as tf\nx = tf.estimator.RunConfig()\n")
    assert main([str(path), "--fix"]) == 0
    new = path.read_bytes()
    assert new.startswith(raw)
    assert b"x = emg.estimator.RunConfig()\n" in new
    assert (
        (tmp_path / "enc.py.bak")
        .read_bytes()
        .decode(encoding)
        .startswith(raw.decode(encoding))
    )
    capsys.readouterr()


@pytest.mark.parametrize(
    "raw, message",
    [
        (b"print 'python 2'\n", r"cannot parse \(line 1\): Missing parentheses"),
        (b"x = 1\0\n", "cannot parse: source code string cannot contain null bytes"),
        (b"# coding: nonsense\nx = 1\n", "cannot read: unknown encoding"),
        (b"x = '\xff'\n", "cannot read: invalid or missing encoding declaration"),
    ],
    ids=["python2", "null_byte", "bad_cookie", "bad_utf8"],
)
def test_unreadable_sources_are_reported(tmp_path, capsys, raw, message):
    path = tmp_path / "bad.py"
    path.write_bytes(raw)
    assert main([str(path), "--fix"]) == 2
    assert re.search(message, capsys.readouterr().out)
    assert path.read_bytes() == raw


def test_a_failing_rewrite_leaves_the_file_alone_and_is_reported(
    tree, capsys, monkeypatch
):
    def broken_fix(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(_fixer, "fix", broken_fix)
    path = tree / "legacy.py"
    assert main([str(path), "--fix"]) == 1
    out = capsys.readouterr().out
    assert "legacy.py: note: not rewritten: no rewrite (RuntimeError: boom)" in out
    assert "[fixed]" not in out and path.read_text() == LEGACY


def test_overlapping_edits_are_an_error():
    with pytest.raises(ValueError, match=r"edits overlap at offset 2"):
        _edits.apply("abcdef", [_edits.Edit(0, 3, "x"), _edits.Edit(2, 4, "y")])
