"""Per-stage throughput: every transformation of a pipeline timed on its own.

Each stage is the dataset a transformation produces, i.e. the prefix of the
pipeline that ends there; iterating it alone gives the rate that prefix can
sustain. The stage that adds the most time per example is the bottleneck.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import tensorflow as tf

from estimator_multigpu import _tf_internals
from estimator_multigpu.diagnose import _stage_drain
from estimator_multigpu.diagnose._pipeline import Stage, topological
from estimator_multigpu.diagnose._reading import read_dataset
from estimator_multigpu.diagnose._rules._common import batch_levels


@dataclasses.dataclass(frozen=True)
class StageThroughput:
    """How fast one prefix of the pipeline runs alone.

    Attributes:
      position: 1 for the source, counting towards the final transformation.
      transformation: e.g. `'map (ParallelMapDatasetV2)'`.
      elements_per_sec: elements (examples, or batches after `batch`).
      examples_per_sec: examples; None when the batch size is unknown.
      added_ms_per_example: milliseconds per example this stage adds to
        its input's; the largest names the bottleneck.
    """

    position: int
    transformation: str
    elements_per_sec: float | None
    examples_per_sec: float | None
    added_ms_per_example: float | None = None

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def stage_inputs(dataset: tf.data.Dataset) -> list[tf.data.Dataset]:
    """The datasets a transformation reads (a V1 adapter is looked through)."""
    sources = _tf_internals.input_datasets(dataset)
    variant = _tf_internals.variant_tensor(dataset)
    if len(sources) == 1 and _tf_internals.variant_tensor(sources[0]) is variant:
        return stage_inputs(sources[0])
    return sources


def python_stages(dataset: tf.data.Dataset) -> list[tf.data.Dataset]:
    """The datasets of every transformation, sources first."""
    return topological([dataset], stage_inputs)


def _matches(datasets: list, stages: list[Stage]) -> bool:
    if len(datasets) != len(stages):
        return False
    for d, stage in zip(datasets, stages):
        signature = stage.output_signature()
        specs = tf.nest.flatten(d.element_spec)
        if signature is None or not all(isinstance(s, tf.TensorSpec) for s in specs):
            continue
        if [dtype for dtype, _ in signature] != [s.dtype for s in specs]:
            return False
    return True


def _labels(dataset: tf.data.Dataset, datasets: list) -> tuple[list, list]:
    """Each Python stage's label and batch level (None when the graph differs)."""
    pipeline = read_dataset(dataset)
    if not _matches(datasets, pipeline.stages):
        names = [_tf_internals.kernel_op(d) for d in datasets]
        return names, [None] * len(datasets)
    levels = batch_levels(pipeline)
    return [s.label for s in pipeline.stages], [levels[s] for s in pipeline.stages]


def _rates(dataset: tf.data.Dataset, level: int | None, seconds: float):
    elements, examples = _stage_drain.rates(dataset, bool(level), seconds)
    return elements, (examples if level is not None else None)


def _added(results: list, datasets: list) -> list[float | None]:
    index = {id(d): i for i, d in enumerate(datasets)}
    added = []
    for d, (_, per_sec) in zip(datasets, results):
        if not per_sec:
            added.append(None)
            continue
        before = [results[index[id(s)]][1] for s in stage_inputs(d)]
        slowest_input = max((1 / r for r in before if r), default=0.0)
        added.append(1000 * (1 / per_sec - slowest_input))
    return added


def stage_throughputs(
    dataset: tf.data.Dataset,
    seconds: float = 1.0,
    progress: Callable[[int, int, str], None] | None = None,
) -> list[StageThroughput]:
    """Times every prefix of an eager pipeline on its own.

    Args:
      dataset: an eager dataset.
      seconds: iteration time per stage, after its first element.
      progress: called as `progress(done, total, transformation)`.

    Returns:
      One `StageThroughput` per transformation, sources first.
    """
    datasets = python_stages(dataset)
    labels, levels = _labels(dataset, datasets)
    results = []
    for i, (d, label, level) in enumerate(zip(datasets, labels, levels)):
        results.append(_rates(d, level, seconds))
        if progress is not None:
            progress(i + 1, len(datasets), label)
    added = _added(results, datasets)
    return [
        StageThroughput(i + 1, label, rates[0], rates[1], extra)
        for i, (label, rates, extra) in enumerate(zip(labels, results, added))
    ]


def slowest(stages: list[StageThroughput]) -> StageThroughput | None:
    """The stage adding the most time per example."""
    timed = [s for s in stages if s.added_ms_per_example is not None]
    return max(timed, key=lambda s: s.added_ms_per_example, default=None)
