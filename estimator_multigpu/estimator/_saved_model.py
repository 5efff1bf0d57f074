"""`Estimator.export_saved_model`: a timestamped, device-free SavedModel."""

from __future__ import annotations

import os
from collections.abc import Callable

import tensorflow as tf

from estimator_multigpu import _tf_internals
from estimator_multigpu.estimator import (
    _checkpoints,
    _damaged,
    _input_fn,
    _model_fn_args,
)
from estimator_multigpu.estimator._spec import ModeKeys


def export_saved_model(
    estimator,
    model: _model_fn_args.BoundModel,
    export_dir_base: str,
    serving_input_receiver_fn: Callable,
    assets_extra: dict | None = None,
    as_text: bool = False,
    checkpoint_path: str | None = None,
    mode: str = ModeKeys.PREDICT,
    *,
    strip_default_attrs: bool = True,
) -> bytes:
    """Exports `mode`'s graph and the checkpoint's variables as a SavedModel.

    The graph is built from the un-replicated `model_fn` with device
    placements cleared, so a model trained on several GPUs serves on a CPU;
    default-valued attributes are left out of its nodes unless
    `strip_default_attrs=False` (tf.estimator's `export_savedmodel` default).

    Returns:
      The export directory, as bytes (like tf.estimator).

    Raises:
      ValueError: without a receiver fn or a checkpoint, or when the
        checkpoint lacks variables the model creates.
    """
    if not serving_input_receiver_fn or not callable(serving_input_receiver_fn):
        raise ValueError(
            "An input_receiver_fn must be defined: pass a function returning an "
            "export.ServingInputReceiver, e.g. "
            "export.build_raw_serving_input_receiver_fn({'x': tensor})."
        )
    return export_all_saved_models(
        estimator,
        model,
        export_dir_base,
        {mode: serving_input_receiver_fn},
        assets_extra,
        as_text,
        checkpoint_path,
        strip_default_attrs=strip_default_attrs,
    )


def export_all_saved_models(
    estimator,
    model: _model_fn_args.BoundModel,
    export_dir_base: str,
    input_receiver_fn_map: dict,
    assets_extra: dict | None = None,
    as_text: bool = False,
    checkpoint_path: str | None = None,
    *,
    strip_default_attrs: bool = True,
) -> bytes:
    """One SavedModel with a MetaGraph per mode of `input_receiver_fn_map`.

    Modes are exported in tf.estimator's order (train, eval, predict); the
    first saves the variables, the others share them.

    Returns:
      The export directory, as bytes.
    """
    modes = _ordered_modes(input_receiver_fn_map)
    export_dir_base = _checkpoints.as_path(export_dir_base, "export_dir_base")
    if not export_dir_base:
        raise ValueError(
            "`export_dir_base` must name the directory under which the "
            f"timestamped export is written; received {export_dir_base!r}."
        )
    checkpoint_path = _checkpoints.given_checkpoint(checkpoint_path)
    checkpoint_path = checkpoint_path or _default_checkpoint(estimator, model)
    export_dir = _tf_internals.export_utils().get_timestamped_export_dir(
        export_dir_base
    )
    temp_dir = _tf_internals.export_utils().get_temp_export_dir(export_dir)
    try:
        builder = None
        for mode in modes:
            with tf.Graph().as_default():
                builder = _add_meta_graph(
                    estimator,
                    model,
                    temp_dir,
                    input_receiver_fn_map[mode],
                    checkpoint_path,
                    mode,
                    builder,
                    strip_default_attrs,
                )
        builder.save(as_text)
        _copy_assets_extra(temp_dir, assets_extra)
        tf.io.gfile.rename(temp_dir, export_dir)
    except BaseException:
        _remove_quietly(temp_dir)
        raise
    tf.get_logger().info("Exported SavedModel to %s", export_dir)
    return export_dir


def _ordered_modes(input_receiver_fn_map) -> list[str]:
    """The map's modes in tf.estimator's export order; ValueError if none."""
    order = (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT)
    if not isinstance(input_receiver_fn_map, dict) or not input_receiver_fn_map:
        raise ValueError(
            "`input_receiver_fn_map` must map ModeKeys to receiver fns, e.g. "
            "{ModeKeys.PREDICT: serving_input_receiver_fn}; received "
            f"{input_receiver_fn_map!r}."
        )
    unknown = [mode for mode in input_receiver_fn_map if mode not in order]
    if unknown:
        raise ValueError(
            f"`input_receiver_fn_map` has unknown modes {unknown}; use "
            "ModeKeys.TRAIN, ModeKeys.EVAL or ModeKeys.PREDICT."
        )
    return [mode for mode in order if input_receiver_fn_map.get(mode)]


def _remove_quietly(temp_dir: bytes) -> None:
    """Removes a failed export's temporary directory, if it was created."""
    try:
        if tf.io.gfile.exists(temp_dir):
            tf.io.gfile.rmtree(temp_dir)
    except tf.errors.OpError as error:
        tf.get_logger().warning("Could not remove %s: %s", os.fsdecode(temp_dir), error)


def _default_checkpoint(estimator, model) -> str:
    path = _checkpoints.existing_latest(estimator.model_dir)
    if path:
        return path
    settings = model.warm_start_settings
    if settings is None:
        raise ValueError(
            f"Couldn't find trained model at {estimator.model_dir}. Train first, "
            "or pass `checkpoint_path`."
        )
    path = settings.ckpt_to_initialize_from
    return tf.train.latest_checkpoint(path) if tf.io.gfile.isdir(path) else path


def _add_meta_graph(
    estimator,
    model,
    temp_dir,
    receiver_fn,
    checkpoint_path,
    mode,
    builder=None,
    strip_default_attrs=True,
):
    """Builds `mode`'s graph, restores the checkpoint; returns a SavedModel builder.

    A new builder (which creates `temp_dir`) comes after the graph is built,
    so a model_fn or receiver that fails leaves no directory behind; with
    `builder` given, the MetaGraph joins it and shares its variables.
    """
    tf.compat.v1.train.create_global_step()
    tf.compat.v1.random.set_random_seed(estimator.config.tf_random_seed)
    receiver = _call_receiver_fn(receiver_fn)
    spec = model.call(
        receiver.features, getattr(receiver, "labels", None), mode, replicate=False
    )
    local_init = spec.scaffold.local_init_op
    if local_init is None:
        local_init = tf.compat.v1.train.Scaffold.default_local_init_op()
    saver = spec.scaffold.saver or tf.compat.v1.train.Saver(sharded=True)
    meta_graph = {
        "tags": _tf_internals.export_utils().EXPORT_TAG_MAP[mode],
        "signature_def_map": _signatures(receiver, spec, mode),
        "assets_collection": tf.compat.v1.get_collection(
            tf.compat.v1.GraphKeys.ASSET_FILEPATHS
        ),
        "main_op": local_init,
        "saver": saver,
        "strip_default_attrs": strip_default_attrs,
        "clear_devices": True,
    }
    with tf.compat.v1.Session(config=estimator.config.session_config) as session:
        _restore(saver, session, checkpoint_path, mode)
        if builder is not None:
            builder.add_meta_graph(**meta_graph)
            return builder
        builder = tf.compat.v1.saved_model.Builder(temp_dir)
        builder.add_meta_graph_and_variables(session, **meta_graph)
    return builder


def _call_receiver_fn(receiver_fn):
    """Calls `receiver_fn`; raises TypeError unless it returns a receiver."""
    receiver = receiver_fn()
    if not (hasattr(receiver, "features") and hasattr(receiver, "receiver_tensors")):
        raise TypeError(
            f"serving_input_receiver_fn {_input_fn.name_of(receiver_fn)} "
            f"returned {_input_fn.describe(receiver)}; it must return an "
            "export.ServingInputReceiver (or export.TensorServingInputReceiver), "
            "e.g. `return export.ServingInputReceiver(features, receiver_tensors)`, "
            "or be built by export.build_raw_serving_input_receiver_fn or "
            "export.build_parsing_serving_input_receiver_fn."
        )
    return receiver


def _signatures(receiver, spec, mode: str) -> dict:
    """SignatureDefs: the receiver tensors in, the spec's export outputs out."""
    outputs = _tf_internals.export_utils().export_outputs_for_mode(
        mode=spec.mode,
        serving_export_outputs=spec.export_outputs,
        predictions=spec.predictions,
        loss=spec.loss,
        metrics=spec.eval_metric_ops,
    )
    return _tf_internals.export_utils().build_all_signature_defs(
        receiver.receiver_tensors,
        outputs,
        getattr(receiver, "receiver_tensors_alternatives", None),
        serving_only=(mode == ModeKeys.PREDICT),
    )


def _restore(saver, session, checkpoint_path: str, mode: str) -> None:
    try:
        with _damaged.explain_restore_errors(checkpoint_path):
            saver.restore(session, checkpoint_path)
    except tf.errors.NotFoundError as error:
        raise ValueError(
            "Could not load all requested variables from checkpoint. Please "
            "make sure your model_fn does not expect variables that were not "
            f"saved in the checkpoint.\n\nEncountered error with mode `{mode}` "
            f"while restoring checkpoint from: `{checkpoint_path}`. Full "
            f"Traceback:\n\n{error}"
        ) from error


def _copy_assets_extra(export_dir: bytes, assets_extra: dict | None) -> None:
    """Copies `{relative destination: source path}` into `assets.extra/`."""
    for dest_relative, source in (assets_extra or {}).items():
        dest = os.path.join(
            os.fsdecode(export_dir), "assets.extra", os.fsdecode(dest_relative)
        )
        tf.io.gfile.makedirs(os.path.dirname(dest))
        tf.io.gfile.copy(source, dest)
