"""A dataset's own graph (eager or graph mode) and the op types it runs.

Low level on purpose: `inputs` (the tf.data service check) and `diagnose`
(the pipeline doctor) both read dataset graphs through it.
"""

from __future__ import annotations

from collections.abc import Iterable

import tensorflow as tf

from estimator_multigpu._tf_internals import variant_tensor

_IGNORE = tf.data.experimental.ExternalStatePolicy.IGNORE.value


def function_names(node: tf.compat.v1.NodeDef) -> list[str]:
    """Names of the functions a node calls (`f`, `predicate`, branches, ...)."""
    names = []
    for key in sorted(node.attr):
        value = node.attr[key]
        if value.WhichOneof("value") == "func":
            names.append(value.func.name)
        elif value.WhichOneof("value") == "list":
            names.extend(f.name for f in value.list.func)
    return names


def serialize(dataset: tf.data.Dataset) -> tf.compat.v1.GraphDef | None:
    """An eager dataset's serialized graph, or None when TensorFlow cannot make it."""
    try:
        data = tf.raw_ops.DatasetToGraphV2(
            input_dataset=variant_tensor(dataset),
            external_state_policy=_IGNORE,
            strip_device_assignment=True,
        )
    except (tf.errors.UnimplementedError, tf.errors.FailedPreconditionError):
        return None
    return tf.compat.v1.GraphDef.FromString(data.numpy())


def graph_nodes(dataset: tf.data.Dataset) -> list[tf.compat.v1.NodeDef] | None:
    """Every node the dataset runs, function bodies included; None if unreadable.

    Eager datasets are serialized by TensorFlow; a graph-mode dataset is read
    from its `tf.Graph` (only the nodes it depends on).
    """
    variant = variant_tensor(dataset)
    if tf.is_symbolic_tensor(variant):
        graph_def = variant.graph.as_graph_def()
        roots = [variant.op.name]
    else:
        graph_def = serialize(dataset)
        if graph_def is None:
            return None
        roots = [n.name for n in graph_def.node]
    nodes = _ancestors({n.name: n for n in graph_def.node}, roots)
    functions = {f.signature.name: f for f in graph_def.library.function}
    return nodes + _function_nodes(functions, nodes)


def _ancestors(nodes: dict, roots: Iterable[str]) -> list:
    found, pending = {}, list(roots)
    while pending:
        name = pending.pop().lstrip("^").split(":")[0]
        if name in found or name not in nodes:
            continue
        found[name] = nodes[name]
        pending.extend(nodes[name].input)
    return list(found.values())


def _function_nodes(functions: dict, nodes: list) -> list:
    found, seen = [], set()
    pending = [name for node in nodes for name in function_names(node)]
    while pending:
        name = pending.pop()
        if name in seen or name not in functions:
            continue
        seen.add(name)
        for node in functions[name].node_def:
            found.append(node)
            pending.extend(function_names(node))
    return found
