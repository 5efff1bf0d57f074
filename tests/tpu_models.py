"""A TPUEstimator-style model_fn and input_fns for the emg.estimator.tpu tests.

Holds no tests. The model is estimator_models' softmax regression, written
the way TPUEstimator code is: the input_fn batches by `params['batch_size']`,
the model_fn returns a `TPUEstimatorSpec` with `eval_metrics=(metric_fn,
tensors)`, a `host_call` that writes summaries and a `scaffold_fn` that warm
starts from a checkpoint. Every call records what `params` held, so tests
compare the batch sizes each implementation passes.
"""

from __future__ import annotations

import glob
import os

import tensorflow as tf
from estimator_models import NUM_CLASSES, NUM_FEATURES

TRAIN, EVAL, PREDICT = "train", "eval", "infer"


def _variables():
    kernel = tf.compat.v1.get_variable(
        "dense/kernel",
        [NUM_FEATURES, NUM_CLASSES],
        initializer=tf.compat.v1.glorot_uniform_initializer(seed=1),
    )
    bias = tf.compat.v1.get_variable(
        "dense/bias", [NUM_CLASSES], initializer=tf.compat.v1.zeros_initializer()
    )
    return kernel, bias


def host_fn_writing_to(logdir: str):
    """A host_call fn `(global_step [n], loss [n])` writing `host_loss` to `logdir`."""

    def host_fn(global_step, loss):
        writer = tf.compat.v2.summary.create_file_writer(logdir)
        with writer.as_default(), tf.compat.v2.summary.record_if(True):
            # tf.summary.write needs no TensorBoard (scalar does).
            tf.compat.v2.summary.write(
                "host_loss", tf.reduce_mean(loss), step=global_step[0]
            )
            tf.compat.v2.summary.write(
                "host_examples", tf.cast(tf.size(loss), tf.float32), step=global_step[0]
            )
            return tf.compat.v1.summary.all_v2_summary_ops()

    return host_fn


def metric_fn(labels, logits):
    """eval_metrics' function: accuracy and the mean label."""
    return {
        "accuracy": tf.compat.v1.metrics.accuracy(labels, tf.argmax(logits, axis=1)),
        "mean_label": tf.compat.v1.metrics.mean(labels),
    }


def make_model_fn(
    spec_cls,
    seen: list,
    tensors_as: str = "list",
    host_dir: str | None = None,
    init_checkpoint: str | None = None,
):
    """A model_fn returning `spec_cls` (ours or tf's TPUEstimatorSpec).

    Args:
      seen: gets `('model_fn', mode, params.get('batch_size'),
        params.get('use_tpu'))` per call.
      tensors_as: `'list'` or `'dict'`: how eval_metrics' tensors are passed.
      host_dir: where the host_call writes; None: no host_call.
      init_checkpoint: a checkpoint the scaffold_fn warm-starts `dense/` from.
    """

    def model_fn(features, labels, mode, params):
        seen.append(("model_fn", mode, params.get("batch_size"), params.get("use_tpu")))
        kernel, bias = _variables()
        logits = tf.matmul(features["x"], kernel) + bias
        scaffold_fn = None
        if init_checkpoint:

            def scaffold_fn():
                tf.compat.v1.train.init_from_checkpoint(
                    init_checkpoint,
                    {"dense/kernel": "dense/kernel", "dense/bias": "dense/bias"},
                )
                return tf.compat.v1.train.Scaffold()

        if mode == PREDICT:
            predictions = {"class": tf.argmax(logits, axis=1), "logits": logits}
            return spec_cls(mode, predictions=predictions, scaffold_fn=scaffold_fn)
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        if mode == EVAL:
            tensors = [labels, logits]
            if tensors_as == "dict":
                tensors = {"labels": labels, "logits": logits}
            return spec_cls(
                mode,
                loss=loss,
                eval_metrics=(metric_fn, tensors),
                scaffold_fn=scaffold_fn,
            )
        global_step = tf.compat.v1.train.get_global_step()
        optimizer = tf.compat.v1.train.MomentumOptimizer(0.1, 0.9)
        train_op = optimizer.minimize(loss, global_step)
        host_call = None
        if host_dir:
            host_call = (
                host_fn_writing_to(host_dir),
                [tf.reshape(global_step, [1]), tf.reshape(loss, [1])],
            )
        return spec_cls(
            mode,
            loss=loss,
            train_op=train_op,
            host_call=host_call,
            scaffold_fn=scaffold_fn,
        )

    return model_fn


def make_input_fn(x, y, seen: list, repeat: bool = False):
    """An input_fn `(params, mode)` batching by `params['batch_size']`."""

    def input_fn(params, mode):
        seen.append(("input_fn", mode, params.get("batch_size")))
        elements = {"x": x} if y is None else ({"x": x}, y)
        dataset = tf.data.Dataset.from_tensor_slices(elements)
        dataset = dataset.batch(params["batch_size"])
        return dataset.repeat() if repeat else dataset

    return input_fn


def event_tags(directory: str) -> set:
    """Summary tags in the event files directly in `directory`."""
    tags = set()
    for path in glob.glob(os.path.join(directory, "events.out.tfevents.*")):
        for event in tf.compat.v1.train.summary_iterator(path):
            tags.update(value.tag for value in event.summary.value)
    return tags
