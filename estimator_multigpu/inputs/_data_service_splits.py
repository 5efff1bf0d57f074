"""Which pipelines the tf.data service can split among its workers (distributed_epoch).

Under `'distributed_epoch'` (dynamic sharding) each source dataset of the
pipeline is split among the workers on its own, and every worker runs the
rest of the pipeline on the splits it gets. So the two sides of a `zip`
(or `enumerate`) come from different splits and their pairs mismatch;
`take`, `skip` and `shard` count per worker (two workers of `take(100)`
give 200); and `Dataset.random` has no splits at all (each worker makes
the same seeded stream). Those pipelines are refused before submission.
"""

from __future__ import annotations

import tensorflow as tf

from estimator_multigpu import _dataset_graph
from estimator_multigpu._tf_internals import variant_tensor

# Op -> the method the user wrote; it counts elements on each worker.
PER_WORKER_COUNT_OPS = {
    "TakeDataset": "take",
    "SkipDataset": "skip",
    "ShardDataset": "shard",
}
# Transformations with several input datasets that split correctly.
_MULTI_INPUT_OK = ("ConcatenateDataset", "DirectedInterleaveDataset")


def _pipeline(dataset: tf.data.Dataset) -> tuple[dict, str] | None:
    """The pipeline's own nodes by name (function bodies excluded), its output."""
    variant = variant_tensor(dataset)
    if tf.is_symbolic_tensor(variant):
        graph_def = variant.graph.as_graph_def()
        return {n.name: n for n in graph_def.node}, variant.op.name
    graph_def = _dataset_graph.serialize(dataset)
    if graph_def is None:
        return None
    nodes = {n.name: n for n in graph_def.node}
    retval = [n for n in graph_def.node if n.op == "_Retval"]
    if retval:
        return nodes, _name(retval[0].input[0])
    used = {_name(e) for n in graph_def.node for e in n.input}
    sinks = [n.name for n in graph_def.node if "Dataset" in n.op and n.name not in used]
    return (nodes, sinks[-1]) if sinks else None


def _name(edge: str) -> str:
    return edge.lstrip("^").split(":")[0]


def _dataset_inputs(nodes: dict, node) -> list:
    inputs = [nodes.get(_name(e)) for e in node.input if not e.startswith("^")]
    return [n for n in inputs if n is not None and "Dataset" in n.op]


def _walk(nodes: dict, output: str) -> list:
    """The dataset nodes the output depends on, output first."""
    seen, order, stack = set(), [], [nodes[output]]
    while stack:
        node = stack.pop()
        if node.name in seen:
            continue
        seen.add(node.name)
        order.append(node)
        stack.extend(_dataset_inputs(nodes, node))
    return order


def _main_source(nodes: dict, output: str):
    """The source at the end of the first-input chain (None at a fan-in)."""
    node = nodes[output]
    while True:
        inputs = _dataset_inputs(nodes, node)
        if not inputs:
            return node
        if node.op in _MULTI_INPUT_OK:
            return None
        node = inputs[0]


_ZIP_FIX = (
    "Under 'distributed_epoch' each source is split among the workers on its "
    "own, so pairs would mismatch. Build one source of the pairs, e.g. "
    "Dataset.from_tensor_slices((x, y)) or Dataset.range(n).map(lambda i: "
    "(x[i], y[i])), or use processing_mode='parallel_epochs' (every worker "
    "runs the whole pipeline)."
)


def _zip_error(node, count: int) -> ValueError:
    return ValueError(
        f"`dataset` zips {count} datasets (`zip` or `enumerate`, op "
        f"{node.op}, node {node.name!r}). {_ZIP_FIX}"
    )


def _count_error(node) -> ValueError:
    method = PER_WORKER_COUNT_OPS[node.op]
    return ValueError(
        f"`dataset` uses `{method}` (op {node.op}, node {node.name!r}): under "
        f"'distributed_epoch' `{method}` runs on each worker over its own "
        f"splits, so it counts per worker (two workers of take(100) give 200). "
        f"Apply `{method}` after `with_data_service` (on what the consumer "
        "reads), or use processing_mode='parallel_epochs'."
    )


def _random_error(node) -> ValueError:
    return ValueError(
        f"`dataset`: its source, `Dataset.random` (op {node.op}, node "
        f"{node.name!r}), cannot be split among the workers under "
        "'distributed_epoch': each worker would make the same seeded stream. "
        "Use a splittable source (Dataset.range(n).map(lambda i: "
        "tf.random.stateless_uniform([], seed=[i, 0]))), or "
        "processing_mode='parallel_epochs'."
    )


def check_splittable(dataset: tf.data.Dataset) -> None:
    """Raises ValueError if 'distributed_epoch' would split `dataset` wrongly.

    Refused: a `zip`/`enumerate` of several datasets, `take`/`skip`/`shard`,
    and `Dataset.random` as the source, anywhere in the pipeline itself
    (inside an `interleave`/`flat_map` function they act per element and
    are fine).
    """
    pipeline = _pipeline(dataset)
    if pipeline is None:
        return  # check_service_ops has refused it already.
    nodes, output = pipeline
    for node in _walk(nodes, output):
        inputs = _dataset_inputs(nodes, node)
        if node.op == "ZipDataset" and len(inputs) > 1:
            raise _zip_error(node, len(inputs))
        if node.op in PER_WORKER_COUNT_OPS:
            raise _count_error(node)
    source = _main_source(nodes, output)
    if source is not None and source.op.startswith("RandomDataset"):
        raise _random_error(source)
