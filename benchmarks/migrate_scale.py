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
parse, scan, compute the rewrite) and, side by side on the same file,
TensorFlow's own tf_upgrade_v2 (`ast_edits.ASTCodeUpgrader` with
`TFAPIChangeSpec`: read, parse, upgrade, write), --repeats times each, the
two interleaved. It prints the median seconds per 1,000 lines of each, ours
over tf_upgrade_v2's, and the ratio of the largest size to the smallest (near
1 when a tool scales linearly). Each round times every size once, the sizes
one after another, and the ratio is the median of the rounds' own ratios:
on a shared machine the load changes over minutes, and sizes timed in
separate blocks of rounds once gave a 50k/1k ratio of 0.94 with `ast.parse`
alone at 0.60 (the 1k runs under the heavier load), which says nothing about
the code. Beside them it times Python's own
`ast.parse` of the same file, the floor of any tool that reads a tree: its
ratio shows how much of a larger file's cost per line is the interpreter's
(memory that no longer fits the caches), not the tool's algorithm.

emg-migrate is pure `ast`; tf_upgrade_v2 imports TensorFlow (once, before
the timing; `--baseline=none` leaves it out).

Run: python -m benchmarks.migrate_scale
"""

from __future__ import annotations

import contextlib
import io
import os
import statistics
import tempfile
import time

from absl import app, flags

from benchmarks import legacy_blocks

_SIZES = flags.DEFINE_list(
    "sizes", ["1000", "30000", "50000"], "File sizes to time, in lines."
)
_REPEATS = flags.DEFINE_integer("repeats", 3, "Timed runs per size.", lower_bound=1)
_BASELINE = flags.DEFINE_enum(
    "baseline", "tf_upgrade_v2", ["tf_upgrade_v2", "none"], "Tool timed beside ours."
)


def _time_process(path: str) -> float:
    from estimator_multigpu.migrate import _runner as runner

    start = time.process_time()
    result = runner.process(path)
    elapsed = time.process_time() - start
    if result.error or not result.findings:
        raise RuntimeError(f"{path}: no findings ({result.error})")
    return elapsed


def _time_parse(path: str) -> float:
    """Python's `ast.parse` of the file alone (read untimed), with the cycle
    collector paused as `migrate.process` pauses it (else its passes over a
    large file's millions of new nodes are most of the time)."""
    import ast  # noqa: PLC0415
    import gc  # noqa: PLC0415

    with open(path, encoding="utf-8") as f:
        source = f.read()
    gc.disable()
    try:
        start = time.process_time()
        ast.parse(source)
        return time.process_time() - start
    finally:
        gc.enable()


def _upgrader():
    """tf_upgrade_v2's upgrade of one file (TensorFlow imported here, untimed)."""
    from tensorflow.tools.compatibility import ast_edits, tf_upgrade_v2

    upgrader = ast_edits.ASTCodeUpgrader(tf_upgrade_v2.TFAPIChangeSpec())

    def run(path: str) -> float:
        with contextlib.redirect_stdout(io.StringIO()):  # its per-change log
            start = time.process_time()
            upgrader.process_file(path, path + ".upgraded.py")
            return time.process_time() - start

    return run


def _write(folder: str, size: int) -> tuple[str, int]:
    """(path, lines) of the generated module of about `size` lines."""
    source = legacy_blocks.legacy_source(size)
    path = os.path.join(folder, f"legacy_{size}.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(source)
    return path, source.count("\n")


def _round(files, baseline) -> list[tuple[float, float | None, float]]:
    """One round: for each (path, lines), CPU s per 1,000 lines of ours, of
    the baseline (or None) and of `ast.parse` alone, the sizes one after
    another, so a change of the machine's load between rounds weighs on every
    size of a round alike."""
    out = []
    for path, lines in files:
        per_1k = 1000 / lines
        mine = _time_process(path) * per_1k
        base = baseline(path) * per_1k if baseline is not None else None
        out.append((mine, base, _time_parse(path) * per_1k))
    return out


def main(argv: list[str]) -> None:
    del argv
    sizes = [int(s) for s in _SIZES.value]
    baseline = _upgrader() if _BASELINE.value == "tf_upgrade_v2" else None
    with tempfile.TemporaryDirectory() as folder:
        files = [_write(folder, size) for size in sizes]
        rounds = [_round(files, baseline) for _ in range(_REPEATS.value)]
    for i, (_, lines) in enumerate(files):
        mine = statistics.median(r[i][0] for r in rounds)
        parse = statistics.median(r[i][2] for r in rounds)
        line = f"{lines:>7,} lines: emg-migrate {mine:.3f} s per 1k lines"
        if baseline is not None:
            base = statistics.median(r[i][1] for r in rounds)
            line += f", tf_upgrade_v2 {base:.3f} (ours / theirs {mine / base:.2f})"
        print(line + f", ast.parse alone {parse:.4f}", flush=True)
    # The ratio of the largest size to the smallest within each round (the
    # two timed minutes apart at most, under the same load), then its median.
    paired = {
        "emg-migrate": statistics.median(r[-1][0] / r[0][0] for r in rounds),
        "ast.parse alone": statistics.median(r[-1][2] / r[0][2] for r in rounds),
    }
    if baseline is not None:
        paired["tf_upgrade_v2"] = statistics.median(r[-1][1] / r[0][1] for r in rounds)
    text = ", ".join(f"{name} {value:.2f}" for name, value in paired.items())
    print(
        f"ratio {sizes[-1]:,}/{sizes[0]:,} lines (median of the rounds' ratios): {text}"
    )


if __name__ == "__main__":
    app.run(main)
