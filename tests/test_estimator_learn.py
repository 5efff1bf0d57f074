"""tf.contrib.learn's Experiment and learn_runner.run over emg.estimator, on 1 and 2
devices, checked against the numpy replay of single-device training."""

import json
import threading

import numpy as np
import pytest
import tensorflow as tf
from conftest import ALL_DEVICES
from estimator_models import (
    batches,
    dataset_input_fn,
    initial_weights,
    model_fn,
    numpy_loss,
    numpy_train,
    write_checkpoint,
)

from estimator_multigpu import estimator as emg_estimator
from estimator_multigpu.estimator import _experiment as experiment_lib
from estimator_multigpu.estimator import learn_runner

pytestmark = pytest.mark.tf_compat

BATCH = 8
RNG = np.random.RandomState(3)
X = RNG.randn(24, 4).astype(np.float32)
Y = RNG.randint(0, 3, size=24).astype(np.int32)


def _experiment_fn(warm, num_devices, **kwargs):
    def experiment_fn(run_config, hparams):
        config = run_config.replace(devices=ALL_DEVICES[:num_devices])
        estimator = emg_estimator.Estimator(
            model_fn, config=config, params=hparams, warm_start_from=warm
        )
        return emg_estimator.Experiment(
            estimator,
            train_input_fn=dataset_input_fn(X, Y, BATCH, repeat=True),
            eval_input_fn=dataset_input_fn(X, Y, BATCH),
            train_steps=hparams.train_steps,
            eval_steps=1,
            **kwargs,
        )

    return experiment_fn


def _warm(tmp_path):
    return write_checkpoint(str(tmp_path / "init" / "init"), *initial_weights())


@pytest.mark.parametrize("num_devices", [1, 2], ids=["1dev", "2dev"])
def test_learn_runner_trains_then_evaluates_like_one_device(tmp_path, num_devices):
    config = emg_estimator.RunConfig(model_dir=str(tmp_path / "model"))
    hparams = emg_estimator.HParams(train_steps=3, tower_optimizer=True)
    metrics, exports = learn_runner.run(
        _experiment_fn(_warm(tmp_path), num_devices),
        run_config=config,
        hparams=hparams,
    )
    kernel, bias, _ = numpy_train(*initial_weights(), batches(X, Y, BATCH, 3))
    assert metrics["global_step"] == 3 and exports == []
    np.testing.assert_allclose(
        metrics["loss"], numpy_loss(kernel, bias, X[:BATCH], Y[:BATCH]), rtol=1e-5
    )


@pytest.mark.slow
def test_min_eval_frequency_evaluates_during_training(tmp_path):
    config = emg_estimator.RunConfig(model_dir=str(tmp_path / "model"))
    hparams = emg_estimator.HParams(train_steps=4, tower_optimizer=True)
    experiment = _experiment_fn(_warm(tmp_path), 2, min_eval_frequency=2)(
        config, hparams
    )
    metrics, _ = experiment.train_and_evaluate()
    eval_dir = tmp_path / "model" / "eval"
    steps = set()
    for path in eval_dir.iterdir():
        for event in tf.compat.v1.train.summary_iterator(str(path)):
            if event.summary.value:
                steps.add(event.step)
    assert metrics["global_step"] == 4 and steps == {2, 4}


def _evaluated_steps(eval_dir) -> set:
    steps = set()
    for path in eval_dir.iterdir():
        for event in tf.compat.v1.train.summary_iterator(str(path)):
            if event.summary.value:
                steps.add(event.step)
    return steps


@pytest.mark.parametrize(
    "check_interval_secs, expected",
    [(None, {1, 2, 3, 4}), (1000, {1, 4})],
    ids=["every_round", "once_then_at_the_end"],
)
@pytest.mark.slow
def test_check_interval_secs_spaces_evaluations_during_training(
    tmp_path, check_interval_secs, expected
):
    config = emg_estimator.RunConfig(model_dir=str(tmp_path / "model"))
    hparams = emg_estimator.HParams(train_steps=4, tower_optimizer=True)
    experiment = _experiment_fn(
        _warm(tmp_path),
        1,
        min_eval_frequency=1,
        check_interval_secs=check_interval_secs,
    )(config, hparams)
    metrics, _ = experiment.train_and_evaluate()
    # contrib's ValidationMonitor: no check within check_interval_secs of the
    # last one; the final evaluation always runs.
    assert metrics["global_step"] == 4
    assert _evaluated_steps(tmp_path / "model" / "eval") == expected


def test_experiment_refuses_contrib_only_arguments(tmp_path):
    estimator = emg_estimator.Estimator(model_fn, model_dir=str(tmp_path))
    with pytest.raises(ValueError, match=r"export_strategies.*export_saved_model"):
        emg_estimator.Experiment(
            estimator,
            dataset_input_fn(X, Y),
            dataset_input_fn(X, Y),
            export_strategies=["x"],
        )
    with pytest.raises(ValueError, match=r"`train_steps` must be None or an int"):
        emg_estimator.Experiment(
            estimator, dataset_input_fn(X, Y), dataset_input_fn(X, Y), train_steps=-1
        )


def test_run_refuses_an_unknown_schedule_and_a_non_experiment(tmp_path):
    config = emg_estimator.RunConfig(model_dir=str(tmp_path))
    with pytest.raises(ValueError, match=r"'trian' is not an Experiment schedule"):
        learn_runner.run(lambda c, h: None, run_config=config, schedule="trian")
    with pytest.raises(TypeError, match=r"must return an emg.estimator.Experiment"):
        learn_runner.run(lambda c, h: "x", run_config=config)
    with pytest.raises(ValueError, match=r"Must specify `run_config`"):
        learn_runner.run(lambda c, h: None)


def test_old_form_passes_output_dir(tmp_path):
    seen = []

    def experiment_fn(output_dir):
        seen.append(output_dir)
        return "not an experiment"

    with pytest.raises(TypeError):
        learn_runner.run(experiment_fn, output_dir=str(tmp_path))
    assert seen == [str(tmp_path)]


def _cluster(head: str) -> dict:
    """A cluster led by a `head` ('master' or 'chief'), two workers and a ps."""
    return {head: ["h:0"], "worker": ["h:1", "h:2"], "ps": ["h:3"]}


@pytest.mark.parametrize(
    "task_type, expected",
    [
        ("master", "train_and_evaluate"),
        ("chief", "train"),
        ("worker", "train"),
        ("ps", "run_std_server"),
        ("evaluator", "continuous_eval"),  # Its cluster_spec is empty.
    ],
)
def test_default_schedule_follows_the_task_type(monkeypatch, task_type, expected):
    head = "master" if task_type == "master" else "chief"
    tf_config = {"cluster": _cluster(head), "task": {"type": task_type, "index": 0}}
    monkeypatch.setenv("TF_CONFIG", json.dumps(tf_config))
    config = emg_estimator.RunConfig()
    assert learn_runner.default_schedule(config) == expected


def test_default_schedule_on_one_machine(monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    schedule = learn_runner.default_schedule(emg_estimator.RunConfig())
    assert schedule == "train_and_evaluate"


@pytest.mark.skipif(
    not emg_estimator.HAS_TF_ESTIMATOR, reason="tf.estimator exists on TF <= 2.15 only"
)
def test_experiment_drives_a_real_tf_estimator(tmp_path):
    warm = _warm(tmp_path)
    real = tf.estimator.Estimator(
        model_fn,
        model_dir=str(tmp_path / "real"),
        params={"learning_rate": 0.1},
        warm_start_from=warm,
    )
    experiment = emg_estimator.Experiment(
        real,
        train_input_fn=dataset_input_fn(X, Y, BATCH, repeat=True),
        eval_input_fn=dataset_input_fn(X, Y, BATCH),
        train_steps=2,
        eval_steps=1,
    )
    metrics, _ = experiment.train_and_evaluate()
    kernel, bias, _ = numpy_train(*initial_weights(), batches(X, Y, BATCH, 2))
    assert metrics["global_step"] == 2
    np.testing.assert_allclose(
        metrics["loss"], numpy_loss(kernel, bias, X[:BATCH], Y[:BATCH]), rtol=1e-5
    )


def test_continuous_eval_stops_at_train_steps(tmp_path):
    config = emg_estimator.RunConfig(model_dir=str(tmp_path / "model"))
    hparams = emg_estimator.HParams(train_steps=2, tower_optimizer=True)
    experiment = _experiment_fn(_warm(tmp_path), 1)(config, hparams)
    experiment.train(delay_secs=0)
    result = experiment.continuous_eval(delay_secs=0, throttle_delay_secs=0)
    kernel, bias, _ = numpy_train(*initial_weights(), batches(X, Y, BATCH, 2))
    assert result["global_step"] == 2
    np.testing.assert_allclose(
        result["loss"], numpy_loss(kernel, bias, X[:BATCH], Y[:BATCH]), rtol=1e-5
    )
    assert (tmp_path / "model" / "eval_continuous").is_dir()


def _sleeps(monkeypatch) -> list:
    """The seconds Experiment sleeps, recorded instead of slept (at most 100)."""
    slept = []

    def sleep(secs):
        if len(slept) >= 100:
            raise RuntimeError(f"slept 100 times: {slept[:5]}...")
        slept.append(secs)

    monkeypatch.setattr(experiment_lib.time, "sleep", sleep)
    return slept


def test_evaluate_logs_its_delay_as_contrib_and_writes_eval_one_pass(
    tmp_path, monkeypatch, caplog
):
    config = emg_estimator.RunConfig(model_dir=str(tmp_path / "model"))
    hparams = emg_estimator.HParams(train_steps=1, tower_optimizer=True)
    experiment = _experiment_fn(_warm(tmp_path), 1)(config, hparams)
    experiment.train(delay_secs=0)
    slept = _sleeps(monkeypatch)
    with caplog.at_level("INFO", logger="tensorflow"):
        metrics = experiment.evaluate()
    assert slept[:1] == [120] and metrics["global_step"] == 1
    assert "Waiting 120 secs before starting eval." in caplog.messages
    assert (tmp_path / "model" / "eval_one_pass").is_dir()


def test_train_logs_its_delay_as_contrib(tmp_path, monkeypatch, caplog):
    config = emg_estimator.RunConfig(model_dir=str(tmp_path / "model"))
    hparams = emg_estimator.HParams(train_steps=1, tower_optimizer=True)
    experiment = _experiment_fn(_warm(tmp_path), 1)(config, hparams)
    slept = _sleeps(monkeypatch)
    with caplog.at_level("INFO", logger="tensorflow"):
        experiment.train(delay_secs=5)
    assert slept[:1] == [5]
    assert "Waiting 5 secs before starting training." in caplog.messages


def test_continuous_eval_without_a_checkpoint_warns_and_asks_the_predicate(
    tmp_path, monkeypatch, caplog
):
    config = emg_estimator.RunConfig(model_dir=str(tmp_path / "model"))
    hparams = emg_estimator.HParams(train_steps=2, tower_optimizer=True)
    experiment = _experiment_fn(_warm(tmp_path), 1)(config, hparams)
    slept = _sleeps(monkeypatch)
    seen, results = [], []

    def rounds_left(eval_results):
        seen.append(eval_results)
        return len(seen) < 3

    def run():
        results.append(
            experiment.continuous_eval(continuous_eval_predicate_fn=rounds_left)
        )

    with caplog.at_level("INFO", logger="tensorflow"):
        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        thread.join(timeout=30)
    assert not thread.is_alive(), "continuous_eval kept waiting for a checkpoint"
    assert seen == [None, {}, {}] and results == [{}]
    assert slept[0] == 120 and len(slept) == 3
    assert all(59 < secs <= 60 for secs in slept[1:])  # The throttle, each round.
    assert "Waiting 120.000000 secs before starting eval." in caplog.messages
    warning = (
        "Estimator is not fitted yet. Will start an evaluation when a checkpoint "
        "is ready."
    )
    assert caplog.messages.count(warning) == 1  # Then every 10 minutes.


@pytest.mark.parametrize("only_once", [True, False], ids=["once", "every_round"])
def test_continuous_eval_evaluate_checkpoint_only_once(
    tmp_path, monkeypatch, only_once
):
    config = emg_estimator.RunConfig(model_dir=str(tmp_path / "model"))
    hparams = emg_estimator.HParams(train_steps=2, tower_optimizer=True)
    experiment = _experiment_fn(_warm(tmp_path), 1)(config, hparams)
    # One step, below train_steps: continuous_eval does not stop on its own.
    experiment.estimator.train(dataset_input_fn(X, Y, BATCH, repeat=True), steps=1)
    _sleeps(monkeypatch)
    steps = []

    def three_rounds(eval_results):
        steps.append(None if eval_results is None else eval_results.get("global_step"))
        return len(steps) < 4

    experiment.continuous_eval(
        delay_secs=0,
        throttle_delay_secs=0,
        evaluate_checkpoint_only_once=only_once,
        continuous_eval_predicate_fn=three_rounds,
    )
    assert steps == ([None, 1, None, None] if only_once else [None, 1, 1, 1])


def test_continuous_eval_predicate_may_take_the_checkpoint_path(tmp_path):
    config = emg_estimator.RunConfig(model_dir=str(tmp_path / "model"))
    hparams = emg_estimator.HParams(train_steps=2, tower_optimizer=True)
    experiment = _experiment_fn(_warm(tmp_path), 1)(config, hparams)
    experiment.train(delay_secs=0)
    seen = []

    def keep_going(eval_results, checkpoint_path):
        seen.append(checkpoint_path)
        return True

    result = experiment.continuous_eval(
        delay_secs=0, throttle_delay_secs=0, continuous_eval_predicate_fn=keep_going
    )
    assert result["global_step"] == 2  # Then stopped: train_steps reached.
    assert seen == [None, experiment.estimator.latest_checkpoint()]


def test_continuous_eval_refuses_a_predicate_that_is_not_callable(tmp_path):
    config = emg_estimator.RunConfig(model_dir=str(tmp_path / "model"))
    hparams = emg_estimator.HParams(train_steps=2, tower_optimizer=True)
    experiment = _experiment_fn(_warm(tmp_path), 1)(config, hparams)
    experiment.train(delay_secs=0)  # A checkpoint to evaluate: nothing to wait for.
    with pytest.raises(
        ValueError, match=r"`continuous_eval_predicate_fn` must be a callable.*'yes'"
    ):
        experiment.continuous_eval(continuous_eval_predicate_fn="yes")
