"""Rules on where `cache` sits: after randomness it freezes it; before work it repeats it."""

from __future__ import annotations

from estimator_multigpu.diagnose._findings import INFO, WARNING
from estimator_multigpu.diagnose._pipeline import Pipeline, Stage
from estimator_multigpu.diagnose._rules._common import (
    DECODE_OPS,
    PARSE_OPS,
    PY_OPS,
    Context,
    finding,
    random_ops,
)

_EXPENSIVE = PARSE_OPS | DECODE_OPS | PY_OPS


def _frozen_augmentation(pipeline: Pipeline, cache: Stage):
    for stage in pipeline.upstream(cache):
        drawn = random_ops(stage)
        if drawn:
            yield finding(
                pipeline,
                cache,
                "cache-after-random",
                WARNING,
                f"cache keeps the first epoch's elements, so the random draws "
                f"of {stage.label} ({', '.join(drawn)}) happen once and are "
                "replayed every epoch: the augmentation is frozen.",
                "dataset = dataset.cache()\n"
                "dataset = dataset.map(augment, num_parallel_calls=tf.data.AUTOTUNE)",
            )
            return


def _frozen_order(pipeline: Pipeline, cache: Stage):
    shuffled = any(s.family == "shuffle" for s in pipeline.upstream(cache))
    reshuffled = any(s.family == "shuffle" for s in pipeline.downstream(cache))
    if shuffled and not reshuffled:
        yield finding(
            pipeline,
            cache,
            "cache-after-random",
            WARNING,
            "cache comes after shuffle and nothing shuffles after it, so the "
            "first epoch's order is replayed every epoch.",
            "dataset = dataset.cache().shuffle(buffer_size)",
        )


def cache_after_random(pipeline: Pipeline, ctx: Context):
    for cache in pipeline.stages:
        if cache.family == "cache":
            yield from _frozen_augmentation(pipeline, cache)
            yield from _frozen_order(pipeline, cache)


def _expensive_maps(pipeline: Pipeline, cache: Stage):
    for stage in pipeline.downstream(cache):
        used = stage.function_ops()
        if stage.family == "map" and used & _EXPENSIVE and not random_ops(stage):
            yield stage, sorted(used & _EXPENSIVE)


def cache_before_expensive_map(pipeline: Pipeline, ctx: Context):
    for cache in pipeline.stages:
        if cache.family != "cache":
            continue
        for stage, used in _expensive_maps(pipeline, cache):
            yield finding(
                pipeline,
                stage,
                "cache-before-expensive-map",
                INFO,
                f"This map ({', '.join(used)}) comes after the cache, so it runs "
                "again every epoch on the same input. If its output fits in "
                "memory and needs no fresh randomness, cache after it instead.",
                "dataset = dataset.map(parse, num_parallel_calls=tf.data.AUTOTUNE)"
                ".cache()",
            )


RULES = (cache_after_random, cache_before_expensive_map)
