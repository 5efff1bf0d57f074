"""emg.diagnose.input_bound: a slow map is input-bound and named; a fast pipeline is not.

The slow pipeline sleeps 30 ms per example in a sequential map and the step
costs nothing; the fast one is prefetched from memory while the step sleeps
50 ms (which frees the CPU for the input). Both margins are wide enough for
a busy 2-core machine.
"""

import json
import os
import sys
import time

import numpy as np
import pytest
import tensorflow as tf

import estimator_multigpu as emg
from estimator_multigpu import diagnose
from estimator_multigpu.diagnose import _stage_drain
from estimator_multigpu.diagnose._input_bound import classify

SLOW_SECONDS, STEP_SECONDS = 0.03, 0.05


def _sleep(x):
    time.sleep(SLOW_SECONDS)
    return x


def slow_dataset():
    """4 examples per batch, each held up 30 ms by Python."""
    dataset = tf.data.Dataset.range(10**6)
    dataset = dataset.map(lambda x: tf.py_function(_sleep, [x], tf.int64))
    return dataset.map(lambda x: (tf.cast(x, tf.float32), x)).batch(4).prefetch(1)


def fast_dataset():
    ids = np.arange(4096)
    dataset = tf.data.Dataset.from_tensor_slices((ids.astype(np.float32), ids))
    return dataset.batch(8).prefetch(4)


def cheap_step(batch):
    features, _ = batch
    return tf.reduce_sum(features)


def sleepy_step(batch):
    time.sleep(STEP_SECONDS)


def _pause(seconds):
    def pause():
        time.sleep(seconds)
        return np.int64(0)

    return pause


def _model_fn(step_seconds):
    """A one-weight model; its step sleeps `step_seconds` (0: a cheap step)."""

    def model_fn(features, labels, mode, params):
        w = tf.compat.v1.get_variable("w", [], initializer=tf.zeros_initializer())
        loss = tf.reduce_sum(features * w)
        step = tf.compat.v1.train.get_global_step()
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, step)
        if step_seconds:
            pause = tf.py_function(_pause(step_seconds), [], tf.int64)
            train_op = tf.group(train_op, pause)
        return emg.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    return model_fn


def test_slow_map_is_highly_input_bound_and_named():
    # A stage is timed for stage_seconds: 1 s holds ~33 of the slow map's
    # examples, enough that a loaded machine's scheduling noise (0.3 s held
    # 10 and once named the batch stage slowest) cannot outweigh the 30 ms.
    report = diagnose.input_bound(
        slow_dataset(), cheap_step, steps=4, warmup_steps=1, stage_seconds=1.0
    )
    assert report.classification == diagnose.HIGHLY, diagnose.format_report(report)
    assert report.share_method == "measured wait"
    assert report.input_share > 0.5
    assert report.examples_per_step == 4
    assert report.synthetic_examples_per_sec > 10 * report.examples_per_sec
    slow = report.slowest_stage
    assert slow.transformation == "map (MapDataset)" and slow.position == 2
    assert slow.added_ms_per_example > 0.5 * 1000 * SLOW_SECONDS


def _long_step(batch):
    # Long enough that a loaded machine's scheduling delays (a few ms to fetch
    # a prefetched batch) stay well under the 5% band of a fast pipeline.
    time.sleep(4 * STEP_SECONDS)


def test_fast_pipeline_is_not_input_bound():
    report = diagnose.input_bound(
        fast_dataset(), _long_step, steps=5, warmup_steps=2, time_stages=False
    )
    assert report.classification == diagnose.NOT_INPUT_BOUND, diagnose.format_report(
        report
    )
    assert report.stages == () and report.slowest_stage is None
    assert report.examples_per_step == 8
    assert report.step_seconds > 4 * STEP_SECONDS


@pytest.mark.tf_compat
def test_model_fn_slow_input_is_highly_input_bound():
    report = diagnose.input_bound(
        lambda params: slow_dataset(),
        model_fn=_model_fn(0),
        params={},
        steps=4,
        warmup_steps=1,
        stage_seconds=0.3,
    )
    assert report.share_method == "synthetic comparison"
    assert report.classification == diagnose.HIGHLY, diagnose.format_report(report)
    assert report.slowest_stage.transformation == "map (MapDataset)"


@pytest.mark.tf_compat
def test_model_fn_fast_input_is_not_input_bound():
    """The synthetic comparison subtracts two timed runs, so on a shared 2-core
    machine it resolves a few percent at best: asserted below the 20% band."""
    report = diagnose.input_bound(
        fast_dataset,
        model_fn=_model_fn(2 * STEP_SECONDS),
        steps=6,
        warmup_steps=2,
        time_stages=False,
    )
    assert report.input_share < 0.2, diagnose.format_report(report)
    assert report.classification != diagnose.HIGHLY
    assert report.step_seconds > 2 * STEP_SECONDS  # The step really ran.


@pytest.mark.parametrize(
    "share, expected",
    [
        (0.0, "not input-bound"),
        (0.049, "not input-bound"),
        (0.05, "moderately input-bound"),
        (0.199, "moderately input-bound"),
        (0.2, "highly input-bound"),
        (1.0, "highly input-bound"),
    ],
)
def test_classification_bands(share, expected):
    assert classify(share) == expected


def test_progress_is_reported_per_step_and_stage():
    seen = []
    diagnose.input_bound(
        fast_dataset(),
        cheap_step,
        steps=3,
        warmup_steps=1,
        stage_seconds=0.05,
        progress=lambda *args: seen.append(args),
    )
    phases = [phase for phase, *_ in seen]
    assert phases[:6] == ["real input"] * 3 + ["one cached batch"] * 3
    assert [done for _, done, *_ in seen[:3]] == [1, 2, 3]
    assert all(rate > 0 for *_, rate in seen[:6])
    assert phases[6:] == [
        "stage from_tensor_slices (TensorSliceDataset)",
        "stage batch (BatchDatasetV2)",
        "stage prefetch (PrefetchDataset)",
    ]


def test_default_progress_logs_through_tensorflow(caplog):
    with caplog.at_level("INFO", logger="tensorflow"):
        diagnose.input_bound(
            fast_dataset(), cheap_step, steps=2, warmup_steps=0, time_stages=False
        )
    assert "input_bound: real input: step 2/2" in caplog.text


def test_report_table_and_json():
    report = diagnose.input_bound(
        slow_dataset(), cheap_step, steps=2, warmup_steps=1, stage_seconds=0.2
    )
    text = diagnose.format_report(report)
    assert "real input" in text and "one cached batch" in text
    assert "highly input-bound" in text
    assert "map (MapDataset)" in text and "<- slowest" in text
    assert text.splitlines()[-1] == "Slowest stage: 2 map (MapDataset)."
    document = json.loads(diagnose.report_as_json(report))
    assert document["slowest_stage"]["position"] == 2
    assert len(document["stages"]) == 5


def _stage_report():
    return diagnose.input_bound(
        fast_dataset(), cheap_step, steps=2, warmup_steps=0, stage_seconds=0.05
    )


def test_plot_writes_a_png_and_never_overwrites(tmp_path):
    pytest.importorskip("matplotlib")
    report, path = _stage_report(), str(tmp_path / "stages.png")
    assert diagnose.plot_stages(report, path) == path
    with open(path, "rb") as png:
        assert png.read(8) == b"\x89PNG\r\n\x1a\n"
    mask = os.umask(0)
    os.umask(mask)
    assert os.stat(path).st_mode & 0o777 == 0o666 & ~mask  # Not mkstemp's 0600.
    with pytest.raises(
        FileExistsError, match=r"stages.png' exists; .*never overwrites"
    ):
        diagnose.plot_stages(report, path)
    assert os.listdir(tmp_path) == ["stages.png"]  # No temporary file left.


def test_plot_without_matplotlib_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    monkeypatch.setitem(sys.modules, "matplotlib.backends.backend_agg", None)
    with pytest.raises(ImportError, match=r"estimator-multigpu\[diagnose\]"):
        diagnose.plot_stages(_stage_report(), str(tmp_path / "a.png"))


def test_plot_needs_stage_timings(tmp_path):
    report = diagnose.input_bound(
        fast_dataset(), cheap_step, steps=2, warmup_steps=0, time_stages=False
    )
    with pytest.raises(ValueError, match=r"no stage timings.*time_stages=True"):
        diagnose.plot_stages(report, str(tmp_path / "a.png"))


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(step_fn=None), ValueError, r"exactly one of `step_fn`.*and `model_fn`"),
        (dict(model_fn=_model_fn(0)), ValueError, r"exactly one of `step_fn`"),
        (dict(steps=0), ValueError, r"`steps` must be an int >= 1; received 0"),
        (dict(warmup_steps=-1), ValueError, r"`warmup_steps` must be an int >= 0"),
        (dict(stage_seconds=0), ValueError, r"`stage_seconds` must be > 0; received 0"),
        (dict(step_fn=3), TypeError, r"`step_fn` must be callable; received 3"),
        (
            dict(input_timeout=0),
            ValueError,
            r"`input_timeout` must be a number of seconds > 0, or None",
        ),
    ],
    ids=[
        "no-step",
        "both",
        "steps",
        "warmup",
        "stage-seconds",
        "step-not-callable",
        "input-timeout",
    ],
)
def test_bad_arguments_are_named(kwargs, error, match):
    kwargs = {"step_fn": cheap_step, **kwargs}
    with pytest.raises(error, match=match):
        diagnose.input_bound(fast_dataset(), **kwargs)


def test_model_fn_needs_an_input_fn_not_a_dataset():
    with pytest.raises(TypeError, match=r"With `model_fn`, pass the input_fn"):
        diagnose.input_bound(fast_dataset(), model_fn=_model_fn(0))


def test_source_must_be_a_dataset_or_function():
    with pytest.raises(TypeError, match=r"`input_fn_or_dataset` must be a tf.data"):
        diagnose.input_bound([1, 2], cheap_step)


def test_eager_input_fn_must_return_a_dataset():
    with pytest.raises(TypeError, match=r"must return a tf.data.Dataset.*returned"):
        diagnose.input_bound(lambda: tf.zeros([2]), cheap_step)


def test_graph_mode_dataset_needs_model_fn():
    with tf.Graph().as_default():
        dataset = fast_dataset()
    with pytest.raises(TypeError, match=r"graph-mode dataset; build it eagerly"):
        diagnose.input_bound(dataset, cheap_step)


def test_input_that_ends_early_is_explained():
    short = tf.data.Dataset.range(8).map(lambda x: (tf.cast(x, tf.float32), x))
    with pytest.raises(ValueError, match=r"ended after 2 of 6 steps.*repeat"):
        diagnose.input_bound(short.batch(4), cheap_step, steps=5, warmup_steps=1)


@pytest.mark.tf_compat
def _python_next_rate(seconds: float) -> float:
    """Elements per second of one Python next() per element, measured now."""
    iterator, count = iter(tf.data.Dataset.range(10**9)), 0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        next(iterator)
        count += 1
    return count / seconds


def test_fast_stages_are_not_capped_by_python():
    # Side by side, so a loaded machine slows both (a fixed floor of 200k/s
    # failed under load): draining inside TensorFlow is several times faster
    # than one Python next() per element.
    python_rate = _python_next_rate(0.3)
    elements, examples = _stage_drain.rates(tf.data.Dataset.range(10**9), False, 0.3)
    assert elements > 3 * python_rate
    assert examples == elements


@pytest.mark.tf_compat
@pytest.mark.parametrize(
    "size, expected", [(0, None), (50, 50)], ids=["empty", "short"]
)
def test_stage_rates_of_finite_datasets(size, expected):
    batches = tf.data.Dataset.range(size * 4).batch(4)
    elements, examples = _stage_drain.rates(batches, True, 0.2)
    if expected is None:
        assert (elements, examples) == (None, None)
    else:
        assert elements > 0 and examples == pytest.approx(4 * elements)


def _stall(x):
    time.sleep(20)  # Far past the timeout; ends on its own (no CPU meanwhile).
    return x


def _stalled_dataset():
    dataset = tf.data.Dataset.range(10).map(
        lambda x: tf.py_function(_stall, [x], tf.int64)
    )
    return dataset.map(lambda x: (tf.cast(x, tf.float32), x)).batch(2)


def test_input_that_never_yields_times_out_eagerly():
    start = time.monotonic()
    with pytest.raises(
        TimeoutError,
        match=r"the input gave no element in 1 s \(step 1 of 3, real input\)",
    ):
        diagnose.input_bound(
            _stalled_dataset(), cheap_step, steps=2, warmup_steps=1, input_timeout=1
        )
    assert time.monotonic() - start < 10


@pytest.mark.tf_compat
def test_input_that_never_yields_times_out_in_graph_mode():
    start = time.monotonic()
    with pytest.raises(
        TimeoutError,
        match=r"the input gave no element in 1 s \(step 1 of 3, real input\)",
    ):
        diagnose.input_bound(
            lambda params: _stalled_dataset(),
            model_fn=_model_fn(0),
            params={},
            steps=2,
            warmup_steps=1,
            input_timeout=1,
        )
    assert time.monotonic() - start < 10
