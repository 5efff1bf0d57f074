"""`Estimator.predict`: yield model predictions until the input ends."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import tensorflow as tf

from estimator_multigpu import per_device
from estimator_multigpu.estimator import (
    _checkpoints,
    _damaged,
    _input_fn,
    _model_fn_args,
)
from estimator_multigpu.estimator._spec import ModeKeys
from estimator_multigpu.estimator._train import check_hooks


def check_predict_keys(predict_keys) -> list[str] | None:
    """Returns `predict_keys` as a list (one name alone, as tf.estimator takes it).

    Raises:
      TypeError: for something that is neither a name nor a list of names.
    """
    if predict_keys is None:
        return None
    if isinstance(predict_keys, str):
        return [predict_keys]
    try:
        return list(predict_keys)
    except TypeError:
        raise TypeError(
            "`predict_keys` must be a list of prediction names (e.g. "
            f"['class']); received {predict_keys!r}."
        ) from None


def check_yield_single_examples(value) -> bool:
    """Raises TypeError unless `yield_single_examples` is a bool."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(
            "`yield_single_examples` must be True (one prediction per example) "
            f"or False (whole batches); received {value!r}."
        )
    return bool(value)


def predict(
    estimator,
    model: _model_fn_args.BoundModel,
    input_fn: Callable,
    predict_keys: Sequence[str] | None = None,
    hooks: Sequence | None = None,
    checkpoint_path: str | None = None,
    yield_single_examples: bool = True,
) -> Iterator[Any]:
    """Yields predictions; see `Estimator.predict`.

    Arguments are checked on the first `next()`, as with tf.estimator.
    """
    hooks = check_hooks(hooks)
    predict_keys = check_predict_keys(predict_keys)
    yield_single_examples = check_yield_single_examples(yield_single_examples)
    _input_fn.verify_input_fn(input_fn)
    checkpoint_path = _checkpoints.checkpoint_or_latest(
        checkpoint_path, estimator.model_dir, "predict"
    )
    with tf.Graph().as_default():
        predictions, scaffold, all_hooks = _build(
            estimator, model, input_fn, predict_keys, hooks, checkpoint_path
        )
        creator = tf.compat.v1.train.ChiefSessionCreator(
            checkpoint_filename_with_path=checkpoint_path,
            scaffold=scaffold,
            config=estimator.config.session_config,
        )
        with _damaged.explain_restore_errors(checkpoint_path):
            session = tf.compat.v1.train.MonitoredSession(creator, hooks=all_hooks)
        with session:
            while not session.should_stop():
                values = session.run(predictions)
                yield from _unbatch(values, yield_single_examples)


def _build(estimator, model, input_fn, predict_keys, hooks, checkpoint_path):
    config = estimator.config
    tf.compat.v1.random.set_random_seed(config.tf_random_seed)
    tf.compat.v1.train.create_global_step()
    result = _input_fn.call_input_fn(
        input_fn, ModeKeys.PREDICT, estimator.params, config
    )
    features, _, input_hooks = _input_fn.parse_input_fn_result(
        result, input_fn, predict=True
    )
    _warn_if_endless(features)
    spec = model.call(features, None, ModeKeys.PREDICT)
    if not checkpoint_path:
        _checkpoints.maybe_warm_start(model.warm_start_settings)
    predictions = extract_keys(spec.predictions, predict_keys)
    scaffold = per_device.merge_into_scaffold(spec.scaffold)
    all_hooks = input_hooks + hooks + list(spec.prediction_hooks or [])
    return predictions, scaffold, all_hooks


def _warn_if_endless(features: Any) -> None:
    """tf.estimator's warning for input that never raises OutOfRangeError."""
    tensors = [t for t in tf.nest.flatten(features) if isinstance(t, tf.Tensor)]
    from_dataset = any(t.op.type.startswith("IteratorGetNext") for t in tensors)
    queues = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.QUEUE_RUNNERS)
    if not (from_dataset or queues or per_device.is_per_device(features)):
        tf.get_logger().warning(
            "Input graph does not use tf.data.Dataset or contain a QueueRunner. "
            "That means predict yields forever. This is probably a mistake."
        )


def extract_keys(predictions: Any, predict_keys: list[str] | None) -> Any:
    """Keeps only `predict_keys` of a predictions dict.

    Raises:
      ValueError: for keys with non-dict predictions, or no key matching.
    """
    if not predict_keys:
        return predictions
    if not isinstance(predictions, dict):
        raise ValueError(
            "predict_keys argument is not valid in case of non-dict predictions."
        )
    kept = {k: v for k, v in predictions.items() if k in predict_keys}
    if not kept:
        raise ValueError(
            f"Expected to run at least one output from {list(predictions)}, "
            f"provided {predict_keys}."
        )
    return kept


def _unbatch(values: Any, yield_single_examples: bool) -> Iterator[Any]:
    """Yields the batch itself, or one example (dict) at a time."""
    if not yield_single_examples:
        yield values
    elif not isinstance(values, dict):
        yield from values
    else:
        for i in range(_batch_length(values)):
            yield {key: value[i] for key, value in values.items()}


def _batch_length(values: dict) -> int:
    """The common leading dimension of all predictions."""
    length = None
    for key, value in values.items():
        length = length or value.shape[0]
        if value.shape[0] != length:
            raise ValueError(
                "Batch length of predictions should be same. "
                f"{key} has different batch length than others."
            )
    return length
