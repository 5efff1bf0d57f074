"""One trainer per model_dir, event files that never collide, interrupted saves."""

import glob
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time

import pytest
import tensorflow as tf
from estimator_models import dataset_input_fn, make_data, model_fn

from estimator_multigpu import estimator as emg_estimator
from estimator_multigpu.estimator import _lock, _processes

pytestmark = pytest.mark.tf_compat  # The runner must behave alike on TF 2.15.

X, Y = make_data(20)
TRAIN_FN = dataset_input_fn(X, Y, 8, repeat=True)
PREDICT_FN = dataset_input_fn(X, None, 8)
TESTS = os.path.dirname(__file__)


def _estimator(model_dir, **config):
    config = emg_estimator.RunConfig(model_dir=str(model_dir), **config)
    return emg_estimator.Estimator(model_fn, config=config, params={})


def _log_levels(caplog, level="INFO"):
    for name in (None, "tensorflow", "absl"):
        caplog.set_level(level, logger=name)


def _wait_for(predicate, process, what, timeout=90):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return
        if process is not None and process.poll() is not None:
            break
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


# --- Two trainers started together: one trains, the other is refused. ---

_TRAINER = textwrap.dedent(
    """
    import os, sys, time
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
    sys.path.insert(0, {tests!r})
    import tensorflow as tf
    from estimator_models import dataset_input_fn, make_data, model_fn
    from estimator_multigpu import estimator as emg_estimator

    class StopOnFile(tf.compat.v1.train.SessionRunHook):
        def after_run(self, run_context, run_values):
            if os.path.exists({stop!r}):
                run_context.request_stop()
            time.sleep(0.01)

    x, y = make_data(20)
    config = emg_estimator.RunConfig(
        model_dir={model_dir!r}, save_checkpoints_steps=5, log_step_count_steps=5
    )
    estimator = emg_estimator.Estimator(model_fn, config=config, params={{}})
    open({ready!r}, "w").close()
    while not os.path.exists({go!r}):
        time.sleep(0.005)
    estimator.train(dataset_input_fn(x, y, 8, repeat=True), hooks=[StopOnFile()])
    """
)


def _start_trainers(tmp_path, model_dir):
    children = []
    for i in range(2):
        script = _TRAINER.format(
            tests=TESTS,
            model_dir=str(model_dir),
            ready=str(tmp_path / f"ready{i}"),
            go=str(tmp_path / "go"),
            stop=str(tmp_path / "stop"),
        )
        children.append(
            subprocess.Popen(
                [sys.executable, "-c", script],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    return children


def _first_to_exit(children, timeout=90):
    deadline = time.time() + timeout
    while time.time() < deadline:
        for i, child in enumerate(children):
            if child.poll() is not None:
                return child, children[1 - i]
        time.sleep(0.05)
    raise AssertionError("neither trainer exited")


@pytest.mark.slow
def test_second_trainer_started_together_is_refused(tmp_path):
    model_dir = tmp_path / "model"
    children = _start_trainers(tmp_path, model_dir)
    try:
        for i, child in enumerate(children):
            _wait_for((tmp_path / f"ready{i}").exists, child, f"trainer {i} ready")
        (tmp_path / "go").touch()  # Both call train() at the same moment.
        refused, winner = _first_to_exit(children)
        _, refused_err = refused.communicate()
        assert refused.returncode != 0, refused_err
        assert "ModelDirLockedError" in refused_err
        assert f"pid {winner.pid} on host {socket.gethostname()}" in refused_err
        assert winner.poll() is None  # The winner trains on, undisturbed.
    finally:
        (tmp_path / "stop").touch()
        for child in children:
            child.wait(timeout=90)
    _, winner_err = winner.communicate()
    assert winner.returncode == 0, winner_err
    assert not os.path.exists(_lock.lock_path(str(model_dir)))
    (event_file,) = glob.glob(str(model_dir / "events.out.tfevents.*"))
    assert "loss" in _tags(event_file)  # Whole, readable records only.
    assert tf.train.latest_checkpoint(str(model_dir))


def _tags(path):
    tags = set()
    for event in tf.compat.v1.train.summary_iterator(path):
        tags.update(value.tag for value in event.summary.value)
    return tags


# --- A lock held by a live process; the same lock after kill -9. ---

_HOLDER = textwrap.dedent(
    """
    import sys, time
    from estimator_multigpu.estimator import _lock as lock, _processes as processes
    lock.acquire({model_dir!r})
    print("locked", flush=True)
    time.sleep(600)
    """
)


@pytest.fixture
def lock_holder(tmp_path):
    """A live process holding the training lock of `tmp_path/model`."""
    model_dir = tmp_path / "model"
    _estimator(model_dir, save_checkpoints_steps=2).train(TRAIN_FN, steps=2)
    script = _HOLDER.format(model_dir=str(model_dir))
    child = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert child.stdout.readline().strip() == "locked"
    yield model_dir, child
    child.kill()
    child.wait()


@pytest.mark.slow
def test_live_lock_refuses_training_but_not_readers(lock_holder):
    model_dir, child = lock_holder
    estimator = _estimator(model_dir)
    with pytest.raises(
        _lock.ModelDirLockedError,
        match=rf"being trained by pid {child.pid} on host .*wait for it to finish",
    ):
        estimator.train(TRAIN_FN, steps=1)
    assert estimator.get_variable_value("global_step") == 2
    assert estimator.evaluate(dataset_input_fn(X, Y, 8))["global_step"] == 2
    assert len(list(estimator.predict(PREDICT_FN))) == len(X)


@pytest.mark.slow
def test_lock_of_a_killed_trainer_is_taken_over(lock_holder, caplog):
    model_dir, child = lock_holder
    child.send_signal(signal.SIGKILL)
    child.wait()
    _log_levels(caplog, "WARNING")
    estimator = _estimator(model_dir)
    estimator.train(TRAIN_FN, steps=1)
    assert estimator.get_variable_value("global_step") == 3
    assert f"from pid {child.pid} on host" in caplog.text
    assert "no longer running" in caplog.text
    assert not os.path.exists(_lock.lock_path(str(model_dir)))


def _write_lock(model_dir, **fields):
    os.makedirs(model_dir, exist_ok=True)
    holder = {
        "pid": 4321,
        "host": "trainer-7.example",
        "started": "2024-01-02 03:04:05 UTC",
        "token": "0" * 32,
        **fields,
    }
    with open(_lock.lock_path(str(model_dir)), "w") as f:
        json.dump(holder, f)


def test_lock_from_another_host_is_not_broken(tmp_path):
    model_dir = tmp_path / "model"
    _write_lock(model_dir)
    path = _lock.lock_path(str(model_dir))
    with pytest.raises(
        emg_estimator.ModelDirLockedError,
        match=rf"pid 4321 on host trainer-7.example .*delete {path} and start again",
    ):
        _estimator(model_dir).train(TRAIN_FN, steps=1)
    assert os.path.exists(path)


def _dead_pid():
    """The pid of a process that has ended (and been reaped)."""
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout)


def test_stale_lock_of_this_host_is_taken_over(tmp_path, caplog):
    model_dir = tmp_path / "model"
    pid = _dead_pid()
    _write_lock(
        model_dir,
        pid=pid,
        host=socket.gethostname(),
        pid_namespace=_processes.pid_namespace(),
    )
    _log_levels(caplog, "WARNING")
    _estimator(model_dir).train(TRAIN_FN, steps=1)
    path = _lock.lock_path(str(model_dir))
    assert f"Taking over the training lock {path} from pid {pid} on host" in (
        caplog.text
    )
    assert not os.path.exists(path)


def test_process_liveness():
    me = os.getpid()
    assert _processes.is_running(me, _processes.start_time(me))
    assert not _processes.is_running(me, "1")  # Its pid, reused by another process.
    assert not _processes.is_running(_dead_pid(), None)
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    _wait_for(lambda: _state(child.pid) == "Z", None, "a zombie child")
    assert not _processes.is_running(child.pid, None)  # Exited, not yet reaped.
    child.wait()


def _state(pid):
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0]


def test_a_second_train_in_this_process_is_refused(tmp_path):
    model_dir = str(tmp_path / "model")
    with _lock.hold(model_dir):
        with pytest.raises(
            _lock.ModelDirLockedError, match="already being trained by this process"
        ):
            _estimator(model_dir).train(TRAIN_FN, steps=1)
    _estimator(model_dir).train(TRAIN_FN, steps=1)  # Released: trains.


class _Boom(Exception):
    pass


def _failing_input_fn():
    raise _Boom("input_fn failed")


def test_lock_is_released_when_training_fails(tmp_path):
    model_dir = tmp_path / "model"
    with pytest.raises(_Boom):
        _estimator(model_dir).train(_failing_input_fn, steps=1)
    assert not model_dir.exists()  # Created for the lock, empty: removed again.
    os.makedirs(model_dir)
    with pytest.raises(_Boom):
        _estimator(model_dir).train(_failing_input_fn, steps=1)
    assert os.listdir(model_dir) == []


def test_train_and_evaluate_evaluates_while_holding_the_lock(tmp_path):
    estimator = _estimator(tmp_path / "model", save_checkpoints_steps=2)
    metrics, _ = emg_estimator.train_and_evaluate(
        estimator,
        emg_estimator.TrainSpec(TRAIN_FN, max_steps=4),
        emg_estimator.EvalSpec(dataset_input_fn(X, Y, 8), throttle_secs=0),
    )
    assert metrics["global_step"] == 4


@pytest.mark.parametrize("failing", ["makedirs", "open"])
def test_unwritable_model_dir_is_named(tmp_path, monkeypatch, failing):
    """A read-only model_dir (simulated: tests may run as root, who may write)."""
    model_dir = tmp_path / "model"
    if failing == "open":
        os.makedirs(model_dir)
    real = getattr(os, failing)

    def refuse(path, *args, **kwargs):
        if str(path).startswith(str(model_dir)):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, failing, refuse)
    with pytest.raises(
        ValueError, match=r"`model_dir` \(.*\) cannot be written \(Permission denied\)"
    ):
        _estimator(model_dir).train(TRAIN_FN, steps=1)


# --- Event files: a unique name per writer, never appended to. ---


def _occupy_default_names(directory, content=b"not an event file"):
    """Files under every name TF's writers would pick in the next two minutes."""
    os.makedirs(directory, exist_ok=True)
    now, host = int(time.time()), socket.gethostname()
    names = [f"events.out.tfevents.{t:010d}.{host}" for t in range(now - 1, now + 120)]
    for name in names:
        with open(os.path.join(directory, name), "wb") as f:
            f.write(content)
    return {name: content for name in names}


def _unchanged(directory, occupied):
    for name, content in occupied.items():
        with open(os.path.join(directory, name), "rb") as f:
            assert f.read() == content, name


def _new_event_files(directory, occupied):
    paths = glob.glob(os.path.join(directory, "events.out.tfevents.*"))
    return sorted(p for p in paths if os.path.basename(p) not in occupied)


def test_two_writers_in_one_second_get_their_own_files(tmp_path):
    model_dir = tmp_path / "model"
    estimator = _estimator(model_dir, save_checkpoints_steps=1)
    estimator.train(TRAIN_FN, steps=1)
    eval_dir = estimator.eval_dir()
    occupied = _occupy_default_names(eval_dir)
    for _ in range(2):  # Two evaluators, as two processes would be.
        tf.compat.v1.summary.FileWriterCache.clear()
        estimator.evaluate(dataset_input_fn(X, Y, 8))
    _unchanged(eval_dir, occupied)
    first, second = _new_event_files(eval_dir, occupied)
    assert {"loss", "accuracy"} <= _tags(first)
    assert {"loss", "accuracy"} <= _tags(second)


def test_rerun_never_appends_to_a_truncated_event_file(tmp_path):
    model_dir = tmp_path / "model"
    estimator = _estimator(model_dir, save_checkpoints_steps=1, save_summary_steps=1)
    estimator.train(TRAIN_FN, steps=2)
    tf.compat.v1.summary.FileWriterCache.clear()  # As when the process ends.
    (killed,) = glob.glob(str(model_dir / "events.out.tfevents.*"))
    with open(killed, "rb") as f:
        truncated = f.read()[:-7]  # The last record cut short, as by kill -9.
    os.remove(killed)
    occupied = _occupy_default_names(model_dir, truncated)
    estimator.train(TRAIN_FN, steps=2)
    _unchanged(model_dir, occupied)
    (new_file,) = _new_event_files(model_dir, occupied)
    assert "loss" in _tags(new_file)


# --- What an interrupted checkpoint save leaves behind. ---


def _interrupted_save(model_dir, step):
    """Writes `model.ckpt-<step>_temp/part-*` as a save killed before merging."""
    part = os.path.join(model_dir, f"model.ckpt-{step}_temp", "part-00000-of-00001")
    os.makedirs(os.path.dirname(part), exist_ok=True)
    tf.raw_ops.SaveV2(
        prefix=part,
        tensor_names=["dense/kernel"],
        shape_and_slices=[""],
        tensors=[tf.zeros([4, 3])],
    )
    return os.path.dirname(part)


def test_stale_temp_checkpoints_are_removed_at_start(tmp_path, caplog):
    model_dir = tmp_path / "model"
    estimator = _estimator(model_dir, save_checkpoints_steps=2)
    estimator.train(TRAIN_FN, steps=2)
    temp = _interrupted_save(str(model_dir), 4)
    state_temp = model_dir / ("checkpoint.tmp" + "ab" * 16)
    state_temp.write_text('model_checkpoint_path: "model.ckpt-4"\n')
    users = model_dir / "notes-1_temp"
    users.mkdir()
    (users / "mine.txt").write_text("keep me")
    _log_levels(caplog)
    estimator.train(TRAIN_FN, steps=1)
    assert not os.path.exists(temp)
    assert not state_temp.exists()
    assert (users / "mine.txt").read_text() == "keep me"
    assert f"Removing {temp}, left by a checkpoint save that was interrupted" in (
        caplog.text
    )
    assert estimator.get_variable_value("global_step") == 3


@pytest.mark.slow
def test_stale_temp_checkpoints_stay_while_another_process_trains(lock_holder):
    model_dir, _ = lock_holder
    temp = _interrupted_save(str(model_dir), 4)  # It may be the holder's save.
    with pytest.raises(_lock.ModelDirLockedError):
        _estimator(model_dir).train(TRAIN_FN, steps=1)
    assert os.path.isdir(temp)


def test_check_before_slow_work_names_a_live_holder(tmp_path):
    model_dir = tmp_path / "model"
    _write_lock(model_dir)  # Another host's: never broken.
    with pytest.raises(
        emg_estimator.ModelDirLockedError,
        match=rf"model_dir {model_dir} is being trained by pid 4321 on host "
        r"trainer-7\.example",
    ):
        emg_estimator.check_model_dir_unlocked(str(model_dir))
    assert os.path.exists(_lock.lock_path(str(model_dir)))


@pytest.mark.parametrize("state", ["none", "stale"])
def test_check_before_slow_work_passes_what_train_would_take(tmp_path, state):
    model_dir = tmp_path / "model"
    if state == "stale":
        _write_lock(
            model_dir,
            pid=_dead_pid(),
            host=socket.gethostname(),
            pid_namespace=_processes.pid_namespace(),
        )
    emg_estimator.check_model_dir_unlocked(str(model_dir))  # Takes nothing.
    assert os.path.exists(_lock.lock_path(str(model_dir))) is (state == "stale")
