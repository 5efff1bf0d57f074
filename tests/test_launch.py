"""The local cluster launcher: TF_CONFIG per task, prefixes, stop, restart."""

import json
import os
import pathlib
import re
import signal
import socket
import subprocess
import sys
import time

import pytest

from estimator_multigpu import cluster
from estimator_multigpu.launch import plan_tasks

# The task script: writes its TF_CONFIG and pid to DIR, then acts by role.
_TASK = r"""
import json, os, pathlib, signal, sys, time
out = pathlib.Path(sys.argv[1])
modes = set(sys.argv[2].split("+"))
config = json.loads(os.environ["TF_CONFIG"])
name = f"{config['task']['type']}{config['task']['index']}"
print(f"hello from {name}", flush=True)


def note_term(signum, frame):  # Records the SIGTERM, then carries on.
    (out / f"{name}.term").write_text(repr(time.time()))


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def wait_until(condition, seconds=30):
    deadline = time.time() + seconds
    while not condition() and time.time() < deadline:
        time.sleep(0.05)
    return condition()


def pids(task):
    return [int(p.name.rsplit(".", 1)[1]) for p in out.glob(f"{task}.pid.*")]


if "ignore_term" in modes:  # Before the pid file: a task listed ignores it.
    signal.signal(signal.SIGTERM, note_term)
(out / f"{name}.pid.{os.getpid()}").write_text(os.environ["TF_CONFIG"])
primary = name == "chief0"
cluster_size = sum(len(tasks) for tasks in config["cluster"].values())
if "fail" in modes and name == "worker1":
    wait_until(lambda: len(list(out.glob("*.pid.*"))) >= cluster_size)
    sys.exit(3)
if "crash_once" in modes and name == "worker1":
    if not (out / "crashed").exists():
        (out / "crashed").write_text("")
        os.kill(os.getpid(), signal.SIGKILL)
    (out / "rejoined").write_text("")
if "crash_always" in modes and name == "worker1":
    sys.exit(5)
if name == "evaluator0" and modes & {"eval_finishes", "eval_fails"}:
    wait_until(lambda: pids("chief0") and not any(map(alive, pids("chief0"))))
    if wait_until(lambda: not any(map(alive, pids("ps0"))), seconds=10):
        (out / "ps_gone_before_evaluation_ended").write_text("")
    time.sleep(1)  # Evaluates the final checkpoint.
    (out / "evaluated").write_text("")
    sys.exit(4 if "eval_fails" in modes else 0)
if primary:
    while "all" in modes and len(list(out.glob("*.pid.*"))) < 5:
        time.sleep(0.05)
    while "crash_once" in modes and not (out / "rejoined").exists():
        time.sleep(0.05)
    if modes & {"all", "crash_once"}:
        sys.exit(6 if "chief_fails" in modes else 0)
time.sleep(120)
"""


def _launch(tmp_path, mode, *flags, timeout=60):
    script = tmp_path / "task.py"
    script.write_text(_TASK)
    argv = [sys.executable, "-m", "estimator_multigpu.launch", *flags, "--"]
    argv += [sys.executable, str(script), str(tmp_path), mode]
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout)


def _task_pids(tmp_path):
    return [int(p.name.rsplit(".", 1)[1]) for p in tmp_path.glob("*.pid.*")]


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _assert_all_gone(tmp_path):
    pids = _task_pids(tmp_path)
    assert pids
    deadline = time.monotonic() + 5
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in pids if _alive(p)]


def test_plan_gives_each_task_its_tf_config():
    tasks = plan_tasks(ps=1, workers=2, chief=True, evaluator=True)
    assert [t.name for t in tasks] == [
        "chief:0",
        "worker:0",
        "worker:1",
        "ps:0",
        "evaluator:0",
    ]
    parsed = [cluster.parse_tf_config(t.tf_config) for t in tasks]
    assert [(c.task_type, c.task_index) for c in parsed] == [
        (t.task_type, t.index) for t in tasks
    ]
    addresses = [a for jobs in parsed[0].jobs.values() for a in jobs]
    assert len(set(addresses)) == 4
    assert all(a.startswith("127.0.0.1:") for a in addresses)
    assert all(c.jobs == parsed[0].jobs for c in parsed)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"ps": 1, "workers": 0}, r"`workers` is 0 and there is no chief"),
        ({"ps": -1, "workers": 1}, r"`ps` must be an integer >= 0, got -1"),
        ({"ps": 0, "workers": 1.5}, r"`workers` must be an integer >= 0, got 1.5"),
    ],
    ids=["no_training_task", "negative_ps", "float_workers"],
)
def test_plan_rejects_bad_counts(kwargs, match):
    with pytest.raises(ValueError, match=match):
        plan_tasks(**kwargs)


def test_runs_every_task_and_prefixes_lines(tmp_path):
    flags = ["--ps=1", "--workers=2", "--chief", "--evaluator"]
    result = _launch(tmp_path, "all", *flags, "--evaluator-grace-seconds=0.5")
    assert result.returncode == 0, result.stdout + result.stderr
    for name in ("chief:0", "worker:0", "worker:1", "ps:0", "evaluator:0"):
        assert f"[{name}] hello from {name.replace(':', '')}" in result.stdout
    assert "[launch] chief:0 exited with status 0: stopping all tasks but the" in (
        result.stdout
    )
    configs = {
        p.name.split(".")[0]: json.loads(p.read_text())
        for p in tmp_path.glob("*.pid.*")
    }
    assert configs["worker1"]["task"] == {"type": "worker", "index": 1}
    assert "evaluator" not in configs["evaluator0"]["cluster"]
    _assert_all_gone(tmp_path)


def test_failing_task_stops_job_with_its_status(tmp_path):
    result = _launch(tmp_path, "fail", "--ps=1", "--workers=2", "--chief")
    assert result.returncode == 3, result.stdout
    assert "[launch] worker:1 failed with status 3: stopping all tasks" in result.stdout
    _assert_all_gone(tmp_path)


def test_sigkill_after_grace_when_sigterm_ignored(tmp_path):
    # worker1 fails once every task has set its SIGTERM handler, which notes
    # the signal and carries on: only SIGKILL, after the grace, ends them.
    result = _launch(tmp_path, "ignore_term+fail", "--workers=3", "--grace-seconds=2")
    ended = time.time()
    assert result.returncode == 3, result.stdout
    terms = [float((tmp_path / f"worker{i}.term").read_text()) for i in (0, 2)]
    # Alive for the grace after SIGTERM (less a second for a late handler),
    # and killed soon after it.
    assert ended - max(terms) >= 1
    assert ended - min(terms) < 30
    _assert_all_gone(tmp_path)


def test_evaluator_finishes_after_the_chief(tmp_path):
    flags = ["--ps=1", "--workers=2", "--chief", "--evaluator"]
    result = _launch(tmp_path, "all+eval_finishes", *flags)
    assert result.returncode == 0, result.stdout
    assert "stopping all tasks but the evaluator, which gets up to 120 s" in (
        result.stdout
    )
    assert "[launch] evaluator:0 finished" in result.stdout
    assert (tmp_path / "evaluated").exists()
    assert (tmp_path / "ps_gone_before_evaluation_ended").exists()
    _assert_all_gone(tmp_path)


def test_evaluator_failing_after_the_chief_fails_the_job(tmp_path):
    flags = ["--ps=1", "--workers=2", "--chief", "--evaluator"]
    result = _launch(tmp_path, "all+eval_fails", *flags)
    assert result.returncode == 4, result.stdout
    assert "[launch] evaluator:0 failed with status 4" in result.stdout
    _assert_all_gone(tmp_path)


def test_evaluator_stopped_after_its_grace(tmp_path):
    flags = ["--ps=1", "--workers=2", "--chief", "--evaluator"]
    start = time.monotonic()
    result = _launch(tmp_path, "all", *flags, "--evaluator-grace-seconds=1")
    assert result.returncode == 0, result.stdout
    assert time.monotonic() - start >= 1
    assert "[launch] evaluator:0 still running after 1 s: stopping it" in (
        result.stdout
    )
    assert not (tmp_path / "evaluated").exists()
    _assert_all_gone(tmp_path)


def test_failed_chief_does_not_wait_for_the_evaluator(tmp_path):
    flags = ["--ps=1", "--workers=2", "--chief", "--evaluator"]
    start = time.monotonic()
    result = _launch(
        tmp_path, "all+chief_fails", *flags, "--evaluator-grace-seconds=100"
    )
    assert result.returncode == 6, result.stdout
    assert "[launch] chief:0 exited with status 6: stopping all tasks\n" in (
        result.stdout
    )
    assert time.monotonic() - start < 60
    _assert_all_gone(tmp_path)


def test_restart_failed_worker_rejoins(tmp_path):
    result = _launch(
        tmp_path, "crash_once", "--workers=2", "--chief", "--restart-failed"
    )
    assert result.returncode == 0, result.stdout
    assert "[launch] worker:1 failed with status 137: restart 1" in result.stdout
    assert result.stdout.count("[worker:1] hello from worker1") == 2
    _assert_all_gone(tmp_path)


def test_restarts_are_bounded(tmp_path):
    result = _launch(
        tmp_path,
        "crash_always",
        "--workers=2",
        "--chief",
        "--restart-failed",
        "--max-restarts=2",
    )
    assert result.returncode == 5
    assert result.stdout.count("[worker:1] hello from worker1") == 3
    assert "worker:1 failed with status 5: stopping all tasks" in result.stdout
    _assert_all_gone(tmp_path)


def test_crashed_chief_is_not_restarted(tmp_path):
    script = tmp_path / "t.py"
    script.write_text(
        "import os, sys, time\nsys.exit(7) if '\"chief\"' in os.environ['TF_CONFIG'].split('task')[1] else time.sleep(60)\n"
    )
    argv = [
        sys.executable,
        "-m",
        "estimator_multigpu.launch",
        "--chief",
        "--restart-failed",
        "--",
        sys.executable,
        str(script),
    ]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert result.returncode == 7
    assert "chief:0 exited with status 7" in result.stdout


@pytest.mark.parametrize(
    "signum",
    [signal.SIGINT, signal.SIGTERM, signal.SIGKILL],
    ids=["ctrl_c", "sigterm", "sigkill"],
)
def test_stopping_launcher_leaves_no_orphans(tmp_path, signum):
    script = tmp_path / "task.py"
    script.write_text(_TASK)
    argv = [
        sys.executable,
        "-m",
        "estimator_multigpu.launch",
        "--ps=1",
        "--workers=2",
        "--grace-seconds=1",
        "--",
    ]
    argv += [sys.executable, str(script), str(tmp_path), "ignore_term"]
    launcher = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while len(_task_pids(tmp_path)) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(_task_pids(tmp_path)) == 3
    launcher.send_signal(signum)
    launcher.wait(timeout=30)
    output = launcher.stdout.read().decode()
    if signum == signal.SIGKILL:
        assert launcher.returncode == -9
    else:
        assert launcher.returncode == 128 + signum
        assert f"[launch] {signal.Signals(signum).name}: stopping all tasks" in output
    _assert_all_gone(tmp_path)


@pytest.mark.parametrize(
    "flags, match",
    [
        (["--workers=1"], r"no command: put it after `--`"),
        (["--workers=0", "--", "true"], r"`workers` is 0 and there is no chief"),
        (["--ps=-1", "--", "true"], r"--ps: must be an integer >= 0, not '-1'"),
        (
            ["--grace-seconds=x", "--", "true"],
            r"--grace-seconds: must be a number >= 0",
        ),
        (
            ["--", "no-such-command-7f3a", "--flag"],
            r"command not found: 'no-such-command-7f3a' is not on PATH",
        ),
        (
            ["--", "/no/such/dir/train.py"],
            r"command not found: '/no/such/dir/train.py' does not exist",
        ),
        (
            ["--", __file__],
            r"command '.*test_launch.py' is not executable: run it through its "
            r"interpreter",
        ),
        (
            ["--workers=2", "--max-restarts=5", "--", "true"],
            r"--max-restarts=5 has no effect without --restart-failed: add "
            r"--restart-failed",
        ),
    ],
    ids=[
        "no_command",
        "no_training_task",
        "negative_ps",
        "bad_grace",
        "missing_command",
        "missing_path",
        "not_executable",
        "max_restarts_alone",
    ],
)
def test_usage_errors_start_nothing(flags, match):
    argv = [sys.executable, "-m", "estimator_multigpu.launch", *flags]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stdout == ""
    assert re.search(match, result.stderr), result.stderr


class _SlowOut:
    """An output that takes a while per line, as a loaded terminal or pipe may."""

    def __init__(self):
        self.lines = []

    def write(self, text):
        time.sleep(0.01)
        self.lines.append(text)

    def flush(self):
        pass


@pytest.mark.slow
def test_every_line_of_a_finished_task_is_shown():
    """The chief's last lines arrive, however slowly the output drains.

    The chief prints 800 lines and exits at once; at 10 ms a line the launcher
    copies them for about 8 s after the exit.
    """
    from estimator_multigpu.launch._supervisor import Supervisor

    script = "for i in range(800): print('line', i)"
    tasks = plan_tasks(ps=0, workers=1, chief=True, evaluator=False)
    out = _SlowOut()
    status = Supervisor(tasks, [sys.executable, "-c", script], out=out).run()
    assert status == 0
    chief = [line for line in out.lines if line.startswith("[chief:0] line ")]
    assert len(chief) == 800
    assert chief[-1] == "[chief:0] line 799\n"


def _running(pid):
    """Alive and not a zombie (an orphan waiting for init to reap it)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:
        return _alive(pid)


def _wait_for_files(folder, pattern, count, seconds=30):
    deadline = time.monotonic() + seconds
    while len(list(folder.glob(pattern))) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    return [int(p.read_text()) for p in folder.glob(pattern)]


@pytest.mark.parametrize(
    "signum",
    [signal.SIGTERM, signal.SIGKILL],
    ids=["sigterm", "sigkill"],
)
def test_stopping_launcher_takes_down_the_tasks_children(tmp_path, signum):
    """Each task is a shell whose own child (`sleep`) outlives it unless its
    whole process group is taken down, even when the launcher gets SIGKILL."""
    note = f"> {tmp_path}/new.$$ && mv {tmp_path}/new.$$ {tmp_path}"  # Whole files.
    shell = f"echo $$ {note}/sh.$$; sleep 1000 & echo $! {note}/kid.$$; wait"
    argv = [sys.executable, "-m", "estimator_multigpu.launch", "--workers=2"]
    argv += ["--grace-seconds=1", "--", "sh", "-c", shell]
    launcher = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
    kids = _wait_for_files(tmp_path, "kid.*", 2)
    shells = _wait_for_files(tmp_path, "sh.*", 2)
    assert len(kids) == 2 and len(shells) == 2
    launcher.send_signal(signum)
    launcher.wait(timeout=30)
    deadline = time.monotonic() + 5
    while any(map(_running, kids + shells)) and time.monotonic() < deadline:
        time.sleep(0.05)
    survivors = [p for p in kids + shells if _running(p)]
    for pid in survivors:  # Do not leave them behind after a failure.
        os.kill(pid, signal.SIGKILL)
    assert not survivors


_BIND = """
import json, os, socket
config = json.loads(os.environ["TF_CONFIG"])
task = config["task"]
host, port = config["cluster"][task["type"]][task["index"]].split(":")
socket.socket().bind((host, int(port)))
"""


def test_port_in_use_is_named_with_its_task_before_anything_starts():
    """A port of the cluster taken by another process: the message names the
    task and the port, and no task starts (each would fail to serve)."""
    from estimator_multigpu.launch._supervisor import Supervisor

    tasks = plan_tasks(ps=1, workers=2)
    address = json.loads(tasks[1].tf_config)["cluster"]["worker"][1]
    holder = socket.socket()
    holder.bind(("127.0.0.1", int(address.rsplit(":", 1)[1])))
    holder.listen()
    out = _SlowOut()
    with holder:
        status = Supervisor(tasks, [sys.executable, "-c", _BIND], out=out).run()
    text = "".join(out.lines)
    assert status == 1, text
    assert (
        f"[launch] worker:1: its port {address} (in its TF_CONFIG) is in use by "
        "another process" in text
    )
    assert "run the launcher again: it picks new free ports" in text
    assert "Traceback" not in text
    assert not [line for line in out.lines if not line.startswith("[launch]")]


def test_command_that_cannot_be_executed_is_named(tmp_path):
    """An executable file with no `#!` line: exec fails in every task."""
    script = tmp_path / "train.py"
    script.write_text("print('hello')\n")
    script.chmod(0o755)
    argv = [sys.executable, "-m", "estimator_multigpu.launch", "--", str(script)]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert result.returncode == 126, result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    assert (
        f"[launch] worker:0: cannot run {str(script)!r}: Exec format error; "
        "a script without a #! line? Run it through its interpreter"
    ) in result.stdout


_STEAL = """
import json, os, pathlib, socket, subprocess, sys, time
out = pathlib.Path(sys.argv[1])
config = json.loads(os.environ["TF_CONFIG"])
task = config["task"]
host, port = config["cluster"][task["type"]][task["index"]].split(":")
if task["index"] == 1:  # Another program, in its own session, takes the port.
    holder = subprocess.Popen(
        [sys.executable, "-c", "import socket, time; s = socket.socket(); "
         f"s.bind(({host!r}, {port})); s.listen(); print(1, flush=True); "
         "time.sleep(60)"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    holder.stdout.readline()
    (out / "holder").write_text(str(holder.pid))
    sys.exit(3)
time.sleep(60)
"""


def test_restart_names_a_port_taken_meanwhile(tmp_path):
    script = tmp_path / "steal.py"
    script.write_text(_STEAL)
    argv = [sys.executable, "-m", "estimator_multigpu.launch", "--workers=2"]
    argv += ["--restart-failed", "--grace-seconds=1", "--"]
    argv += [sys.executable, str(script), str(tmp_path)]
    try:
        result = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    finally:
        holder = tmp_path / "holder"
        if holder.exists():
            os.kill(int(holder.read_text()), signal.SIGKILL)
    assert result.returncode == 1, result.stdout
    assert "[launch] worker:1 failed with status 3: restart 1" in result.stdout
    assert re.search(
        r"\[launch\] worker:1: its port 127\.0\.0\.1:\d+ \(in its TF_CONFIG\) is "
        r"in use by another process",
        result.stdout,
    )


def _watchdog(launcher_pid, seconds=30):
    """The pid of the launcher's watchdog (its child running `_reaper.py`)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
            try:
                parent = int(stat.read_text().rpartition(")")[2].split()[1])
                cmdline = (stat.parent / "cmdline").read_bytes()
            except (OSError, IndexError, ValueError):
                continue
            if parent == launcher_pid and b"_reaper.py" in cmdline:
                return int(stat.parent.name)
        time.sleep(0.05)
    raise AssertionError(f"no watchdog under the launcher (pid {launcher_pid})")


def _wait_for_text(path, text, seconds=30):
    deadline = time.monotonic() + seconds
    while text not in path.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    return path.read_text()


# Each task writes its pid; worker:2 fails (status 3) once DIR/go exists.
_FAIL_ON_GO = r"""
import json, os, pathlib, signal, sys, time
out = pathlib.Path(sys.argv[1])
task = json.loads(os.environ["TF_CONFIG"])["task"]
if "ignore_term" in sys.argv[2:]:
    signal.signal(signal.SIGTERM, lambda *_: None)
(out / f"task.pid.{os.getpid()}").write_text(str(os.getpid()))
while task["index"] == 2 and not (out / "go").exists():
    time.sleep(0.05)
sys.exit(3) if task["index"] == 2 else time.sleep(120)
"""


def _start_launcher(tmp_path, *flags, mode=""):
    script = tmp_path / "fail_on_go.py"
    script.write_text(_FAIL_ON_GO)
    log = tmp_path / "launcher.log"
    argv = [sys.executable, "-m", "estimator_multigpu.launch", *flags, "--"]
    argv += [sys.executable, str(script), str(tmp_path), mode]
    with log.open("w") as out:
        launcher = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
    _wait_for_files(tmp_path, "task.pid.*", 3)
    return launcher, log


def _kill_watchdog(launcher, log):
    watchdog = _watchdog(launcher.pid)
    os.kill(watchdog, signal.SIGKILL)
    line = f"[launch] watchdog (pid {watchdog}) ended with signal 9: starting a new one"
    assert line in _wait_for_text(log, line), log.read_text()
    return watchdog


def test_launcher_survives_its_watchdogs_death(tmp_path):
    """Once its watchdog is killed, the launcher starts a new one, and the
    next task exit ends the job as usual (no BrokenPipeError)."""
    launcher, log = _start_launcher(tmp_path, "--workers=3", "--grace-seconds=1")
    try:
        old = _kill_watchdog(launcher, log)
        assert _watchdog(launcher.pid) != old
        (tmp_path / "go").write_text("")
        launcher.wait(timeout=30)
    finally:
        launcher.kill()
    output = log.read_text()
    assert launcher.returncode == 3, output
    assert "[launch] worker:2 failed with status 3: stopping all tasks" in output
    assert "Traceback" not in output
    _assert_all_gone(tmp_path)


@pytest.mark.parametrize(
    "signum",
    [signal.SIGINT, signal.SIGTERM, signal.SIGKILL],
    ids=["ctrl_c", "sigterm", "sigkill"],
)
def test_tasks_children_go_with_the_launcher_after_its_watchdog_died(tmp_path, signum):
    """The new watchdog knows every task's group: a SIGKILL of the launcher
    after the first watchdog died still takes the tasks' children down."""
    note = f"> {tmp_path}/new.$$ && mv {tmp_path}/new.$$ {tmp_path}"
    shell = f"echo $$ {note}/sh.$$; sleep 1000 & echo $! {note}/kid.$$; wait"
    log = tmp_path / "launcher.log"
    argv = [sys.executable, "-m", "estimator_multigpu.launch", "--workers=2"]
    argv += ["--grace-seconds=1", "--", "sh", "-c", shell]
    with log.open("w") as out:
        launcher = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
    kids = _wait_for_files(tmp_path, "kid.*", 2)
    shells = _wait_for_files(tmp_path, "sh.*", 2)
    assert len(kids) == 2 and len(shells) == 2
    try:
        _kill_watchdog(launcher, log)
        launcher.send_signal(signum)
        launcher.wait(timeout=30)
    finally:
        launcher.kill()
    # The new watchdog is a fresh interpreter that reads the groups, then
    # SIGTERMs them and SIGKILLs after the 1 s grace: on a loaded machine its
    # start alone has taken seconds (5 s here was once too short).
    deadline = time.monotonic() + 30
    while any(map(_running, kids + shells)) and time.monotonic() < deadline:
        time.sleep(0.05)
    survivors = [p for p in kids + shells if _running(p)]
    for pid in survivors:  # Do not leave them behind after a failure.
        os.kill(pid, signal.SIGKILL)
    assert not survivors, log.read_text()
    assert "Traceback" not in log.read_text()


def test_second_ctrl_c_kills_the_tasks_at_once(tmp_path):
    """Tasks ignore SIGTERM and the grace is 60 s: the second Ctrl-C kills
    them now, with one line and no KeyboardInterrupt traceback."""
    launcher, log = _start_launcher(
        tmp_path, "--workers=3", "--grace-seconds=60", mode="ignore_term"
    )
    try:
        launcher.send_signal(signal.SIGINT)
        _wait_for_text(log, "[launch] SIGINT: stopping all tasks")
        start = time.monotonic()
        launcher.send_signal(signal.SIGINT)
        launcher.wait(timeout=30)
    finally:
        launcher.kill()
    output = log.read_text()
    assert time.monotonic() - start < 20, output
    assert launcher.returncode == 128 + signal.SIGINT, output
    assert "[launch] SIGINT while stopping: killing all tasks" in output
    assert "Traceback" not in output and "KeyboardInterrupt" not in output
    _assert_all_gone(tmp_path)
