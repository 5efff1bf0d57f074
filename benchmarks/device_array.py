"""Examples/sec of emg.inputs.device_array_dataset vs per-example slicing.

One static float32 array (a long signal); each example is
`array[i : i + fragment_length]` for a shuffled start `i`. Timed,
interleaved over `--repeats` rounds in one process:

- per_example_slice: from_tensor_slices(starts) -> shuffle -> map(one slice
  per example from the host array) -> batch -> prefetch (on a GPU each
  example would then be copied host -> device);
- device_array_dataset: the array resident on the device, a whole batch of
  fragments gathered by one op there (nothing crosses host -> device but
  the pipeline's counters when the dataset runs on the device).

On this CPU-only machine the comparison shows the batched gather against
per-example work; the copy saving needs a GPU.

Run: python -m benchmarks.device_array
"""

from __future__ import annotations

import statistics

import numpy as np
import tensorflow as tf
from absl import app, flags, logging

import estimator_multigpu as emg
from benchmarks.timing import examples_per_sec

_LENGTH = flags.DEFINE_integer("length", 16_000_000, "Array length.", lower_bound=1)
_FRAGMENT = flags.DEFINE_integer(
    "fragment_length", 1024, "Slice length.", lower_bound=1
)
_BATCH = flags.DEFINE_integer("batch_size", 64, "Fragments per batch.", lower_bound=1)
_BATCHES = flags.DEFINE_integer("batches", 200, "Timed batches per run.", lower_bound=1)
_REPEATS = flags.DEFINE_integer("repeats", 5, "Interleaved rounds.", lower_bound=1)


def per_example(array: tf.Tensor, starts: np.ndarray, batch_size: int, length: int):
    dataset = tf.data.Dataset.from_tensor_slices(starts).repeat()
    dataset = dataset.shuffle(len(starts), seed=1)
    dataset = dataset.map(
        lambda s: array[s : s + length], num_parallel_calls=tf.data.AUTOTUNE
    )
    return dataset.batch(batch_size).prefetch(tf.data.AUTOTUNE)


def resident(array: emg.inputs.DeviceArray, starts, batch_size: int, length: int):
    return emg.inputs.device_array_dataset(
        array, starts, length, batch_size, seed=1, num_epochs=None, device="/cpu:0"
    )


def main(argv):
    del argv
    logging.set_verbosity(logging.WARNING)
    length, batch = _FRAGMENT.value, _BATCH.value
    host = np.random.default_rng(0).random(_LENGTH.value, dtype=np.float32)
    starts = np.arange(0, len(host) - length + 1, length // 2, dtype=np.int64)
    with tf.device("/cpu:0"):
        host_tensor = tf.constant(host)
    builders = {
        "per_example_slice": lambda: per_example(host_tensor, starts, batch, length),
        "device_array_dataset": lambda: resident(
            emg.inputs.DeviceArray(host), starts, batch, length
        ),
    }
    rates = {name: [] for name in builders}
    for round_index in range(_REPEATS.value):
        names = list(builders)[:: 1 if round_index % 2 else -1]
        for name in names:
            rates[name].append(
                examples_per_sec(builders[name](), _BATCHES.value, batch)
            )
    base = rates["per_example_slice"]
    print(
        f"{'pipeline':<22} {'median ex/s':>12} {'ratio':>7} {'round ratio':>12}  runs"
    )
    for name, runs in rates.items():
        median = statistics.median(runs)
        paired = statistics.median(r / b for r, b in zip(runs, base))
        all_runs = " ".join(f"{r:.0f}" for r in runs)
        ratio = median / statistics.median(base)
        print(f"{name:<22} {median:>12.0f} {ratio:>6.2f}x {paired:>11.2f}x  {all_runs}")


if __name__ == "__main__":
    app.run(main)
