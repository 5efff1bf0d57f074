"""Builds the towers: one call of the user's model_fn per device."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import tensorflow as tf

from estimator_multigpu import _model_fn, _tf_internals
from estimator_multigpu.towers import (
    _all_towers,
    _context,
    _creators,
    _diagnostics,
    _empty,
    _placement,
    _plain,
)

_KEYS = tf.compat.v1.GraphKeys
# Collections each tower sees only its own entries of; the graph keeps tower
# 0's, so get_total_loss() stays per tower. Towers after the first see an
# empty UPDATE_OPS: their update ops never run, tower 0's run once per step.
_ISOLATED = (_KEYS.UPDATE_OPS, _KEYS.LOSSES, _KEYS.SUMMARIES)


@dataclasses.dataclass
class Tower:
    """One built tower.

    Attributes:
      spec: the `EstimatorSpec` the model_fn returned.
      context: the tower's `TowerContext`.
      owned: `owned[key]` = what the tower added to collection `key`.
      metric_variables: the metric variables the tower created, in order.
      ops: the operations created while the tower was built.
      local_variables: the local variables the tower created.
    """

    spec: Any
    context: _context.TowerContext
    owned: dict
    metric_variables: list
    ops: list
    local_variables: list


@dataclasses.dataclass(frozen=True, kw_only=True)
class RunArgs:
    """What every tower's model_fn call gets besides its shard.

    Attributes:
      mode: a `ModeKeys` value.
      params: the model_fn's `params` (a dict is copied per tower, so a tower
        that pops or sets keys does not change what the next one receives).
      config: the model_fn's `config`.
    """

    mode: str
    params: Any = None
    config: Any = None

    def fresh_params(self) -> Any:
        """`params`, as a fresh shallow copy if it is a dict."""
        return dict(self.params) if isinstance(self.params, dict) else self.params


class _Sink(list):
    """A collection that stays empty: what is added goes to `dropped`."""

    def __init__(self):
        super().__init__()
        self.dropped = []

    def append(self, value):
        self.dropped.append(value)


@contextlib.contextmanager
def _sink_update_ops(graph: tf.Graph, owned: dict):
    """Towers after the first see no UPDATE_OPS, so nothing waits for theirs."""
    store = _tf_internals.graph_collections(graph)
    if store is None:  # Unknown TF internals: keep them per tower.
        yield
        return
    saved, sink = store.get(_KEYS.UPDATE_OPS), _Sink()
    store[_KEYS.UPDATE_OPS] = sink
    try:
        yield
    finally:
        store[_KEYS.UPDATE_OPS] = saved if saved is not None else []
        owned[_KEYS.UPDATE_OPS] = sink.dropped


@contextlib.contextmanager
def _own_collections(graph: tf.Graph, index: int, owned: dict):
    refs = {key: graph.get_collection_ref(key) for key in _ISOLATED}
    saved = {key: list(ref) for key, ref in refs.items()}
    if index > 0:
        for ref in refs.values():
            del ref[:]
    try:
        with _sink_update_ops(graph, owned) if index > 0 else contextlib.nullcontext():
            yield
    finally:
        for key, ref in refs.items():
            owned.setdefault(key, list(ref[len(saved[key]) :] if index == 0 else ref))
            if index > 0:
                ref[:] = saved[key]


def _later_getter(index: int) -> Callable:
    reuse = _diagnostics.later_tower_getter(index)

    def custom_getter(getter, *args, **kwargs):
        return _creators.mark_get_variable(reuse, getter, *args, **kwargs)

    return custom_getter


def _scopes(
    index: int, device_fn: Callable, order: _creators.CreationOrder
) -> contextlib.ExitStack:
    """Variable scope, creator scope, name scope and device of tower `index`.

    Tower 0 keeps the names of a single-device run; later towers reuse its
    variables, those of `get_variable` by name and the others (Keras layers,
    `tf.Variable`) by creation order (see `creators`).
    """
    stack = contextlib.ExitStack()
    scope = tf.compat.v1.get_variable_scope()
    if index > 0:
        stack.enter_context(
            tf.compat.v1.variable_scope(
                scope, reuse=True, custom_getter=_later_getter(index)
            )
        )
        stack.enter_context(order.reuse(index))
        stack.enter_context(tf.name_scope(f"tower_{index}"))
    else:
        stack.enter_context(
            tf.compat.v1.variable_scope(
                scope, custom_getter=_creators.mark_get_variable
            )
        )
        stack.enter_context(order.record())
    stack.enter_context(tf.compat.v1.device(device_fn))
    return stack


def _call(model_fn: Callable, shard: tuple, run_args: RunArgs, index: int) -> Any:
    features, labels = shard
    with _model_fn.explain_non_scalar_loss():
        spec = _model_fn.call_model_fn(
            model_fn,
            features,
            labels,
            run_args.mode,
            run_args.fresh_params(),
            run_args.config,
            where=f"in tower {index}",
        )
    _model_fn.check_scalar_loss(spec.loss, f"the loss of tower {index}")
    return spec


def _make_local(graph: tf.Graph, variables: Sequence[tf.Variable]) -> None:
    """Moves a later tower's own variables from the global to the local ones.

    They are not checkpointed, so checkpoints still move between 1 and N
    devices; they start from their initial values in every session.
    """
    if not variables:
        return
    refs = {v.ref() for v in variables}
    global_ref = graph.get_collection_ref(_KEYS.GLOBAL_VARIABLES)
    global_ref[:] = [v for v in global_ref if v.ref() not in refs]
    graph.get_collection_ref(_KEYS.LOCAL_VARIABLES).extend(variables)
    tf.get_logger().info(
        "Variables of one tower only, kept out of checkpoints: %s",
        [v.op.name for v in variables],
    )


def _build_one(model_fn, shard, run_args, device, placer, context, order) -> Tower:
    graph = tf.compat.v1.get_default_graph()
    first_op = len(graph.get_operations())
    first_global = len(graph.get_collection(_KEYS.GLOBAL_VARIABLES))
    first_trainable = len(graph.get_collection(_KEYS.TRAINABLE_VARIABLES))
    first_metric = len(graph.get_collection(_KEYS.METRIC_VARIABLES))
    first_local = len(graph.get_collection(_KEYS.LOCAL_VARIABLES))
    owned = {}
    device_fn = _placement.tower_device_fn(device, placer)
    with _context.active(context), _own_collections(graph, context.index, owned):
        with _scopes(context.index, device_fn, order):
            spec = _call(model_fn, shard, run_args, context.index)
    if context.index > 0:
        per_tower = _diagnostics.per_tower_variables(
            graph.get_collection(_KEYS.GLOBAL_VARIABLES)[first_global:],
            graph.get_collection(_KEYS.TRAINABLE_VARIABLES)[first_trainable:],
            context.index,
        )
        _make_local(graph, per_tower)
    metric_variables = graph.get_collection(_KEYS.METRIC_VARIABLES)[first_metric:]
    ops = graph.get_operations()[first_op:]
    local_variables = graph.get_collection(_KEYS.LOCAL_VARIABLES)[first_local:]
    return Tower(spec, context, owned, metric_variables, ops, local_variables)


def build_towers(
    model_fn: Callable,
    shards: Sequence[tuple[Any, Any]],
    devices: Sequence[str],
    run_args: RunArgs,
    weights: Sequence[Any],
    counts: Sequence[Any],
    loss_reduction: str,
    placer: Callable,
) -> list[Tower]:
    """Calls `model_fn` once per device, sharing variables.

    Args:
      model_fn: the user's model_fn.
      shards: `shards[t]` = `(features, labels)` of tower t; a shard that may
        be empty runs on one stand-in example when it is (see `empty`).
      devices: `devices[t]` = tower t's device.
      run_args: the mode, params and config every tower's call gets (see
        `RunArgs`).
      weights: `weights[t]` = tower t's loss weight.
      counts: `counts[t]` = examples in tower t's shard.
      loss_reduction: `'mean'` or `'sum'`.
      placer: `fn(op) -> device` for variables.

    Returns:
      The towers, in device order.
    """
    _plain.install()
    calls, means = [[] for _ in devices], [[] for _ in devices]
    towers, order = [], _creators.CreationOrder()
    for index, device in enumerate(devices):
        context = _context.TowerContext(
            index,
            len(devices),
            weights[index],
            counts[index],
            loss_reduction,
            calls,
            means=means,
        )
        with tf.device(device):
            shard = _empty.pad_if_empty(tuple(shards[index]), counts[index])
        towers.append(
            _build_one(model_fn, shard, run_args, device, placer, context, order)
        )
    _all_towers.finish(means, counts)
    return towers
