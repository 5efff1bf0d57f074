"""`BestExporter`: export only when the evaluation beats the best so far."""

from __future__ import annotations

import os
from collections.abc import Callable

import tensorflow as tf

from estimator_multigpu.estimator import _exporters


def _read_eval_results(event_file: str):
    """Yields the scalar summaries of each event as a `{tag: value}` dict."""
    for event in tf.compat.v1.train.summary_iterator(event_file):
        if not event.HasField("summary"):
            continue
        result = {
            v.tag: v.simple_value
            for v in event.summary.value
            if v.HasField("simple_value")
        }
        if result:
            yield result


class BestExporter(_exporters.Exporter):
    """Exports when `compare_fn(best, current)` says the new result is better.

    On its first use with an Estimator it reads the best result so far from
    the event files matching `event_file_pattern` under `model_dir`.

    Args:
      name: the exporter's name; exports go to `<model_dir>/export/<name>/`.
      serving_input_receiver_fn: a function of no arguments returning a
        `ServingInputReceiver` (e.g. from
        `export.build_raw_serving_input_receiver_fn`).
      assets_extra: `{destination path in assets.extra: source path}` of
        files to copy into each export, or None.
      as_text: write the SavedModel proto as text too.
      event_file_pattern: event files (relative to `model_dir`) holding the
        earlier evaluations, read once to find the best result so far.
      compare_fn: `compare_fn(best_eval_result, current_eval_result) -> bool`,
        True when the current result is better; default: a smaller loss.
      exports_to_keep: how many of the newest exports to keep; None keeps
        all.

    Raises:
      ValueError: for a None or badly formed `compare_fn`, or a bad
        `exports_to_keep`.
    """

    def __init__(
        self,
        name: str = "best_exporter",
        serving_input_receiver_fn: Callable | None = None,
        event_file_pattern: str = "eval/*.tfevents.*",
        compare_fn: Callable = _exporters.loss_smaller,
        assets_extra: dict | None = None,
        as_text: bool = False,
        exports_to_keep: int | None = 5,
    ):
        if compare_fn is None:
            raise ValueError("`compare_fn` must not be None.")
        _exporters.verify_compare_fn_args(compare_fn)
        _exporters.check_exports_to_keep(exports_to_keep)
        self._compare_fn = compare_fn
        self._exporter = _exporters.SavedModelExporter(
            name, serving_input_receiver_fn, assets_extra, as_text
        )
        self._event_file_pattern = event_file_pattern
        self._exports_to_keep = exports_to_keep
        self._model_dir = None
        self._best_eval_result = None
        self._has_exported = False

    @property
    def name(self) -> str:
        return self._exporter.name

    def export(
        self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export
    ):
        if self._model_dir != estimator.model_dir and self._event_file_pattern:
            tf.get_logger().info("Loading best metric from event files.")
            self._model_dir = estimator.model_dir
            pattern = os.path.join(self._model_dir, self._event_file_pattern)
            self._best_eval_result = self._best_in(pattern)
        if not self._is_better(eval_result):
            return None
        tf.get_logger().info("Performing best model export.")
        self._best_eval_result = eval_result
        result = self._exporter.export(
            estimator, export_path, checkpoint_path, eval_result, is_the_final_export
        )
        _exporters.garbage_collect_exports(export_path, self._exports_to_keep)
        self._has_exported = True
        return result

    def _is_better(self, eval_result: dict) -> bool:
        return (
            self._best_eval_result is None
            or not self._has_exported
            or self._compare_fn(
                best_eval_result=self._best_eval_result,
                current_eval_result=eval_result,
            )
        )

    def _best_in(self, pattern: str) -> dict | None:
        best = None
        for event_file in tf.io.gfile.glob(pattern):
            for result in _read_eval_results(event_file):
                if best is None or self._compare_fn(best, result):
                    best = result
        return best
