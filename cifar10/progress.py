"""A session hook that shows training progress: step, loss, learning rate, examples/sec."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import tensorflow as tf

from estimator_multigpu import estimator


def _duration(seconds: float) -> str:
    minutes, seconds = divmod(int(seconds), 60)
    return f"{minutes}m{seconds:02d}s"


class ProgressHook(estimator.SessionRunHook):
    """Prints one line every `every_n_steps` steps (rewritten in place on a terminal)."""

    def __init__(
        self,
        loss: tf.Tensor,
        learning_rate: tf.Tensor,
        global_batch_size: int,
        train_steps: int,
        every_n_steps: int,
        write: Callable[[str], None] | None = None,
    ):
        self._fetches = {"loss": loss, "learning_rate": learning_rate}
        self._batch, self._total, self._every = (
            global_batch_size,
            train_steps,
            every_n_steps,
        )
        self._write = write or _write_stdout
        self._last = None  # (step, time) of the last line.
        self._step = 0  # Steps done, counted here.

    def begin(self):
        self._global_step = tf.compat.v1.train.get_global_step()

    def after_create_session(self, session, coord):
        # Read once, then counted: a reference variable (v1 behaviour) fetched
        # beside the train op may already hold the incremented value.
        self._step = int(session.run(self._global_step))

    def before_run(self, run_context):
        return estimator.SessionRunArgs(self._fetches)

    def after_run(self, run_context, run_values):
        values, now = run_values.results, time.perf_counter()
        self._step += 1
        step = self._step
        if self._last is None:
            self._last = (step, now)
        elif step - self._last[0] >= self._every or step >= self._total:
            rate = (step - self._last[0]) * self._batch / (now - self._last[1])
            # The global step, read after the update: on a cluster other
            # workers (async) or the aggregation (sync) move it, not this
            # worker's own count.
            shown = int(run_context.session.run(self._global_step))
            self._write(self._line(shown, values, rate))
            self._last = (step, now)

    def _line(self, step: int, values: dict, examples_per_sec: float) -> str:
        left = (self._total - step) * self._batch / max(examples_per_sec, 1e-9)
        return (
            f"step {step}/{self._total} ({100 * step / self._total:.0f}%)  "
            f"loss {values['loss']:.3f}  lr {values['learning_rate']:.4g}  "
            f"{examples_per_sec:.0f} examples/sec  eta {_duration(left)}"
        )

    def end(self, session):
        self._write(None)


def _write_stdout(line: str | None) -> None:
    """Rewrites one status line on a terminal; prints plain lines otherwise."""
    tty = sys.stdout.isatty()
    if line is None:
        if tty:
            sys.stdout.write("\n")
    elif tty:
        sys.stdout.write("\r" + line.ljust(100))
    else:
        sys.stdout.write(line + "\n")
    sys.stdout.flush()
