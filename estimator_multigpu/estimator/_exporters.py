"""Exporters run by `train_and_evaluate` after each evaluation."""

from __future__ import annotations

import abc
import os
from collections.abc import Callable

import tensorflow as tf

from estimator_multigpu._model_fn import fn_args


class Exporter(abc.ABC):
    """Exports a model after an evaluation; `name` names its export folder."""

    @property
    @abc.abstractmethod
    def name(self) -> str:
        """Directory name under `model_dir/export/`."""

    @abc.abstractmethod
    def export(
        self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export
    ):
        """Exports; returns the export path or None."""


def check_exports_to_keep(exports_to_keep) -> None:
    """Package-internal (also BestExporter's): refuses a count <= 0, quoting it."""
    if exports_to_keep is not None and exports_to_keep <= 0:
        raise ValueError(
            f"`exports_to_keep`, if provided, must be a positive number; got "
            f"{exports_to_keep}. Pass None to keep every export."
        )


class SavedModelExporter(Exporter):
    """Package-internal (not in `__all__`): the export that Latest/Final/BestExporter wrap."""

    def __init__(
        self, name, serving_input_receiver_fn, assets_extra=None, as_text=False
    ):
        self._name = name
        self._receiver_fn = serving_input_receiver_fn
        self._assets_extra = assets_extra
        self._as_text = as_text

    @property
    def name(self) -> str:
        return self._name

    def export(
        self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export
    ):
        del eval_result, is_the_final_export
        return estimator.export_saved_model(
            export_path,
            self._receiver_fn,
            assets_extra=self._assets_extra,
            as_text=self._as_text,
            checkpoint_path=checkpoint_path,
        )


def garbage_collect_exports(export_dir_base: str, exports_to_keep: int | None) -> None:
    """Deletes all but the newest `exports_to_keep` timestamped exports."""
    if exports_to_keep is None or not tf.io.gfile.isdir(export_dir_base):
        return
    versions = sorted(
        name.rstrip("/")
        for name in tf.io.gfile.listdir(export_dir_base)
        if len(name.rstrip("/")) == 10 and name.rstrip("/").isdigit()
    )
    for version in versions[:-exports_to_keep]:
        path = os.path.join(export_dir_base, version)
        try:
            tf.io.gfile.rmtree(path)
        except tf.errors.NotFoundError as error:
            tf.get_logger().warning("Can not delete %s recursively: %s", path, error)


class LatestExporter(Exporter):
    """Exports after every evaluation, keeping the newest `exports_to_keep`.

    Args:
      name: the exporter's name; exports go to `<model_dir>/export/<name>/`.
      serving_input_receiver_fn: a function of no arguments returning a
        `ServingInputReceiver` (e.g. from
        `export.build_raw_serving_input_receiver_fn`).
      assets_extra: `{destination path in assets.extra: source path}` of
        files to copy into each export, or None.
      as_text: write the SavedModel proto as text too.
      exports_to_keep: how many of the newest exports to keep; None keeps
        all.

    Raises:
      ValueError: for an `exports_to_keep` that is not None or a positive int.
    """

    def __init__(
        self,
        name: str,
        serving_input_receiver_fn: Callable,
        assets_extra: dict | None = None,
        as_text: bool = False,
        exports_to_keep: int | None = 5,
    ):
        check_exports_to_keep(exports_to_keep)
        self._exporter = SavedModelExporter(
            name, serving_input_receiver_fn, assets_extra, as_text
        )
        self._exports_to_keep = exports_to_keep

    @property
    def name(self) -> str:
        return self._exporter.name

    def export(
        self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export
    ):
        result = self._exporter.export(
            estimator, export_path, checkpoint_path, eval_result, is_the_final_export
        )
        garbage_collect_exports(export_path, self._exports_to_keep)
        return result


class FinalExporter(Exporter):
    """Exports once, after the final evaluation of training.

    Args:
      name: the exporter's name; the export goes to
        `<model_dir>/export/<name>/`.
      serving_input_receiver_fn: a function of no arguments returning a
        `ServingInputReceiver` (e.g. from
        `export.build_raw_serving_input_receiver_fn`).
      assets_extra: `{destination path in assets.extra: source path}` of
        files to copy into each export, or None.
      as_text: write the SavedModel proto as text too.
    """

    def __init__(
        self, name, serving_input_receiver_fn, assets_extra=None, as_text=False
    ):
        self._exporter = SavedModelExporter(
            name, serving_input_receiver_fn, assets_extra, as_text
        )

    @property
    def name(self) -> str:
        return self._exporter.name

    def export(
        self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export
    ):
        if not is_the_final_export:
            return None
        tf.get_logger().info("Performing the final export in the end of training.")
        return self._exporter.export(
            estimator, export_path, checkpoint_path, eval_result, is_the_final_export
        )


def loss_smaller(best_eval_result: dict, current_eval_result: dict) -> bool:
    """Default `compare_fn` of `BestExporter`: lower `loss` is better."""
    for name, result in (("best", best_eval_result), ("current", current_eval_result)):
        if not result or "loss" not in result:
            raise ValueError(
                f"{name}_eval_result cannot be empty or no loss is found in it."
            )
    return best_eval_result["loss"] > current_eval_result["loss"]


def verify_compare_fn_args(compare_fn: Callable) -> None:
    """Package-internal (BestExporter's): `compare_fn` takes the two eval results."""
    args = set(fn_args(compare_fn))
    expected = {"best_eval_result", "current_eval_result"}
    if args != expected:
        raise ValueError(
            f"compare_fn ({compare_fn}) must take exactly the arguments "
            f"{sorted(expected)}; it takes {sorted(args)}."
        )
