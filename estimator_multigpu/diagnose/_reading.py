"""Reads a dataset's own graph into a `Pipeline`, in eager or graph mode.

Eager datasets are serialized by TensorFlow (`tf.raw_ops.DatasetToGraphV2`);
graph-mode datasets are read from their `tf.Graph`. A stage TensorFlow cannot
serialize (the device copy of `prefetch_to_device` in eager mode) becomes an
opaque stage, and the stages it reads from are serialized on their own.
"""

from __future__ import annotations

import tensorflow as tf

from estimator_multigpu import _tf_internals
from estimator_multigpu._dataset_graph import serialize as _serialize
from estimator_multigpu.diagnose import _ops
from estimator_multigpu.diagnose._library import Library
from estimator_multigpu.diagnose._pipeline import (
    DEVICE_COPY,
    MULTI_DEVICE,
    Pipeline,
    Stage,
)

ITERATOR_OPS = frozenset(
    {
        "Iterator",
        "IteratorV2",
        "OneShotIterator",
        "MultiDeviceIterator",
        "AnonymousIterator",
        "AnonymousIteratorV2",
        "AnonymousIteratorV3",
    }
)
_ITERATOR_INITS = frozenset({"MakeIterator", "MultiDeviceIteratorInit"})
_CAPTURE_DEPTH = 8


def _input_name(text: str) -> str:
    return text.lstrip("^").split(":")[0]


def iterator_datasets(nodes: dict) -> dict[str, str]:
    """Iterator node name -> the dataset node it is initialised from."""
    found = {}
    for node in nodes.values():
        data = [i for i in node.input if not i.startswith("^")]
        if node.op in _ITERATOR_INITS and len(data) >= 2:
            found[_input_name(data[1])] = _input_name(data[0])
    return found


class GraphReader:
    """Builds the stages of one graph (a `GraphDef` or a function body)."""

    def __init__(self, nodes: dict, library: Library):
        self._nodes = nodes
        self._library = library
        self._iterators = iterator_datasets(nodes)
        self._stages: dict[str, Stage] = {}

    def stage(self, name: str) -> Stage:
        """The stage of node `name`, its upstream stages built first.

        Iterative, not recursive: a pipeline thousands of stages deep (a
        `.map()` per feature, in a loop) is read like any other.
        """
        pending = [name]
        while pending:
            current = pending[-1]
            if current in self._stages:
                pending.pop()
                continue
            missing = [
                n for n in self._dataset_inputs(current) if n not in self._stages
            ]
            if missing:
                pending.extend(reversed(missing))
                continue
            pending.pop()
            self._stages[current] = self._build(self._nodes[current])
        return self._stages[name]

    def _dataset_inputs(self, name: str) -> list[str]:
        """The dataset nodes that node `name` reads (its upstream stages)."""
        names = []
        for text in self._nodes[name].input:
            producer = None if text.startswith("^") else self._producer(text)
            if producer is not None and _ops.is_dataset_op(producer.op):
                names.append(producer.name)
        return names

    def _producer(self, text: str):
        node = self._nodes.get(_input_name(text))
        while node is not None and node.op == "Identity" and node.input:
            node = self._nodes.get(_input_name(node.input[0]))
        return node

    def _build(self, node) -> Stage:
        data = [text for text in node.input if not text.startswith("^")]
        inputs, arg_nodes = [], []
        for text in data:
            producer = self._producer(text)
            if producer is not None and _ops.is_dataset_op(producer.op):
                inputs.append(self.stage(producer.name))
                arg_nodes.append(None)
            else:
                arg_nodes.append(producer)
        kind = ""
        if node.op == "GeneratorDataset" and not inputs:
            inputs, kind = self._captured(data)
        return Stage(node.op, node.name, inputs, self._library, node, arg_nodes, kind)

    def _captured(self, data: list[str]) -> tuple[list[Stage], str]:
        """Datasets a generator reads through captured handles (device copies)."""
        found, kind, seen = [], "", set()
        pending = [(_input_name(t), 0) for t in data]
        while pending:
            name, depth = pending.pop(0)
            node = self._nodes.get(name)
            if node is None or name in seen or depth > _CAPTURE_DEPTH:
                continue
            seen.add(name)
            if _ops.is_dataset_op(node.op):
                found.append(self.stage(name))
                kind = kind or DEVICE_COPY
            elif name in self._iterators:
                found.append(self.stage(self._iterators[name]))
                kind = MULTI_DEVICE if node.op == "MultiDeviceIterator" else DEVICE_COPY
            else:
                pending.extend((_input_name(t), depth + 1) for t in node.input)
        return list(dict.fromkeys(found)), kind  # Two handles may reach one dataset.


def _eager_stage(dataset: tf.data.Dataset, library: Library) -> Stage:
    graph_def = _serialize(dataset)
    if graph_def is not None:
        library.add(graph_def.library)
        nodes = {node.name: node for node in graph_def.node}
        root = next(n for n in graph_def.node if n.op == "_Retval")
        return GraphReader(nodes, library).stage(_input_name(root.input[0]))
    sources = _tf_internals.input_datasets(dataset)
    variant = _tf_internals.variant_tensor(dataset)
    if len(sources) == 1 and _tf_internals.variant_tensor(sources[0]) is variant:
        return _eager_stage(sources[0], library)  # A V1 adapter: same node.
    inputs = [_eager_stage(source, library) for source in sources]
    op = _tf_internals.kernel_op(dataset)
    kind = DEVICE_COPY if op == "GeneratorDataset" and inputs else ""
    return Stage(op, "(not serializable)", inputs, library, kind=kind)


def read_graph(graph: tf.Graph, root_names: list[str]) -> Pipeline:
    """The pipeline of the named dataset nodes of a `tf.Graph`."""
    graph_def = graph.as_graph_def()
    library = Library()
    library.add(graph_def.library)
    reader = GraphReader({node.name: node for node in graph_def.node}, library)
    return Pipeline([reader.stage(name) for name in root_names])


def read_dataset(dataset: tf.data.Dataset) -> Pipeline:
    """The pipeline of a dataset, eager or graph mode."""
    variant = _tf_internals.variant_tensor(dataset)
    if tf.is_symbolic_tensor(variant):
        return read_graph(variant.graph, [variant.op.name])
    return Pipeline([_eager_stage(dataset, Library())])
