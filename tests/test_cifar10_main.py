"""Tests for the CIFAR trainer: flag validation, config validation, end to end."""

import os

import pytest
from absl import flags
from absl.testing import flagsaver
from cifar10_helpers import TWO, tiny_config

from cifar10 import config as config_lib
from cifar10 import main, trainer

FLAGS = flags.FLAGS


@pytest.fixture
def parse():
    """Parses flags as the command line would, restoring them afterwards."""
    with flagsaver.flagsaver():
        yield lambda *args: FLAGS(["cifar10.main", *args])
        FLAGS.unparse_flags()


@pytest.mark.parametrize(
    "args, match",
    [
        (["--devices=/cpu:0", "--num_gpus=1"], r"--devices or --num_gpus, not both"),
        (["--download"], r"--download fetches CIFAR-10 and needs --data_dir"),
        (["--download", "--data_dir=/x", "--dataset=cifar100"], r"needs --data_dir"),
        (["--label=fine"], r"--label is for --dataset=cifar100"),
        (["--resnet_depth=18"], r"--resnet_depth must be one of"),
        (
            ["--global_batch_size=9", "--devices=/cpu:0,/cpu:1", "--remainder=error"],
            r"divisible by it unless --remainder=uneven",
        ),
        (
            ["--global_batch_size=9", "--devices=/cpu:0,/cpu:1", "--remainder=drop"],
            r"divisible by it unless --remainder=uneven",
        ),
        (
            ["--global_batch_size=1", "--num_gpus=2", "--remainder=uneven"],
            r"at least the number of devices",
        ),
        (["--input=files"], r"value should be one of <tfdata\|queue>"),
        (["--synthetic_examples=10"], r"--synthetic_examples takes TRAIN,TEST"),
    ],
    ids=[
        "devices-and-num-gpus",
        "download-no-dir",
        "download-cifar100",
        "label-cifar10",
        "depth",
        "batch-indivisible-error",
        "batch-indivisible-drop",
        "batch-too-small",
        "input",
        "synthetic",
    ],
)
def test_bad_flags_are_usage_errors(parse, args, match):
    with pytest.raises(flags.IllegalFlagValueError, match=match):
        parse(*args)


@pytest.mark.parametrize(
    "flag", [[], ["--remainder=uneven"]], ids=["default", "uneven"]
)
def test_uneven_batch_is_allowed(parse, flag):
    parse("--global_batch_size=9", "--devices=/cpu:0,/cpu:1", *flag)
    assert FLAGS.global_batch_size == 9
    assert FLAGS.remainder == "uneven"


def test_config_from_flags(parse, tmp_path):
    parse(
        f"--model_dir={tmp_path}",
        "--devices=/cpu:0,/cpu:1",
        "--resnet_depth=32",
        "--global_batch_size=64",
        "--input=queue",
        "--dataset=cifar100",
        "--label=coarse",
    )
    config = main.config_from_flags()
    assert config.devices == TWO and config.resnet_depth == 32
    assert config.num_classes == 20 and config.scaled_learning_rate == pytest.approx(
        0.05
    )
    with pytest.raises(AttributeError):
        config.train_steps = 5  # Frozen.


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (
            {"global_batch_size": 9, "devices": TWO, "remainder": "error"},
            r"`global_batch_size` \(9\) must be divisible",
        ),
        ({"resnet_depth": 21}, r"`resnet_depth` must be one of"),
        (
            {"input": "files"},
            r"`input` must be one of \('tfdata', 'queue'\); received 'files'",
        ),
        ({"download": True}, r"`download` fetches CIFAR-10 into `data_dir`"),
        ({"train_steps": 0}, r"`train_steps` must be an int >= 1; received 0"),
        ({"momentum": -1.0}, r"`momentum` must be a finite number >= 0; received -1.0"),
        ({"label": "coarse"}, r"`label` 'coarse' does not exist in cifar10"),
        ({"devices": ()}, r"`devices` is empty"),
        ({"data_format": "channels_first"}, r"'channels_first' needs GPUs.*'/cpu:0'"),
    ],
    ids=[
        "batch",
        "depth",
        "input",
        "download",
        "steps",
        "momentum",
        "label",
        "no-devices",
        "nchw-on-cpu",
    ],
)
def test_bad_config(kwargs, match):
    with pytest.raises(ValueError, match=match):
        config_lib.TrainConfig(**kwargs)


def test_missing_data_fails_before_training(tmp_path):
    config = config_lib.TrainConfig(
        data_dir=str(tmp_path), model_dir=str(tmp_path / "m")
    )
    with pytest.raises(ValueError, match=r"has no 'cifar-10-batches-bin' directory"):
        trainer.run(config)
    assert not os.path.exists(tmp_path / "m")


@pytest.mark.slow
def test_trains_evaluates_and_resumes_on_two_devices(tmp_path, capsys):
    first = trainer.run(tiny_config(tmp_path, train_steps=20))
    assert first["global_step"] == 20 and 0 <= first["accuracy"] <= 1
    assert "step 20/20 (100%)" in capsys.readouterr().out
    assert os.path.exists(tmp_path / "model" / "model.ckpt-20.index")
    resumed = trainer.run(tiny_config(tmp_path, train_steps=30))
    assert resumed["global_step"] == 30  # 10 more steps, not 30.
    out = capsys.readouterr().out
    assert "step 23/30" in out and "step 3/30 " not in out


@pytest.mark.slow
def test_queue_input_trains_and_evaluates_on_two_devices(tmp_path):
    results = trainer.run(tiny_config(tmp_path, input="queue", train_steps=3))
    assert results["global_step"] == 3 and 0 <= results["accuracy"] <= 1
    assert results["loss"] > 0


@pytest.mark.parametrize("input_kind", ["tfdata", "queue"])
def test_diagnose_reports_on_the_training_input(tmp_path, input_kind):
    config = tiny_config(tmp_path, input=input_kind)
    report = main._diagnosis(config, trainer.prepare(config))
    if input_kind == "tfdata":  # Our own pipeline: no warning, no error.
        assert report.startswith("Pipeline doctor on the training input:")
        assert " 0 errors, 0 warnings" in report
    else:
        assert "no pipeline to check" in report and "migrate" in report
