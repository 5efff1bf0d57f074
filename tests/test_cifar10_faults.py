"""The CIFAR trainer under bad flags and bad directories: each fails fast, clearly."""

import json
import os
import re
import shutil
import socket
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf
from absl import flags
from absl import logging as absl_logging
from absl.testing import flagsaver
from cifar10_helpers import tiny_config

from cifar10 import data, generate, main, model, model_dir, trainer
from estimator_multigpu import devices
from estimator_multigpu.estimator import _lock, _processes

FLAGS = flags.FLAGS
BOUND = devices.max_simulated_devices()
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
no_gpu = pytest.mark.skipif(
    bool(tf.config.list_physical_devices("GPU")),
    reason="checks the messages a machine without GPUs gives",
)


@pytest.fixture
def parse():
    """Parses flags as the command line would, restoring them afterwards."""
    with flagsaver.flagsaver():
        yield lambda *args: FLAGS(["cifar10.main", *args])
        FLAGS.unparse_flags()


@pytest.fixture
def run_main(parse):
    """Parses flags and runs `main.main`, restoring the log levels it sets."""
    tf_level, absl_level = tf.get_logger().level, absl_logging.get_verbosity()
    yield lambda *args: (parse(*args), main.main(["cifar10.main"]))
    tf.get_logger().setLevel(tf_level)
    absl_logging.set_verbosity(absl_level)


def _read_only(path) -> str:
    """Makes the directory `path` read-only, contents kept (a bind mount for root)."""
    os.chmod(path, 0o555)
    if not os.access(path, os.W_OK):
        return str(path)
    for mount in (["--bind", path, path], ["-o", "remount,bind,ro", path]):
        if subprocess.run(["mount", *map(str, mount)], capture_output=True).returncode:
            pytest.skip("running as root without permission to mount read-only")
    return str(path)


@pytest.fixture
def make_read_only():
    """Makes directories read-only; writable (and unmounted) again afterwards."""
    made = []
    yield lambda path: made.append(path) or _read_only(path)
    for path in made:
        subprocess.run(["umount", str(path)], capture_output=True)
        os.chmod(path, 0o755)


@pytest.fixture
def read_only(tmp_path, make_read_only):
    """An empty read-only directory."""
    path = tmp_path / "read-only"
    path.mkdir()
    return make_read_only(path)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("tiny"))
    generate.generate(out, train_examples=40, test_examples=12, seed=1)
    return out


def _config(tmp_path, **kwargs):
    return tiny_config(tmp_path, **{"train_steps": 2, "log_every_steps": 1, **kwargs})


def _cli(*args, timeout=180):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    return subprocess.run(
        [sys.executable, "-m", "cifar10.main", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env=env,
    )


# Row 7: --eval_only needs a checkpoint.


@pytest.mark.parametrize("make", [False, True], ids=["missing", "empty"])
def test_eval_only_without_checkpoint_is_refused(run_main, tmp_path, make):
    model_dir = tmp_path / "modle"
    if make:
        model_dir.mkdir()
    with pytest.raises(
        SystemExit, match=rf"--eval_only.*no checkpoint in .*{model_dir}"
    ):
        run_main(
            "--eval_only",
            f"--model_dir={model_dir}",
            f"--cache_dir={tmp_path / 'cache'}",
            "--synthetic_examples=40,12",
        )
    assert model_dir.exists() is make
    assert not (tmp_path / "cache").exists()  # Refused before generating data.


@pytest.mark.slow
def test_eval_only_without_checkpoint_exits_non_zero(tmp_path):
    model_dir = tmp_path / "typo"
    result = _cli("--eval_only", f"--model_dir={model_dir}")
    assert result.returncode == 1
    assert f"no checkpoint in {model_dir}" in result.stderr
    assert "Test accuracy" not in result.stdout
    assert not model_dir.exists()


# Row 13: --simulate_devices is bounded.


def test_simulate_devices_bound_is_a_flag_error(parse):
    bound = devices.max_simulated_devices()
    with pytest.raises(
        flags.IllegalFlagValueError,
        match=rf"--simulate_devices=1000 .* at most {bound} .*--simulate_devices={bound}",
    ):
        parse("--simulate_devices=1000")


def test_simulate_devices_at_the_bound_is_accepted(parse):
    bound = devices.max_simulated_devices()
    parse(f"--simulate_devices={bound}", f"--global_batch_size={8 * bound}")
    assert FLAGS.simulate_devices == bound


@pytest.mark.slow
def test_simulate_devices_1000_fails_fast_on_the_command_line():
    result = _cli("--simulate_devices", "1000", timeout=120)
    assert result.returncode == 1
    assert "--simulate_devices=1000" in result.stderr
    assert f"at most {devices.max_simulated_devices()}" in result.stderr


# Row 18: device flags on a machine without GPUs point at --simulate_devices.


@no_gpu
@pytest.mark.parametrize(
    "args, match",
    [
        (["--num_gpus=8"], r"--num_gpus=8 .*no GPU.*pass --simulate_devices=8"),
        (
            ["--devices=/gpu:0,/gpu:1"],
            r"--devices names '/gpu:0'.*no GPU.*--devices=/cpu:0,/cpu:1 "
            r"--simulate_devices=2",
        ),
        (["--devices=/cpu:0,/cpu:5"], r"'/cpu:5'.*pass --simulate_devices=6"),
        (["--devices=gpu0"], r"--devices: Malformed device name 'gpu0'"),
        (
            ["--num_gpus=100"],
            rf"simulates at most {BOUND} .*ask for {BOUND} devices or fewer",
        ),
        (
            ["--devices=/cpu:0,/cpu:99"],
            rf"'/cpu:99'.*simulates at most {BOUND} ",
        ),
    ],
    ids=["num-gpus", "gpu-names", "cpu-index", "malformed", "past-bound", "cpu-99"],
)
def test_device_flags_point_at_simulate_devices(parse, args, match):
    with pytest.raises(flags.IllegalFlagValueError, match=match) as error:
        parse(*args)
    assert "emg.devices.simulate" not in str(error.value)


@no_gpu
@pytest.mark.slow
def test_num_gpus_on_a_cpu_machine_exits_with_the_flag_to_use():
    result = _cli("--num_gpus", "4", timeout=120)
    assert result.returncode == 1
    assert "--simulate_devices=4" in result.stderr
    assert "emg.devices.simulate" not in result.stderr


@no_gpu
def test_enough_simulated_devices_are_accepted(parse):
    parse("--num_gpus=4", "--simulate_devices=4")
    assert FLAGS.num_gpus == 4


# Row 15: labels are validated before training.


def test_bad_label_fails_before_training(tmp_path):
    data_dir = tmp_path / "data"
    generate.generate(str(data_dir), train_examples=40, test_examples=12, seed=1)
    path = data_dir / "cifar-10-batches-bin" / "data_batch_4.bin"
    raw = bytearray(path.read_bytes())
    raw[5 * 3073] = 200
    path.write_bytes(bytes(raw))
    config = _config(tmp_path, data_dir=str(data_dir))
    with pytest.raises(
        ValueError, match=r"data_batch_4.bin.* record 5 has label 200.*0\.\.9"
    ):
        trainer.prepare(config)
    assert not (tmp_path / "model").exists()


# Hostile flags and directories: each fails before anything runs.


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (
            {"learning_rate": float("nan")},
            r"`learning_rate` must be a finite number >= 0; received nan",
        ),
        (
            {"weight_decay": float("inf")},
            r"`weight_decay` must be a finite number >= 0; received inf",
        ),
        ({"seed": -1}, r"`seed` must be an int in \[0, 2147483647\]; received -1"),
        ({"seed": 2**40}, r"`seed` must be an int in .*received 1099511627776"),
        (
            {"synthetic_examples": (3, 1)},
            r"`synthetic_examples` \(3, 1\).*at least 5 training",
        ),
        (
            {"synthetic_examples": (10**9, 10)},
            r"`synthetic_examples` \(1000000000, 10\).*at most 100000",
        ),
        ({"model_dir": ""}, r"`model_dir` is empty.*--model_dir"),
        ({"data_dir": ""}, r"`data_dir` is empty.*--data_dir=\."),
    ],
    ids=[
        "nan-lr",
        "inf-decay",
        "negative-seed",
        "huge-seed",
        "too-few-examples",
        "too-many-examples",
        "empty-model-dir",
        "empty-data-dir",
    ],
)
def test_bad_config_values(tmp_path, kwargs, match):
    with pytest.raises(ValueError, match=match):
        _config(tmp_path, **kwargs)


@pytest.mark.parametrize(
    "args, match",
    [
        (["--learning_rate=nan"], r"`learning_rate` must be a finite number"),
        (["--synthetic_examples=3,1"], r"`synthetic_examples` \(3, 1\)"),
    ],
    ids=["nan-lr", "too-few-examples"],
)
def test_bad_values_are_usage_errors(run_main, args, match):
    with pytest.raises(SystemExit, match=match):
        run_main(*args)


@pytest.mark.parametrize(
    "args, match",
    [
        (["--seed=-1"], r"flag --seed=-1: .*in the range \[0, 2147483647\]"),
        (["--global_batch_size=0"], r"flag --global_batch_size=0"),
        (["--train_steps=-5"], r"flag --train_steps=-5"),
        (["--simulate_devices=-1"], r"flag --simulate_devices=-1"),
        (["--num_gpus=-1"], r"flag --num_gpus=-1"),
        (["--log_every_steps=0"], r"flag --log_every_steps=0"),
    ],
    ids=["seed", "batch", "steps", "simulate", "num-gpus", "log-every"],
)
def test_out_of_range_flags(parse, args, match):
    with pytest.raises(flags.IllegalFlagValueError, match=match):
        parse(*args)


def test_data_errors_are_usage_errors_not_tracebacks(run_main, tmp_path):
    with pytest.raises(SystemExit, match=r"has no 'cifar-10-batches-bin'"):
        run_main(f"--data_dir={tmp_path}", f"--model_dir={tmp_path / 'm'}")
    assert not (tmp_path / "m").exists()


def test_batch_larger_than_the_training_set(tmp_path, tiny):
    config = _config(tmp_path, data_dir=tiny, global_batch_size=64)
    with pytest.raises(
        ValueError,
        match=r"`global_batch_size` \(64\) is more than the 40 training examples",
    ):
        trainer.prepare(config)


@pytest.mark.parametrize("download", [False, True], ids=["read", "download"])
def test_data_dir_that_is_a_file(tmp_path, download):
    path = tmp_path / "data.bin"
    path.write_bytes(b"mine")
    config = _config(tmp_path, data_dir=str(path), download=download)
    with pytest.raises(ValueError, match=rf"`data_dir` '{path}' is a file"):
        trainer.prepare(config)
    assert path.read_bytes() == b"mine"


def test_model_dir_that_is_a_file(tmp_path, tiny):
    path = tmp_path / "model.txt"
    path.write_bytes(b"mine")
    config = _config(tmp_path, data_dir=tiny, model_dir=str(path))
    with pytest.raises(ValueError, match=rf"`model_dir` '{path}' is a file"):
        trainer.prepare(config)
    assert path.read_bytes() == b"mine"


@pytest.mark.parametrize(
    "field, sub", [("model_dir", "m"), ("cache_dir", "c")], ids=["model", "cache"]
)
def test_read_only_directories(tmp_path, read_only, tiny, field, sub):
    kwargs = {field: os.path.join(read_only, sub)}
    if field == "model_dir":
        kwargs["data_dir"] = tiny
    with pytest.raises(
        ValueError, match=rf"`{field}` '{read_only}/{sub}' is not writable"
    ):
        trainer.prepare(_config(tmp_path, **kwargs))


def test_read_only_data_dir_with_download(tmp_path, read_only):
    config = _config(tmp_path, data_dir=read_only, download=True)
    with pytest.raises(ValueError, match=rf"`data_dir` '{read_only}' is not writable"):
        trainer.prepare(config)


def test_read_only_data_dir_is_fine_for_reading(tmp_path, tiny):
    folder = os.path.join(tiny, "cifar-10-batches-bin")
    os.chmod(folder, 0o555)
    try:
        assert trainer.prepare(_config(tmp_path, data_dir=tiny)) == tiny
    finally:
        os.chmod(folder, 0o755)


def test_labels_of_generated_data_are_valid(tiny):
    paths = data.filenames(tiny, "cifar10", "train")
    data.check_labels(paths, "cifar10")
    assert np.fromfile(paths[0], np.uint8)[::3073].max() < 10


# A model_dir written by another model fails before a graph is built.


@pytest.fixture(scope="module")
def resnet32_dir(tmp_path_factory):
    """A model_dir holding a real checkpoint of a ResNet-32 with 10 classes."""
    model_dir = str(tmp_path_factory.mktemp("resnet32"))
    with tf.Graph().as_default():
        images = tf.zeros([1, 32, 32, 3])
        model.resnet(images, 32, 10, training=False)
        tf.compat.v1.train.get_or_create_global_step()
        saver = tf.compat.v1.train.Saver()
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            saver.save(session, os.path.join(model_dir, "model.ckpt"), global_step=5)
    return model_dir


@pytest.mark.parametrize("eval_only", [False, True], ids=["train", "eval-only"])
def test_checkpoint_of_another_depth_is_refused(tmp_path, resnet32_dir, eval_only):
    config = _config(tmp_path, model_dir=resnet32_dir, eval_only=eval_only)
    with pytest.raises(
        ValueError,
        match=r"holds a checkpoint of a ResNet-32 with 10 classes .*model.ckpt-5.*"
        r"ask for a ResNet-20 with 10 classes.*--resnet_depth=32",
    ):
        trainer.prepare(config)


def test_checkpoint_of_another_dataset_is_refused(tmp_path, resnet32_dir):
    config = _config(
        tmp_path, model_dir=resnet32_dir, resnet_depth=32, dataset="cifar100"
    )
    with pytest.raises(
        ValueError, match=r"ResNet-32 with 10 classes.*ResNet-32 with 100 classes"
    ):
        trainer.prepare(config)


def test_eval_only_with_a_matching_checkpoint_is_accepted(tmp_path, resnet32_dir, tiny):
    config = _config(
        tmp_path, model_dir=resnet32_dir, resnet_depth=32, eval_only=True, data_dir=tiny
    )
    assert trainer.prepare(config) == tiny
    assert model_dir.checkpoint_model(tf.train.latest_checkpoint(resnet32_dir)) == (
        32,
        10,
    )


def test_eval_only_in_a_read_only_model_dir(
    tmp_path, resnet32_dir, tiny, make_read_only
):
    copy = shutil.copytree(resnet32_dir, tmp_path / "trained")
    config = _config(
        tmp_path,
        model_dir=make_read_only(copy),
        resnet_depth=32,
        eval_only=True,
        data_dir=tiny,
    )
    with pytest.raises(ValueError, match=rf"`model_dir` '{copy}' is not writable"):
        trainer.prepare(config)


# A damaged checkpoint, a full disk, a model_dir another trainer holds: the
# trainer ends with the message alone (exit status 1, no traceback).


def _cut_in_half(path):
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) // 2)


@pytest.fixture
def damaged_dir(tmp_path):
    """A model_dir whose only checkpoint (a ResNet-20's, step 5) is cut short."""
    model_dir = str(tmp_path / "damaged")
    with tf.Graph().as_default():
        model.resnet(tf.zeros([1, 32, 32, 3]), 20, 10, training=False)
        tf.compat.v1.train.get_or_create_global_step()
        saver = tf.compat.v1.train.Saver()
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            saver.save(session, os.path.join(model_dir, "model.ckpt"), global_step=5)
    (data_file,) = [n for n in os.listdir(model_dir) if ".data-" in n]
    _cut_in_half(os.path.join(model_dir, data_file))
    return model_dir


def _tiny_args(tmp_path, model_dir, *more):
    return (
        f"--model_dir={model_dir}",
        f"--cache_dir={tmp_path / 'cache'}",
        "--synthetic_examples=40,12",
        "--global_batch_size=8",
        "--train_steps=8",
        *more,
    )


@pytest.mark.parametrize(
    "more",
    [pytest.param((), marks=pytest.mark.slow), ("--eval_only",)],
    ids=["train", "eval-only"],
)
def test_damaged_checkpoint_ends_with_its_message_alone(
    run_main, tmp_path, damaged_dir, more
):
    with pytest.raises(SystemExit) as exit_info:
        run_main(*_tiny_args(tmp_path, damaged_dir, *more))
    message = exit_info.value.code
    assert isinstance(message, str)  # Printed alone, exit status 1.
    assert re.fullmatch(
        rf"Error: Checkpoint {damaged_dir}/model\.ckpt-5 cannot be read \(.*\): its "
        r"files are missing, truncated or corrupt.* There is no earlier checkpoint "
        rf"in {damaged_dir}: restore the files from a copy, or train from scratch "
        r"in a new model_dir\.",
        message,
        re.DOTALL,
    )


@pytest.fixture
def small_disk(mount_tmpfs):
    """A 12 MiB tmpfs (root only): the graph fits, the first checkpoint does not."""
    return mount_tmpfs("12m")


@pytest.mark.slow
def test_full_disk_ends_with_a_short_message_and_no_temp_folder(
    run_main, tmp_path, small_disk
):
    model_dir = small_disk / "model"
    with pytest.raises(SystemExit) as exit_info:
        run_main(*_tiny_args(tmp_path, model_dir))
    message = exit_info.value.code
    assert isinstance(message, str)
    assert message.startswith("Error: No space left on device")
    assert "\n" not in message and "Hint" not in message and "OOM" not in message
    assert str(model_dir) in message
    if "checkpoint" in message:  # The graph fitted, as with TF 2.21's sizes.
        assert re.search(r"needs about \d+\.\d MiB .*MiB is free", message)
    assert [n for n in os.listdir(model_dir) if "_temp" in n or "tempstate" in n] == []


@pytest.fixture
def other_trainer(tmp_path):
    """A live process (`sleep`) holding the training lock of `tmp_path/model`."""
    model_dir = tmp_path / "model"
    model_dir.mkdir()
    child = subprocess.Popen(["sleep", "600"])
    holder = {
        "pid": child.pid,
        "host": socket.gethostname(),
        "started": "2024-01-02 03:04:05 UTC",
        "pid_namespace": _processes.pid_namespace(),
        "process_start": _processes.start_time(child.pid),
        "command": "python -m cifar10",
        "token": "0" * 32,
    }
    with open(_lock.lock_path(str(model_dir)), "w") as f:
        json.dump(holder, f)
    yield model_dir, child
    child.kill()
    child.wait()


def _locked_match(model_dir, child):
    return (
        rf"Error: model_dir {model_dir} is being trained by pid {child.pid} on host "
        r".* Only one process may train a model_dir"
    )


def test_second_trainer_fails_before_any_slow_work(run_main, tmp_path, other_trainer):
    model_dir, child = other_trainer
    with pytest.raises(SystemExit, match=_locked_match(model_dir, child)):
        run_main(*_tiny_args(tmp_path, model_dir))
    assert not (tmp_path / "cache").exists()  # No data generated, no graph built.


@pytest.mark.slow
def test_second_trainer_on_the_command_line_fails_at_once(tmp_path, other_trainer):
    model_dir, child = other_trainer
    result = _cli(*_tiny_args(tmp_path, model_dir), timeout=120)
    assert result.returncode == 1
    assert re.search(_locked_match(model_dir, child), result.stderr)
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "cache").exists()


def test_eval_only_is_not_refused_while_another_trains(tmp_path, other_trainer):
    model_dir, _ = other_trainer
    with pytest.raises(ValueError, match=r"--eval_only.*no checkpoint"):
        trainer.prepare(_config(tmp_path, model_dir=str(model_dir), eval_only=True))
