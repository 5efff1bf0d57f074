"""Event files: uniquely named writers, and evaluation results as tf.estimator writes them."""

from __future__ import annotations

import itertools
import os
import socket

import numpy as np
import tensorflow as tf
from google.protobuf import message

from estimator_multigpu import _tf_internals

_GLOBAL_STEP = tf.compat.v1.GraphKeys.GLOBAL_STEP
_WRITER_NUMBERS = itertools.count()


def writer(logdir: str) -> tf.compat.v1.summary.FileWriter:
    """The process's cached summary writer for `logdir`, with a unique file name.

    TensorFlow names event files `events.out.tfevents.<seconds>.<host>`: two
    writers started in one second on one host (two processes, or a run
    started in the second the previous one ended) pick the same file and
    corrupt or truncate it. Ours end in `.<pid>.<n>` (like TF 2's own
    summary writer), with `n` unused in `logdir`. The writer goes into
    `FileWriterCache`, where TensorFlow's hooks (`SummarySaverHook`,
    `CheckpointSaverHook`, `StepCounterHook`) look it up, so all of a run's
    events go to the one new file, never appended to an older one.
    """
    return _tf_internals.cached_file_writer(
        logdir,
        lambda: tf.compat.v1.summary.FileWriter(
            logdir,
            graph=tf.compat.v1.get_default_graph(),
            filename_suffix=_unique_suffix(logdir),
        ),
    )


def _unique_suffix(logdir: str) -> str:
    """`.<pid>.<n>` with `n` new to this process and unused by files in `logdir`."""
    try:
        names = tf.io.gfile.listdir(logdir)
    except tf.errors.NotFoundError:
        names = []
    pid = os.getpid()
    while True:
        suffix = f".{pid}.{next(_WRITER_NUMBERS)}"
        if not any(n.endswith(f".{socket.gethostname()}{suffix}") for n in names):
            return suffix


def _parse_summary(key: str, value: bytes) -> list:
    """The values of a serialized `Summary` metric, tagged `key/<i>`."""
    try:
        parsed = tf.compat.v1.Summary.FromString(value)
    except message.DecodeError:
        tf.get_logger().warning(
            "Skipping summary for %s, cannot parse string to Summary.", key
        )
        return []
    for i, entry in enumerate(parsed.value):
        entry.tag = f"{key}/{i}"
    return list(parsed.value)


def _dict_to_str(dictionary: dict) -> str:
    return ", ".join(
        f"{k} = {v!s}"
        for k, v in sorted(dictionary.items())
        if not isinstance(v, bytes)
    )


def _summary_value(key, value):
    """A `Summary.Value` for a scalar or array metric; None to skip."""
    if isinstance(value, (np.floating, float, np.integer, int)):
        return tf.compat.v1.Summary.Value(tag=key, simple_value=float(value))
    if isinstance(value, np.ndarray):
        return tf.compat.v1.Summary.Value(
            tag=key, node_name=key, tensor=tf.make_tensor_proto(value)
        )
    tf.get_logger().warning(
        "Skipping summary for %s, must be a float, np.float32, np.int64, np.int32 "
        "or int or np.ndarray or a serialized string of Summary.",
        key,
    )
    return None


def write_dict(output_dir: str, dictionary: dict, global_step: int) -> None:
    """Writes the metric values as summaries at `global_step`."""
    tf.get_logger().info(
        "Saving dict for global step %d: %s", global_step, _dict_to_str(dictionary)
    )
    summary = tf.compat.v1.Summary()
    for key, value in dictionary.items():
        if value is None or key == _GLOBAL_STEP:
            continue
        if isinstance(value, bytes):
            summary.value.extend(_parse_summary(key, value))
            continue
        entry = _summary_value(key, value)
        if entry is not None:
            summary.value.append(entry)
    events = writer(output_dir)
    events.add_summary(summary, global_step)
    events.flush()


def write_checkpoint_path(output_dir: str, checkpoint_path: str, global_step) -> None:
    """Records which checkpoint the evaluation at `global_step` used."""
    tf.get_logger().info(
        "Saving 'checkpoint_path' summary for global step %d: %s",
        global_step,
        checkpoint_path,
    )
    value = tf.compat.v1.Summary.Value(
        tag="checkpoint_path",
        tensor=tf.make_tensor_proto(checkpoint_path, dtype=tf.string),
    )
    events = writer(output_dir)
    events.add_summary(tf.compat.v1.Summary(value=[value]), global_step)
    events.flush()
