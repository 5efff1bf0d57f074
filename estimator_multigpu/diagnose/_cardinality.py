"""Element counts read off the graph: finite, `INFINITE`, or None when unknown."""

from __future__ import annotations

import math
import weakref

from estimator_multigpu.diagnose import _ops
from estimator_multigpu.diagnose._pipeline import DEVICE_COPY, Stage, topological

INFINITE = math.inf
_SAME = frozenset({"map", "prefetch", "cache", "shuffle"})
_COUNTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # Stage -> count.


def _source(stage: Stage) -> float | None:
    if stage.family == "range":
        start, stop, step = (stage.int_arg(k) for k in ("start", "stop", "step"))
        if None in (start, stop, step) or step == 0:
            return None
        return len(range(start, stop, step))
    if stage.family == "from_tensors":
        return 1
    if stage.family == "from_tensor_slices" and stage.arg_nodes:
        node = stage.arg_nodes[0]
        if node is not None and node.op == "Const":
            dims = node.attr["value"].tensor.tensor_shape.dim
            return dims[0].size if dims else None
    return None


def _repeat(count: int | None, n: float | None) -> float | None:
    if count is None or n is None:
        return None
    if n == 0:
        return 0
    return INFINITE if count < 0 else n * count


def _batch(stage: Stage, n: float) -> float | None:
    size = stage.int_arg("batch_size")
    drop = stage.arg("drop_remainder")
    if size is None or size < 1:
        return None
    if n == INFINITE:
        return INFINITE
    return n // size if drop is not None and bool(drop) else math.ceil(n / size)


def _shard(stage: Stage, n: float) -> float | None:
    shards, index = stage.int_arg("num_shards"), stage.int_arg("index")
    if shards is None or index is None or shards < 1:
        return None
    if n == INFINITE:
        return INFINITE
    return n // shards + (1 if index < n % shards else 0)


def _take_skip(stage: Stage, n: float) -> float | None:
    count = stage.int_arg("count")
    if count is None:
        return None
    if stage.family == "take":
        return n if count < 0 else min(count, n)
    return 0 if count < 0 else max(n - count, 0)


def _unary(stage: Stage, n: float) -> float | None:
    family = stage.family
    if family in _SAME or stage.op in _ops.PASS_THROUGH or stage.kind == DEVICE_COPY:
        if stage.op.startswith("ShuffleAndRepeat"):
            return _repeat(stage.int_arg("count"), n)
        return n
    if family == "repeat":
        return _repeat(stage.int_arg("count"), n)
    if family in ("batch", "map_and_batch"):
        return _batch(stage, n)
    if family == "shard":
        return _shard(stage, n)
    if family in ("take", "skip"):
        return _take_skip(stage, n)
    return None


def cardinality(stage: Stage) -> float | None:
    """Elements `stage` yields: an int, `INFINITE`, or None when unknown.

    Counted from the sources down, without recursion, so that a pipeline
    thousands of stages deep is counted too; each stage's count is kept, so
    that asking for every stage in turn stays linear in the stages.
    """
    for current in topological([stage], _uncounted_inputs):
        if current not in _COUNTS:
            _COUNTS[current] = _count(current, [_COUNTS[s] for s in current.inputs])
    return _COUNTS[stage]


def _uncounted_inputs(stage: Stage) -> list[Stage]:
    """The inputs to visit before `stage`: none once it is counted."""
    return [] if stage in _COUNTS else stage.inputs


def _count(stage: Stage, counts: list[float | None]) -> float | None:
    """Elements `stage` yields, given those of its inputs (`counts`)."""
    if not stage.inputs:
        return _source(stage)
    if stage.family == "zip":
        return None if None in counts else min(counts)
    if stage.family == "concatenate":
        return None if None in counts else sum(counts)
    if len(counts) != 1 or counts[0] is None:
        return None
    return _unary(stage, counts[0])
