"""benchmarks/real_code/run.py: a case's folder belongs to one run at a time.

Two runs that share a scratch folder: the second run of the same case is
refused (or waits) and the first one's folder is left alone; different cases
run side by side; a run killed by SIGKILL leaves no lock behind; result.json
is replaced whole or not at all. The case here is a tiny program with no
TensorFlow in it, and emg-migrate is stubbed: the lock is what is tested.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest
from real_code_helpers import git_mirror

from benchmarks.real_code import _case, run

ROOT = pathlib.Path(__file__).resolve().parents[1]

# Prints a loss, says it started, then waits for the file named by argv[1]
# ("-": no wait), so a test can hold a run in the middle of its command.
TRAIN = textwrap.dedent(
    """
    import os, sys, time
    go, model_dir = sys.argv[1], sys.argv[2]
    os.makedirs(model_dir, exist_ok=True)
    with open(os.path.join(model_dir, "started"), "w") as f:
        f.write(str(os.getpid()))
    print("step 0 loss 1.5", flush=True)
    deadline = time.time() + 60
    while go != "-" and not os.path.exists(go) and time.time() < deadline:
        time.sleep(0.05)
    print("done")
    """
)


def fake_migrate(tree, paths, *flags):
    del tree, paths, flags
    return {"summary": {"findings": 0, "fixed": 0, "errors": 0}, "files": []}


def _no_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    (data / "train.txt").write_text("1 2\n")


def fake_case(name: str, commit: str, go: str = "-") -> _case.Case:
    return _case.Case(
        name=name,
        repo="owner/tiny",
        commit=commit,
        what="a program that waits for a file",
        make_data=_no_data,
        devices=(1,),
        single_device_why="a test program with no device flag of its own",
        commands=[
            _case.Command(
                ["{python}", "train.py", go, "{model_dir}"],
                expect=r"\ndone",
                loss=r"step 0 loss ([\d.]+)",
                timeout=120,
            )
        ],
    )


@pytest.fixture
def mirror(tmp_path) -> tuple[pathlib.Path, str]:
    """A mirror at mirrors/owner+tiny/repo holding train.py; (mirrors, commit)."""
    return tmp_path / "mirrors", git_mirror(tmp_path / "mirrors", "tiny", TRAIN)


@pytest.fixture(autouse=True)
def _stub_migrate(monkeypatch):
    monkeypatch.setattr(run, "migrate", fake_migrate)


_HOLDER = """
import pathlib, sys
sys.path[:0] = [{root!r}, {tests!r}]
import test_real_code_lock as t
from benchmarks.real_code import run
run.migrate = t.fake_migrate
{extra}
run.run_case(t.fake_case({name!r}, {commit!r}, {go!r}),
             pathlib.Path({mirrors!r}), pathlib.Path({scratch!r}))
"""


def _start(tmp_path, mirrors, commit, scratch, name, go, extra=""):
    """A driver run of case `name` in a process of its own, in its command."""
    code = _HOLDER.format(
        root=str(ROOT),
        tests=str(ROOT / "tests"),
        name=name,
        commit=commit,
        go=str(go),
        mirrors=str(mirrors),
        scratch=str(scratch),
        extra=extra,
    )
    log = open(tmp_path / f"{name}.{time.monotonic_ns()}.log", "w")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=log, stderr=log)
    log.close()
    started = scratch / name / "model_1" / "started"
    deadline = time.monotonic() + 60
    while not started.is_file():
        assert proc.poll() is None, pathlib.Path(log.name).read_text()
        assert time.monotonic() < deadline, "the first run never reached its command"
        time.sleep(0.05)
    return proc, int(started.read_text() or 0)


def _result(scratch, name):
    return json.loads((scratch / name / "result.json").read_text())


def test_a_second_run_of_the_same_case_is_refused_and_the_first_runs_on(
    tmp_path, mirror
):
    mirrors, commit = mirror
    scratch, go = tmp_path / "scratch", tmp_path / "go"
    first, _ = _start(tmp_path, mirrors, commit, scratch, "tiny", go)
    try:
        with pytest.raises(RuntimeError) as refused:
            run.run_case(fake_case("tiny", commit), mirrors, scratch)
        message = str(refused.value)
        assert isinstance(refused.value, run.CaseLocked)
        assert str(scratch / "tiny.lock") in message
        assert f"pid {first.pid}" in message and "--wait" in message
        # The first run's folder is as it left it: its tree, its running command.
        assert (scratch / "tiny" / "tree" / "train.py").is_file()
        assert (scratch / "tiny" / "model_1" / "started").is_file()
        assert not (scratch / "tiny" / "result.json").exists()
    finally:
        go.touch()
        assert first.wait(60) == 0
    (step,) = _result(scratch, "tiny")["runs"]["1"]
    assert step["ok"] and step["loss"] == "1.5", step


def test_with_wait_the_second_run_says_who_it_waits_for_then_runs(
    tmp_path, mirror, capsys
):
    mirrors, commit = mirror
    scratch, go = tmp_path / "scratch", tmp_path / "go"
    first, _ = _start(tmp_path, mirrors, commit, scratch, "tiny", go)
    done = {}

    def second():
        done["result"] = run.run_case(
            fake_case("tiny", commit), mirrors, scratch, wait=True
        )

    waiter = threading.Thread(target=second)
    try:
        waiter.start()
        time.sleep(1.0)
        assert waiter.is_alive() and "result" not in done
        assert f"waiting for {scratch / 'tiny.lock'}, held by pid {first.pid}" in (
            capsys.readouterr().err
        )
    finally:
        go.touch()
        assert first.wait(60) == 0
        waiter.join(60)
    assert done["result"]["runs"]["1"][0]["ok"]
    holder = json.loads((scratch / "tiny.lock").read_text())
    assert holder["pid"] == os.getpid()


def test_two_different_cases_run_at_once(tmp_path, mirror):
    mirrors, commit = mirror
    scratch, go = tmp_path / "scratch", tmp_path / "go"
    first, _ = _start(tmp_path, mirrors, commit, scratch, "alpha", go)
    try:
        beta = run.run_case(fake_case("beta", commit), mirrors, scratch)
        assert beta["runs"]["1"][0]["ok"]
        assert first.poll() is None  # alpha is still in its command
    finally:
        go.touch()
        assert first.wait(60) == 0
    assert _result(scratch, "alpha")["runs"]["1"][0]["ok"]
    assert _result(scratch, "beta")["runs"]["1"][0]["ok"]


def test_a_run_killed_by_sigkill_leaves_no_lock_behind(tmp_path, mirror):
    mirrors, commit = mirror
    scratch, go = tmp_path / "scratch", tmp_path / "go"
    first, child = _start(tmp_path, mirrors, commit, scratch, "tiny", go)
    try:
        os.kill(first.pid, signal.SIGKILL)
        first.wait(60)
        # Its command is still running (orphaned): it must not hold the lock.
        os.kill(child, 0)
        result = run.run_case(fake_case("tiny", commit), mirrors, scratch)
    finally:
        go.touch()
        try:
            os.kill(child, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert result["runs"]["1"][0]["ok"]
    assert json.loads((scratch / "tiny.lock").read_text())["pid"] == os.getpid()
    assert (scratch / "tiny" / "result.json").stat().st_mode & 0o777 == 0o644


def test_main_refuses_a_held_case_names_the_holder_and_runs_the_others(
    tmp_path, mirror, monkeypatch, capsys
):
    mirrors, commit = mirror
    scratch, page = tmp_path / "scratch", tmp_path / "RESULTS.md"
    found = [fake_case("alpha", commit), fake_case("beta", commit)]
    monkeypatch.setattr(run.cases_lib, "all_cases", lambda: found)
    argv = ["--mirrors", str(mirrors), "--scratch", str(scratch), "--write", str(page)]
    with run.case_lock(scratch, "alpha"):
        status = run.main(argv)
    err = capsys.readouterr().err
    assert status == 3
    assert str(scratch / "alpha.lock") in err and f"pid {os.getpid()}" in err
    assert "not run, another run holds them: alpha" in err
    assert not page.exists()
    assert not (scratch / "alpha").exists()
    assert _result(scratch, "beta")["runs"]["1"][0]["ok"]
    # Let go, the same command runs both and writes the page.
    assert run.main(argv) == 0 and page.is_file()


def _missing_module(data: pathlib.Path, tree: pathlib.Path) -> None:
    import a_module_no_machine_has  # noqa: F401, PLC0415


def test_a_case_whose_setup_fails_does_not_stop_the_cases_after_it(
    tmp_path, mirror, monkeypatch, capsys
):
    # A data generator that imports a package the machine lacks once ended
    # the whole driver run: the cases after it never started.
    mirrors, commit = mirror
    scratch, page = tmp_path / "scratch", tmp_path / "RESULTS.md"
    broken = dataclasses.replace(fake_case("alpha", commit), make_data=_missing_module)
    found = [broken, fake_case("beta", commit)]
    monkeypatch.setattr(run.cases_lib, "all_cases", lambda: found)
    argv = ["--mirrors", str(mirrors), "--scratch", str(scratch), "--write", str(page)]
    status = run.main(argv)
    captured = capsys.readouterr()
    assert status == 4
    assert "error: alpha: ModuleNotFoundError" in captured.err
    assert "did not finish (see above): alpha" in captured.err
    assert f"{page} not written" in captured.err and not page.exists()
    assert _result(scratch, "beta")["runs"]["1"][0]["ok"]
    assert "| alpha " not in captured.out and "| beta " in captured.out


def test_a_result_json_write_that_fails_midway_leaves_the_old_result(tmp_path, mirror):
    # The file-size limit lets the run write 1 MB of a result of ~4 MB: the
    # write fails (EFBIG) halfway through, as on a full disk.
    mirrors, commit = mirror
    scratch = tmp_path / "scratch"
    old = run.run_case(fake_case("tiny", commit), mirrors, scratch)
    before = (scratch / "tiny" / "result.json").read_text()
    extra = textwrap.dedent(
        """
        import resource, signal
        big = {"1": [{"ok": False, "error": "x" * 4_000_000}]}
        run.run_devices = lambda *args: big
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
        resource.setrlimit(resource.RLIMIT_FSIZE, (1_000_000, hard))
        """
    )
    code = _HOLDER.format(
        root=str(ROOT),
        tests=str(ROOT / "tests"),
        name="tiny",
        commit=commit,
        go="-",
        mirrors=str(mirrors),
        scratch=str(scratch),
        extra=extra,
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert proc.returncode != 0 and "File too large" in proc.stderr, proc.stderr
    assert (scratch / "tiny" / "result.json").read_text() == before
    assert json.loads(before)["runs"] == old["runs"]
    # Nor is the half-written temporary file left beside it.
    assert [p.name for p in (scratch / "tiny").iterdir() if "result" in p.name] == [
        "result.json"
    ]
