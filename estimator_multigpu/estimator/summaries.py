"""Event-file summaries of evaluation results, as tf.estimator writes them."""

from __future__ import annotations

import numpy as np
import tensorflow as tf
from absl import logging
from google.protobuf import message
from tensorflow.core.framework import summary_pb2

_GLOBAL_STEP = tf.compat.v1.GraphKeys.GLOBAL_STEP


def _parse_summary(key: str, value: bytes) -> list:
    """The values of a serialized `Summary` metric, tagged `key/<i>`."""
    try:
        parsed = summary_pb2.Summary.FromString(value)
    except message.DecodeError:
        logging.warning("Skipping summary for %s, cannot parse string to Summary.", key)
        return []
    for i, entry in enumerate(parsed.value):
        entry.tag = f"{key}/{i}"
    return list(parsed.value)


def _dict_to_str(dictionary: dict) -> str:
    return ", ".join(
        f"{k} = {v}" for k, v in sorted(dictionary.items()) if not isinstance(v, bytes)
    )


def _summary_value(key, value):
    """A `Summary.Value` for a scalar or array metric; None to skip."""
    if isinstance(value, (np.floating, float, np.integer, int)):
        return summary_pb2.Summary.Value(tag=key, simple_value=float(value))
    if isinstance(value, np.ndarray):
        return summary_pb2.Summary.Value(
            tag=key, node_name=key, tensor=tf.make_tensor_proto(value)
        )
    logging.warning(
        "Skipping summary for %s, must be a float, np.float32, np.int64, np.int32 "
        "or int or np.ndarray or a serialized string of Summary.",
        key,
    )
    return None


def write_dict(output_dir: str, dictionary: dict, global_step: int) -> None:
    """Writes the metric values as summaries at `global_step`."""
    logging.info(
        "Saving dict for global step %d: %s", global_step, _dict_to_str(dictionary)
    )
    summary = summary_pb2.Summary()
    for key, value in dictionary.items():
        if value is None or key == _GLOBAL_STEP:
            continue
        if isinstance(value, bytes):
            summary.value.extend(_parse_summary(key, value))
            continue
        entry = _summary_value(key, value)
        if entry is not None:
            summary.value.append(entry)
    writer = tf.compat.v1.summary.FileWriterCache.get(output_dir)
    writer.add_summary(summary, global_step)
    writer.flush()


def write_checkpoint_path(output_dir: str, checkpoint_path: str, global_step) -> None:
    """Records which checkpoint the evaluation at `global_step` used."""
    logging.info(
        "Saving 'checkpoint_path' summary for global step %d: %s",
        global_step,
        checkpoint_path,
    )
    value = summary_pb2.Summary.Value(
        tag="checkpoint_path",
        tensor=tf.make_tensor_proto(checkpoint_path, dtype=tf.string),
    )
    writer = tf.compat.v1.summary.FileWriterCache.get(output_dir)
    writer.add_summary(summary_pb2.Summary(value=[value]), global_step)
    writer.flush()
