"""CIFAR-10 input: legacy queue vs tf.data vs a numpy bound, and input-bound share.

Generates the full synthetic CIFAR-10 set (50,000 training records in the real
binary layout) unless --data_dir is given, then, interleaved over --repeats
rounds in one process, times:

- legacy: `cifar10.legacy_input` (FixedLengthRecordReader, per-example
  decode/crop/flip/normalise, `shuffle_batch` with 16 threads);
- tfdata: `cifar10.input.input_fn` on one device (records in memory, shuffled
  index batches, vectorised crop/flip), uint8 batches that the model_fn
  normalises on its device;
- tfdata_host_norm: the same with per-channel normalisation on the host
  (float32 batches, as the legacy pipeline yields);
- numpy: the bound, `np.fromfile` -> reshape -> transpose -> float32 over all
  training files, no augmentation.

Both graph pipelines are fetched by `session.run` of a group op (no copy to
Python), `--batches` batches per round after warm-up. Then (d): a ResNet-20
training run on --num_devices simulated devices, steps timed with the real
tf.data input and with one cached synthetic batch; the input-bound share is
1 - t_synthetic / t_real (median of per-round ratios).

Run: python -m benchmarks.cifar_input [--plot=docs/cifar_input.png]
(--noinput_bound skips (d)).
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
from absl import app, flags, logging  # noqa: E402

from benchmarks import plot  # noqa: E402
from benchmarks.cached_batch import cached_batch  # noqa: E402

_DATA_DIR = flags.DEFINE_string("data_dir", None, "CIFAR-10 data; default: generate.")
_BATCH = flags.DEFINE_integer("batch_size", 128, "Examples per batch.", lower_bound=1)
_BATCHES = flags.DEFINE_integer(
    "batches", 100, "Timed batches per round.", lower_bound=1
)
_REPEATS = flags.DEFINE_integer("repeats", 5, "Interleaved rounds.", lower_bound=1)
_DEVICES = flags.DEFINE_integer(
    "num_devices", 2, "Simulated devices for (d).", lower_bound=1
)
_STEPS = flags.DEFINE_integer(
    "train_steps", 8, "Timed training steps per round.", lower_bound=1
)
_INPUT_BOUND = flags.DEFINE_boolean(
    "input_bound", True, "Also run (d), the ResNet-20 input-bound share."
)
_PLOT = plot.define_plot_flag("the (a-c) pipelines' examples/sec, ratios to legacy")

_LABELS = {
    "legacy": "(a) legacy queue",
    "tfdata": "(b) tf.data, uint8 out",
    "tfdata_host_norm": "(b') tf.data, host normalise",
    "numpy": "(c) numpy bound",
}


class GraphPipeline:
    """A pipeline built in its own graph and session, timed in windows."""

    def __init__(self, build, warmup: int):
        import tensorflow as tf

        self._graph = tf.Graph()
        with self._graph.as_default():
            self._op = tf.group(*tf.nest.flatten(build()))
            self._session = tf.compat.v1.train.MonitoredSession()
        self.rate(warmup)

    def rate(self, batches: int) -> float:
        """Examples/sec over `batches` runs of the pipeline."""
        start = time.perf_counter()
        for _ in range(batches):
            self._session.run(self._op)
        return batches * _BATCH.value / (time.perf_counter() - start)


def _legacy(data_dir: str):
    from cifar10 import legacy_input

    return GraphPipeline(lambda: legacy_input.inputs(data_dir, _BATCH.value), warmup=30)


def _tfdata(data_dir: str, normalize: bool):
    from cifar10 import input as input_lib

    def build():
        input_fn = input_lib.input_fn(
            data_dir, _BATCH.value, devices=["/cpu:0"], seed=1, normalize=normalize
        )
        features, labels = input_fn()
        return list(features.values) + list(labels.values)

    return GraphPipeline(build, warmup=30)


def numpy_rate(files: list[str]) -> float:
    """The bound: examples/sec of decoding the files with numpy, no augmentation."""
    start, count = time.perf_counter(), 0
    for path in files:
        records = np.fromfile(path, np.uint8).reshape(-1, 3073)
        images = records[:, 1:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
        images.astype(np.float32)
        count += len(records)
    return count / (time.perf_counter() - start)


def _report(title: str, rates: dict, base: str) -> None:
    print(
        f"\n{title}\n{'contender':<18} {'median':>10} {'/' + base:>10} {'round':>8}  runs"
    )
    for name, runs in rates.items():
        paired = statistics.median(r / b for r, b in zip(runs, rates[base]))
        median = statistics.median(runs)
        print(
            f"{name:<18} {median:>10.0f} {median / statistics.median(rates[base]):>9.2f}x"
            f" {paired:>7.2f}x  {' '.join(f'{r:.0f}' for r in runs)}"
        )


def input_rates(data_dir: str) -> dict:
    from cifar10 import data

    files = data.filenames(data_dir, "cifar10", "train")
    pipelines = {
        "legacy": _legacy(data_dir),
        "tfdata": _tfdata(data_dir, normalize=False),
        "tfdata_host_norm": _tfdata(data_dir, normalize=True),
    }
    timers = {
        name: (lambda p=p: p.rate(_BATCHES.value)) for name, p in pipelines.items()
    }
    timers["numpy"] = lambda: numpy_rate(files)
    rates = {name: [] for name in timers}
    for round_index in range(_REPEATS.value):
        names = list(timers)
        shift = round_index % len(names)
        for name in names[shift:] + names[:shift]:
            rates[name].append(timers[name]())
    return rates


def _train_pipeline(data_dir: str, synthetic: bool):
    import tensorflow as tf

    import estimator_multigpu as emg
    from cifar10 import config as config_lib
    from cifar10 import input as input_lib
    from cifar10 import model_fn

    devices = [f"/cpu:{i}" for i in range(_DEVICES.value)]
    config = config_lib.TrainConfig(
        devices=tuple(devices), train_steps=10**6, log_every_steps=10**6
    )
    if synthetic:
        input_fn = emg.inputs.sharded_input_fn(
            cached_batch, devices, global_batch_size=128, user_batches=True
        )
    else:
        input_fn = input_lib.input_fn(data_dir, 128, devices=devices, seed=1)

    def build():
        features, labels = input_fn()
        replicated = emg.replicate_model_fn(model_fn.make_model_fn(config), devices)
        tf.compat.v1.train.get_or_create_global_step()
        return replicated(features, labels, emg.estimator.ModeKeys.TRAIN).train_op

    return GraphPipeline(build, warmup=3)


def step_rates(data_dir: str) -> dict:
    pipelines = {
        "real_input": _train_pipeline(data_dir, synthetic=False),
        "cached_batch": _train_pipeline(data_dir, synthetic=True),
    }
    rates = {name: [] for name in pipelines}
    for round_index in range(_REPEATS.value):
        names = list(pipelines)[:: 1 if round_index % 2 == 0 else -1]
        for name in names:
            rates[name].append(pipelines[name].rate(_STEPS.value))
    return rates


def _plot_inputs(rates: dict, path: str) -> None:
    import tensorflow as tf

    rates = {_LABELS[name]: runs for name, runs in rates.items()}
    title = (
        f"CIFAR-10 input, batch {_BATCH.value}, {_REPEATS.value} interleaved rounds"
        f" x {_BATCHES.value} batches;\nTF {tf.__version__}, {os.cpu_count()} CPU"
        " cores, no GPU (dots: rounds)"
    )
    bars = plot.ratio_bars(rates, _LABELS["legacy"])
    print(f"plot: {plot.write_bar_chart(bars, path, title, 'examples/sec')}")


def _input_bound(data_dir: str) -> None:
    steps = step_rates(data_dir)
    _report("(d) ResNet-20 training, examples/sec", steps, "cached_batch")
    share = statistics.median(
        1 - r / c for r, c in zip(steps["real_input"], steps["cached_batch"])
    )
    print(f"input-bound share (median of 1 - t_cached/t_real per round): {share:.1%}")


def main(argv):
    del argv
    from estimator_multigpu import devices

    devices.simulate(_DEVICES.value)
    logging.set_verbosity(logging.WARNING)
    import tensorflow as tf

    tf.get_logger().setLevel("ERROR")
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = _DATA_DIR.value
        if data_dir is None:
            from cifar10 import generate

            data_dir = tmp
            generate.generate(tmp, train_examples=50_000, test_examples=10_000)
        rates = input_rates(data_dir)
        _report("(a-c) input pipelines, examples/sec", rates, "legacy")
        tfdata, bound = (
            statistics.median(rates["tfdata"]),
            statistics.median(rates["numpy"]),
        )
        print(f"tfdata/numpy (median/median): {tfdata / bound:.2f}")
        if _PLOT.value:
            _plot_inputs(rates, _PLOT.value)
        if _INPUT_BOUND.value:
            _input_bound(data_dir)


if __name__ == "__main__":
    app.run(main)
