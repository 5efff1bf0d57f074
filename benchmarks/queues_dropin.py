"""Legacy queue input vs its `emg.inputs.queues` drop-in, on CIFAR-10 records.

Generates a synthetic CIFAR-10 set (real binary layout) unless --data_dir is
given, then, interleaved over --repeats rounds in one process, times:

- legacy: `cifar10.legacy_input` (FixedLengthRecordReader, per-example
  decode/crop/flip/normalise, `shuffle_batch` with 16 threads);
- queues: the same chain on `emg.inputs.queues` (string_input_producer ->
  read -> map of the same per-example ops -> shuffle_batch with the same
  capacity and min_after_dequeue, num_threads=16), the map parallel
  (`num_parallel_calls=AUTOTUNE`);
- queues_serial: the same with a sequential map (what a literal port gives).

Each pipeline is fetched by `session.run` of a group op, --batches batches per
round after warm-up.

Run: python -m benchmarks.queues_dropin
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from absl import app, flags  # noqa: E402

_DATA_DIR = flags.DEFINE_string("data_dir", None, "CIFAR-10 data; default: generate.")
_EXAMPLES = flags.DEFINE_integer("examples", 10_000, "Generated training records.")
_BATCH = flags.DEFINE_integer("batch_size", 128, "Examples per batch.", lower_bound=1)
_BATCHES = flags.DEFINE_integer(
    "batches", 40, "Timed batches per round.", lower_bound=1
)
_REPEATS = flags.DEFINE_integer("repeats", 5, "Interleaved rounds.", lower_bound=1)


class Pipeline:
    """A pipeline in its own graph and MonitoredSession, timed in windows."""

    def __init__(self, build, warmup: int = 30):
        import tensorflow as tf

        self._graph = tf.Graph()
        with self._graph.as_default():
            self._op = tf.group(*tf.nest.flatten(build()))
            self._session = tf.compat.v1.train.MonitoredSession()
        self.rate(warmup)

    def rate(self, batches: int) -> float:
        """Examples/sec over `batches` runs."""
        start = time.perf_counter()
        for _ in range(batches):
            self._session.run(self._op)
        return batches * _BATCH.value / (time.perf_counter() - start)


def _queues_chain(data_dir: str, parallel: bool):
    import tensorflow as tf

    from cifar10 import augment, data, legacy_input
    from estimator_multigpu.inputs import queues

    files = data.filenames(data_dir, "cifar10", "train")
    spec, (offset, _) = data.layout("cifar10"), data.label_spec("cifar10")
    min_after = int(
        data.num_examples(files, "cifar10")
        * legacy_input.MIN_FRACTION_OF_EXAMPLES_IN_QUEUE
    )

    def example_fn(key, value):
        image, label = augment.decode_record(value, offset, spec.label_bytes)
        image = augment.normalize(augment.augment_example(image))
        image.set_shape([data.HEIGHT, data.WIDTH, data.CHANNELS])
        return image, label

    records = queues.read(
        queues.string_input_producer(files),
        queues.FixedLengthRecordReader(spec.record_bytes),
    )
    examples = records.map(
        example_fn, num_parallel_calls=tf.data.AUTOTUNE if parallel else None
    )
    batches = queues.shuffle_batch(
        examples, _BATCH.value, min_after + 3 * _BATCH.value, min_after, num_threads=16
    )
    return queues.get_next(batches)


def _pipelines(data_dir: str) -> dict[str, Pipeline]:
    from cifar10 import legacy_input

    return {
        "legacy": Pipeline(lambda: legacy_input.inputs(data_dir, _BATCH.value)),
        "queues": Pipeline(lambda: _queues_chain(data_dir, parallel=True)),
        "queues_serial": Pipeline(lambda: _queues_chain(data_dir, parallel=False)),
    }


def main(argv):
    del argv
    from cifar10 import generate

    data_dir = _DATA_DIR.value
    if data_dir is None:
        data_dir = tempfile.mkdtemp()
        generate.generate(data_dir, train_examples=_EXAMPLES.value, test_examples=10)
    pipelines = _pipelines(data_dir)
    rates = {name: [] for name in pipelines}
    for _ in range(_REPEATS.value):
        for name, pipeline in pipelines.items():
            rates[name].append(pipeline.rate(_BATCHES.value))
    base = statistics.median(rates["legacy"])
    for name, runs in rates.items():
        ratios = [r / b for r, b in zip(runs, rates["legacy"])]
        print(
            f"{name:14s} median {statistics.median(runs):8.0f} ex/s  "
            f"ratio {statistics.median(runs) / base:5.2f}x  "
            f"per-round ratio {statistics.median(ratios):5.2f}x  "
            f"runs {' '.join(f'{r:.0f}' for r in runs)}"
        )


if __name__ == "__main__":
    app.run(main)
