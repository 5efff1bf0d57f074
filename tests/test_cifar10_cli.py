"""What a newcomer meets on the command line: --help, a rerun, where the data is."""

import os
import pathlib
import subprocess
import sys

import pytest
import tensorflow as tf
from absl import flags
from absl import logging as absl_logging
from absl.testing import flagsaver
from cifar10_helpers import tiny_config

from cifar10 import main, model

FLAGS = flags.FLAGS
ROOT = pathlib.Path(__file__).resolve().parent.parent
STEP = 6  # The global step of the trained model_dir below.


@pytest.fixture
def run_main():
    """Parses flags and runs `main.main`, restoring flags and log levels."""
    tf_level, absl_level = tf.get_logger().level, absl_logging.get_verbosity()
    with flagsaver.flagsaver():
        yield lambda *args: (FLAGS(["cifar10", *args]), main.main(["cifar10"]))
        FLAGS.unparse_flags()
    tf.get_logger().setLevel(tf_level)
    absl_logging.set_verbosity(absl_level)


def _flags(tmp_path, model_dir, *more):
    return (
        f"--model_dir={model_dir}",
        f"--cache_dir={tmp_path / 'cache'}",
        "--synthetic_examples=40,12",
        "--global_batch_size=8",
        "--log_every_steps=1",
        *more,
    )


def _event_files(model_dir) -> list[str]:
    eval_dir = os.path.join(model_dir, "eval")
    if not os.path.isdir(eval_dir):
        return []
    return sorted(n for n in os.listdir(eval_dir) if "tfevents" in n)


@pytest.fixture
def trained_dir(tmp_path):
    """A model_dir holding a ResNet-20 checkpoint at global step STEP."""
    model_dir = str(tmp_path / "trained")
    with tf.Graph().as_default():
        model.resnet(tf.zeros([1, 32, 32, 3]), 20, 10, training=False)
        step = tf.compat.v1.train.get_or_create_global_step()
        saver = tf.compat.v1.train.Saver()
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            session.run(step.assign(STEP))
            saver.save(session, os.path.join(model_dir, "model.ckpt"), global_step=STEP)
    return model_dir


@pytest.mark.slow
def test_python_dash_m_cifar10_help_lists_the_trainers_flags():
    result = subprocess.run(
        [sys.executable, "-m", "cifar10", "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES=""),
        timeout=180,
    )
    assert "python -m cifar10 [flags]" in result.stdout, result.stderr[-2000:]
    for flag in ("--model_dir", "--train_steps", "--data_dir", "--num_gpus"):
        assert f"  {flag}:" in result.stdout, result.stdout


@pytest.mark.parametrize("train_steps", [STEP, STEP - 2], ids=["reached", "passed"])
def test_a_rerun_on_a_finished_model_dir_says_so_and_evaluates_nothing(
    run_main, tmp_path, trained_dir, capsys, train_steps
):
    run_main(*_flags(tmp_path, trained_dir, f"--train_steps={train_steps}"))
    out = capsys.readouterr().out
    checkpoint = os.path.join(trained_dir, f"model.ckpt-{STEP}")
    assert (
        f"model_dir {trained_dir} already holds a model trained to step {STEP} "
        f"(--train_steps={train_steps}): nothing to train"
    ) in out
    assert f"The model: {checkpoint}. Pass --eval_only to evaluate it again" in out
    assert "Test accuracy" not in out
    assert _event_files(trained_dir) == []


@pytest.mark.parametrize(
    "train_steps, finished",
    [(STEP, True), (STEP + 1, False)],
    ids=["done", "one-to-go"],
)
def test_finished_means_train_steps_reached(
    tmp_path, trained_dir, train_steps, finished
):
    config = tiny_config(tmp_path, model_dir=trained_dir, train_steps=train_steps)
    assert (main._finished_message(config) is not None) is finished


def test_eval_only_is_never_called_finished(tmp_path, trained_dir):
    config = tiny_config(tmp_path, model_dir=trained_dir, eval_only=True)
    assert main._finished_message(config) is None


def test_generated_data_is_named_with_its_folder(
    run_main, tmp_path, trained_dir, capsys
):
    run_main(*_flags(tmp_path, trained_dir, f"--train_steps={STEP}"))
    out = capsys.readouterr().out
    data_dir = tmp_path / "cache" / "cifar10-40-12-seed0"
    assert (
        f"Data: 40 training and 12 test examples generated in {data_dir} (synthetic "
        "class patterns in the CIFAR-10 format, not CIFAR-10"
    ) in out
    assert "For the real set pass --data_dir=DIR" in out


def test_a_given_data_dir_is_named(run_main, tmp_path, trained_dir, capsys):
    run_main(*_flags(tmp_path, trained_dir, f"--train_steps={STEP}"))
    data_dir = tmp_path / "cache" / "cifar10-40-12-seed0"
    capsys.readouterr()
    run_main(*_flags(tmp_path, trained_dir, f"--data_dir={data_dir}"))
    out = capsys.readouterr().out
    assert f"Data: {data_dir}\n" in out and "generated" not in out


@pytest.mark.slow
def test_train_then_rerun_adds_no_second_evaluation(run_main, tmp_path, capsys):
    """A real run: the accuracy names generated data; the rerun evaluates nothing."""
    model_dir = tmp_path / "model"
    run_main(*_flags(tmp_path, model_dir, "--train_steps=2"))
    out = capsys.readouterr().out
    assert "on generated data, not CIFAR-10 (loss" in out
    assert f"the model is in {model_dir}" in out
    events = _event_files(model_dir)
    assert len(events) == 1
    sizes = [os.path.getsize(model_dir / "eval" / n) for n in events]
    run_main(*_flags(tmp_path, model_dir, "--train_steps=2"))
    out = capsys.readouterr().out
    assert f"model_dir {model_dir} already holds a model trained to step 2" in out
    assert _event_files(model_dir) == events
    assert [os.path.getsize(model_dir / "eval" / n) for n in events] == sizes
