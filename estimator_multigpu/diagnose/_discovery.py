"""Finds the datasets behind graph-mode tensors (an input_fn's features and labels)."""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from estimator_multigpu.diagnose import _ops
from estimator_multigpu.diagnose._library import Library
from estimator_multigpu.diagnose._pipeline import Pipeline, Stage
from estimator_multigpu.diagnose._reading import (
    ITERATOR_OPS,
    GraphReader,
    iterator_datasets,
)


def _graph_tensors(result: Any) -> list[tf.Tensor]:
    return [t for t in tf.nest.flatten(result) if tf.is_symbolic_tensor(t)]


def _sources(tensors: list[tf.Tensor]) -> list[tf.Operation]:
    """Iterator and dataset ops the tensors are computed from (data inputs only)."""
    found, seen = [], set()
    pending = [t.op for t in tensors]
    while pending:
        op = pending.pop()
        if op.name in seen:
            continue
        seen.add(op.name)
        if op.type in ITERATOR_OPS or _ops.is_dataset_op(op.type):
            found.append(op)
            continue
        pending.extend(t.op for t in op.inputs)
    return found


def _function_root(graph_def, library: Library, function_name: str) -> Stage | None:
    """The dataset a `OneShotIterator`'s `dataset_factory` function returns."""
    function = library.get(function_name)
    if function is None or not function.ret:
        return None
    nodes = {node.name: node for node in function.node_def}
    root = next(iter(function.ret.values())).split(":")[0]
    return GraphReader(nodes, library).stage(root) if root in nodes else None


def pipeline_feeding(result: Any) -> Pipeline | None:
    """The pipeline whose iterators produce the graph tensors in `result`.

    Follows data inputs back from the tensors to iterator ops, then to the
    datasets those iterators are initialised from (`MakeIterator`,
    `MultiDeviceIteratorInit`, or a `OneShotIterator`'s factory function).

    Returns:
      A `Pipeline` with one root per iterator, or None when `result` holds no
      graph tensor or no dataset feeds them.
    """
    tensors = _graph_tensors(result)
    if not tensors:
        return None
    graph_def = tensors[0].graph.as_graph_def()
    library = Library()
    library.add(graph_def.library)
    nodes = {node.name: node for node in graph_def.node}
    reader, inits = GraphReader(nodes, library), iterator_datasets(nodes)
    roots = []
    for op in _sources(tensors):
        if _ops.is_dataset_op(op.type):
            roots.append(reader.stage(op.name))
        elif op.name in inits:
            roots.append(reader.stage(inits[op.name]))
        elif op.type == "OneShotIterator":
            factory = op.node_def.attr["dataset_factory"].func.name
            roots.append(_function_root(graph_def, library, factory))
    roots = [root for root in roots if root is not None]
    return Pipeline(roots) if roots else None
