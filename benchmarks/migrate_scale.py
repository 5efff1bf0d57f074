"""Migrate scanner scaling: seconds per 1k lines on generated legacy files.

Generates one legacy TF 1.x module per size (--sizes, in lines) by repeating
a block of realistic code (`benchmarks/legacy_blocks.py`, whose shapes
tests/test_migrate_scale.py also counts): a queue input function (string_input_producer ->
TFRecordReader -> per-example decode -> shuffle_batch, which `--fix`
rewrites), an Estimator `model_fn` (tf.layers, tf.estimator, which it
renames or reports), a hand-written tower loop with gradient averaging, a
CIFAR-tutorial record-object reader and its caller (flattened), slim
model_deploy clones (rewritten, their device count resolved first), a
Keras model exported through a placeholder of another shape (its declared
input shape dropped) and module-level graph statements that assign the same names in every block
(beside a contrib slim import). Each block has its own function names, as
in a real module; these shapes are the ones where a step once cost a pass
over the whole file per block. For every size it times (CPU time of this
process, so other load on the machine counts less) `migrate.process` (read,
parse, scan, compute the rewrite), --repeats times, and prints the median
seconds per 1,000 lines and the ratio of the largest
size to the smallest (near 1 when the tool scales linearly).

Pure `ast`: never imports TensorFlow.

Run: python -m benchmarks.migrate_scale
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time

from absl import app, flags

from benchmarks import legacy_blocks

_SIZES = flags.DEFINE_list(
    "sizes", ["1000", "8000", "50000"], "File sizes to time, in lines."
)
_REPEATS = flags.DEFINE_integer("repeats", 3, "Timed runs per size.", lower_bound=1)


def _time_process(path: str) -> float:
    from estimator_multigpu.migrate import _runner as runner

    start = time.process_time()
    result = runner.process(path)
    elapsed = time.process_time() - start
    if result.error or not result.findings:
        raise RuntimeError(f"{path}: no findings ({result.error})")
    return elapsed


def _per_1k(folder: str, size: int) -> tuple[int, float]:
    """Returns (lines, median seconds per 1,000 lines) for a file of `size`."""
    source = legacy_blocks.legacy_source(size)
    path = os.path.join(folder, f"legacy_{size}.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(source)
    lines = source.count("\n")
    runs = [_time_process(path) for _ in range(_REPEATS.value)]
    return lines, statistics.median(runs) * 1000 / lines


def main(argv: list[str]) -> None:
    del argv
    sizes = [int(s) for s in _SIZES.value]
    results = []
    with tempfile.TemporaryDirectory() as folder:
        for size in sizes:
            lines, per_1k = _per_1k(folder, size)
            results.append(per_1k)
            print(f"{lines:>7,} lines: {per_1k:.3f} s per 1k lines")
    print(f"ratio {sizes[-1]:,}/{sizes[0]:,} lines: {results[-1] / results[0]:.2f}")


if __name__ == "__main__":
    app.run(main)
