"""`Estimator.evaluate`: run metric updates over the input, write the results."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

import tensorflow as tf

from estimator_multigpu import _tf_internals, per_device
from estimator_multigpu.estimator import (
    _checkpoints,
    _damaged,
    _hooks,
    _input_fn,
    _model_fn_args,
    _summaries,
)
from estimator_multigpu.estimator._spec import ModeKeys
from estimator_multigpu.estimator._train import as_step_count, check_hooks

LOSS_METRIC_KEY = "loss"
_GLOBAL_STEP = tf.compat.v1.GraphKeys.GLOBAL_STEP


def eval_dir(model_dir: str, name: str | None = None) -> str:
    """`model_dir/eval` or `model_dir/eval_<name>`, as tf.estimator.

    Raises:
      TypeError: if `name` is not a string.
    """
    if name is not None and not isinstance(name, str):
        raise TypeError(
            f"`name` must be a string (evaluation results go to "
            f"model_dir/eval_<name>); received {name!r}."
        )
    return os.path.join(model_dir, "eval_" + name if name else "eval")


def evaluate(
    estimator,
    model: _model_fn_args.BoundModel,
    input_fn: Callable,
    steps: int | None = None,
    hooks: Sequence | None = None,
    checkpoint_path: str | None = None,
    name: str | None = None,
) -> dict:
    """Evaluates `estimator`'s `model`; see `Estimator.evaluate`.

    Returns:
      The metric values by name, with `loss` and `global_step`.
    """
    hooks = check_hooks(hooks) + steps_hooks(steps)
    _input_fn.verify_input_fn(input_fn)
    eval_dir(estimator.model_dir, name)  # Checks `name` before anything runs.
    checkpoint_path = _checkpoints.checkpoint_or_latest(
        checkpoint_path, estimator.model_dir, "evaluate"
    )
    with tf.Graph().as_default():
        scaffold, update_op, eval_dict, all_hooks = build_eval_graph(
            estimator, model, input_fn, hooks, checkpoint_path
        )
        with _damaged.explain_restore_errors(checkpoint_path):
            results = _tf_internals.evaluate_once(
                checkpoint_path=checkpoint_path,
                scaffold=scaffold,
                eval_ops=update_op,
                final_ops=eval_dict,
                hooks=all_hooks,
                config=estimator.config.session_config,
            )
        counter = next(h for h in all_hooks if isinstance(h, BatchCounterHook))
        if counter.saw_no_data():
            _warn_no_data(input_fn, results, counter)
        write_summaries(estimator, name, results, checkpoint_path)
    return results


class BatchCounterHook(tf.compat.v1.train.SessionRunHook):
    """Counts the session runs that completed (an ended input completes none).

    With `examples` (a batch's example count: an int, or a scalar tensor that
    is fetched with each run) it also counts the examples.
    """

    def __init__(self, examples: int | tf.Tensor | None = None):
        self.batches = 0
        self.examples = 0 if examples is not None else None
        self._per_batch = examples

    def before_run(self, run_context):
        del run_context
        if isinstance(self._per_batch, tf.Tensor):
            return tf.compat.v1.train.SessionRunArgs(self._per_batch)
        return None

    def after_run(self, run_context, run_values):
        del run_context
        self.batches += 1
        if isinstance(self._per_batch, tf.Tensor):
            self.examples += int(run_values.results)
        elif self._per_batch is not None:
            self.examples += self._per_batch

    def saw_no_data(self) -> bool:
        """No batch, or (when examples are counted) batches of no examples."""
        return not self.batches or self.examples == 0


def _warn_no_data(input_fn: Callable, results: dict, counter: BatchCounterHook):
    metrics = ", ".join(f"{k} = {v!s}" for k, v in sorted(results.items()))
    batches = f"{counter.batches} batch{'' if counter.batches == 1 else 'es'}"
    counted = batches if counter.examples is None else f"0 examples in {batches}"
    tf.get_logger().warning(
        "Evaluation ran on no data: evaluated %s of input_fn %s, so the metrics "
        "(%s) are meaningless. Check the eval input_fn: its files or dataset may "
        "be empty, a filter may drop every example, or its shard may get none.",
        counted,
        _input_fn.name_of(input_fn),
        metrics,
    )


def write_summaries(estimator, name, results: dict, checkpoint_path) -> None:
    """The metrics (and the checkpoint used) into the eval dir's event file.

    Package-internal, as `steps_hooks` and `build_eval_graph`: shared with
    `experimental.InMemoryEvaluatorHook`; not exported by `emg.estimator`.
    """
    output_dir = eval_dir(estimator.model_dir, name)
    _summaries.write_dict(output_dir, results, results[_GLOBAL_STEP])
    if checkpoint_path:
        _summaries.write_checkpoint_path(
            output_dir, checkpoint_path, results[_GLOBAL_STEP]
        )


def steps_hooks(steps: int | None) -> list:
    """A hook stopping after `steps` evaluation batches (none for None)."""
    if steps is None:
        return []
    steps = as_step_count(steps, "steps")
    return [_tf_internals.stop_after_n_evals_hook(steps)]


def build_eval_graph(estimator, model, input_fn, hooks, checkpoint_path):
    """Builds the eval graph; returns scaffold, update op, metric values, hooks."""
    config = estimator.config
    tf.compat.v1.random.set_random_seed(config.tf_random_seed)
    global_step = tf.compat.v1.train.create_global_step()
    result = _input_fn.call_input_fn(input_fn, ModeKeys.EVAL, estimator.params, config)
    features, labels, input_hooks = _input_fn.parse_input_fn_result(result, input_fn)
    spec = model.call(features, labels, ModeKeys.EVAL)
    metrics = dict(spec.eval_metric_ops)
    if LOSS_METRIC_KEY in metrics:
        raise ValueError(
            f'Metric with name "{LOSS_METRIC_KEY}" is not allowed, because '
            "Estimator already defines a default metric with the same name."
        )
    metrics[LOSS_METRIC_KEY] = tf.compat.v1.metrics.mean(spec.loss)
    update_op, eval_dict = _split_metric_ops(metrics)
    if not checkpoint_path:
        _checkpoints.maybe_warm_start(model.warm_start_settings)
    if _GLOBAL_STEP in eval_dict:
        raise ValueError(
            "Metric with name `global_step` is not allowed, because Estimator "
            "already defines a default metric with the same name."
        )
    eval_dict[_GLOBAL_STEP] = global_step
    scaffold = _with_default_local_init(spec.scaffold)
    all_hooks = input_hooks + hooks + list(spec.evaluation_hooks or [])
    all_hooks.append(BatchCounterHook(_hooks.batch_size_of(features)))
    return scaffold, update_op, eval_dict, all_hooks


def _split_metric_ops(metrics: dict):
    """`(group of update ops, {name: value})`, sorted so graphs are stable."""
    update_ops, values = [], {}
    for name, (value, update) in sorted(metrics.items()):
        values[name] = value
        update_ops.append(update)
    return tf.group(*update_ops), values


def _with_default_local_init(scaffold):
    """Adds the eval step, table and input initialisers to a custom local_init_op."""
    if scaffold and scaffold.local_init_op is not None:
        _tf_internals.get_or_create_eval_step()
        local_init = tf.group(
            scaffold.local_init_op, tf.compat.v1.train.Scaffold.default_local_init_op()
        )
        scaffold = tf.compat.v1.train.Scaffold(
            local_init_op=local_init, copy_from_scaffold=scaffold
        )
    return per_device.merge_into_scaffold(scaffold)
