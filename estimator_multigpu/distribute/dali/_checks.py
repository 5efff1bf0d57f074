"""Checks that a DALI pipeline fits the replica it feeds, and its output signature."""

from __future__ import annotations

from collections.abc import Sequence

import tensorflow as tf
from nvidia.dali import Pipeline
from nvidia.dali import types as dali_types

from estimator_multigpu.distribute.dali._context import DaliReplicaContext


def check_pipeline(pipeline, ctx: DaliReplicaContext) -> None:
    """Raises if `pipeline` was not built for the replica described by `ctx`."""
    if not isinstance(pipeline, Pipeline):
        raise TypeError(
            "`pipeline_fn` must return an nvidia.dali.Pipeline; received "
            f"{type(pipeline).__name__} for replica {ctx.shard_id}."
        )
    if pipeline.device_id != ctx.device_id:
        raise ValueError(
            f"`pipeline_fn` built a DALI pipeline with device_id="
            f"{pipeline.device_id} for replica {ctx.shard_id} on {ctx.device}, "
            f"whose DALI device_id is {ctx.device_id}. Pass "
            "device_id=ctx.device_id: DALI would otherwise produce the batches "
            "on another device than the one TensorFlow reads them on."
        )
    if pipeline.max_batch_size != ctx.per_device_batch_size:
        raise ValueError(
            f"`pipeline_fn` built a DALI pipeline with batch size "
            f"{pipeline.max_batch_size}, but each replica takes "
            f"{ctx.per_device_batch_size} (global batch {ctx.global_batch_size} / "
            f"{ctx.num_shards} replicas). Pass batch_size=ctx.per_device_batch_size."
        )


def _declared_outputs(pipeline) -> tuple[list, list]:
    dtypes, ndims = pipeline.output_dtype(), pipeline.output_ndim()
    if any(d is None for d in dtypes) or any(n is None for n in ndims):
        raise ValueError(
            "The DALI pipeline does not declare the type and rank of every output "
            f"(output_dtype={dtypes}, output_ndim={ndims}); declare them, e.g. "
            "@pipeline_def(output_dtype=[types.UINT8, types.INT32], "
            "output_ndim=[3, 1])."
        )
    return dtypes, ndims


def _check_sample_shapes(sample_shapes, ndims) -> None:
    ranks = [len(shape) for shape in sample_shapes]
    if ranks != list(ndims):
        raise ValueError(
            f"`sample_shapes` {list(sample_shapes)} has ranks {ranks}, but the "
            f"pipeline declares output_ndim={list(ndims)}; give one shape per "
            "output, without the batch dimension."
        )


def output_signature(
    pipeline,
    per_device_batch_size: int,
    sample_shapes: Sequence[Sequence[int | None]] | None,
) -> tuple[tuple[tf.DType, ...], tuple[tf.TensorShape, ...]]:
    """The TF dtypes and `[per_device_batch_size, ...]` shapes of the outputs.

    Dtypes and ranks come from the pipeline's declared `output_dtype` and
    `output_ndim`; `sample_shapes` (one per output, no batch dimension) makes
    dimensions static, else they are None.
    """
    dtypes, ndims = _declared_outputs(pipeline)
    if sample_shapes is None:
        sample_shapes = [[None] * ndim for ndim in ndims]
    _check_sample_shapes(sample_shapes, ndims)
    tf_dtypes = tuple(tf.as_dtype(dali_types.to_numpy_type(d)) for d in dtypes)
    shapes = tuple(
        tf.TensorShape([per_device_batch_size, *shape]) for shape in sample_shapes
    )
    return tf_dtypes, shapes
