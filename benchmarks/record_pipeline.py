"""Examples/sec of emg.inputs.record_pipeline vs the naive per-example-parse pipeline.

Generates TFRecord files of serialized `tf.train.Example`s (a 32x32x3 uint8
image as bytes, an int64 label, 16 floats), then times, interleaved over
`--repeats` rounds in one process:

- naive: TFRecordDataset(files) -> shuffle -> map(parse_single_example) ->
  batch, no parallelism or prefetch (the classic tutorial shape);
- per_example_parallel: the same with a parallel map and prefetch (parsing
  still one example per call);
- record_pipeline: emg.inputs.record_pipeline (parallel interleave, shuffle,
  batch, one parse_example per batch, prefetch).

`ratio` is median vs median; `round ratio` the median of the per-round
ratios against naive (robust to load that drifts between rounds).

Run: python -m benchmarks.record_pipeline
"""

from __future__ import annotations

import os
import statistics
import tempfile

import numpy as np
import tensorflow as tf
from absl import app, flags, logging

import estimator_multigpu as emg
from benchmarks.timing import examples_per_sec

_FILES = flags.DEFINE_integer(
    "num_files", 16, "TFRecord files to generate.", lower_bound=1
)
_PER_FILE = flags.DEFINE_integer(
    "examples_per_file", 1024, "Examples per file.", lower_bound=1
)
_BATCH = flags.DEFINE_integer("batch_size", 128, "Examples per batch.", lower_bound=1)
_BATCHES = flags.DEFINE_integer("batches", 100, "Timed batches per run.", lower_bound=1)
_REPEATS = flags.DEFINE_integer("repeats", 5, "Interleaved rounds.", lower_bound=1)
_SHUFFLE = flags.DEFINE_integer(
    "shuffle_buffer_size", 4096, "Shuffle buffer.", lower_bound=1
)

FEATURES = {
    "image": tf.io.FixedLenFeature([], tf.string),
    "label": tf.io.FixedLenFeature([], tf.int64),
    "weights": tf.io.FixedLenFeature([16], tf.float32),
}


def _example(rng: np.random.Generator) -> bytes:
    feature = {
        "image": tf.train.Feature(
            bytes_list=tf.train.BytesList(value=[rng.bytes(32 * 32 * 3)])
        ),
        "label": tf.train.Feature(
            int64_list=tf.train.Int64List(value=[int(rng.integers(10))])
        ),
        "weights": tf.train.Feature(
            float_list=tf.train.FloatList(value=rng.random(16))
        ),
    }
    example = tf.train.Example(features=tf.train.Features(feature=feature))
    return example.SerializeToString()


def write_files(directory: str, num_files: int, per_file: int) -> list[str]:
    """Writes `num_files` TFRecord files of `per_file` examples each."""
    rng, names = np.random.default_rng(0), []
    for f in range(num_files):
        names.append(os.path.join(directory, f"train-{f:05d}.tfrecord"))
        with tf.io.TFRecordWriter(names[-1]) as writer:
            for _ in range(per_file):
                writer.write(_example(rng))
    return names


def _decode(parsed: dict, image_shape: list[int]):
    image = tf.reshape(tf.io.decode_raw(parsed["image"], tf.uint8), image_shape)
    return {"image": image, "weights": parsed["weights"]}, parsed["label"]


def parse_single(serialized: tf.Tensor):
    """Per-example parse: a scalar string -> one example."""
    return _decode(tf.io.parse_single_example(serialized, FEATURES), [32, 32, 3])


def parse_batch(serialized: tf.Tensor):
    """Batched parse: a `[batch]` string tensor -> one batch."""
    return _decode(tf.io.parse_example(serialized, FEATURES), [-1, 32, 32, 3])


def naive(files: list[str], batch_size: int, parallel: bool) -> tf.data.Dataset:
    calls = tf.data.AUTOTUNE if parallel else None
    dataset = tf.data.TFRecordDataset(files).repeat()
    dataset = dataset.shuffle(_SHUFFLE.value, seed=1)
    dataset = dataset.map(parse_single, num_parallel_calls=calls).batch(batch_size)
    return dataset.prefetch(tf.data.AUTOTUNE) if parallel else dataset


def tuned(files: list[str], batch_size: int) -> tf.data.Dataset:
    return emg.inputs.record_pipeline(
        files, parse_batch, batch_size, seed=1, shuffle_buffer_size=_SHUFFLE.value
    )


def main(argv):
    del argv
    logging.set_verbosity(logging.WARNING)
    batch, batches = _BATCH.value, _BATCHES.value
    with tempfile.TemporaryDirectory() as directory:
        files = write_files(directory, _FILES.value, _PER_FILE.value)
        builders = {
            "naive": lambda: naive(files, batch, parallel=False),
            "per_example_parallel": lambda: naive(files, batch, parallel=True),
            "record_pipeline": lambda: tuned(files, batch),
        }
        rates = {name: [] for name in builders}
        for round_index in range(_REPEATS.value):
            names = list(builders)
            names = names[round_index % 3 :] + names[: round_index % 3]
            for name in names:
                rates[name].append(examples_per_sec(builders[name](), batches, batch))
    base = statistics.median(rates["naive"])
    print(
        f"{'pipeline':<22} {'median ex/s':>12} {'ratio':>7} {'round ratio':>12}  runs"
    )
    for name, runs in rates.items():
        median = statistics.median(runs)
        paired = statistics.median(r / n for r, n in zip(runs, rates["naive"]))
        all_runs = " ".join(f"{r:.0f}" for r in runs)
        print(
            f"{name:<22} {median:>12.0f} {median / base:>6.2f}x {paired:>11.2f}x  {all_runs}"
        )


if __name__ == "__main__":
    app.run(main)
