"""What the rules share: the check context, finding construction, op classes."""

from __future__ import annotations

import dataclasses

import tensorflow as tf

from estimator_multigpu.diagnose._findings import Finding
from estimator_multigpu.diagnose._pipeline import Pipeline, Stage

PARSE_OPS = frozenset(
    {
        "ParseExample",
        "ParseExampleV2",
        "ParseSingleExample",
        "ParseSequenceExample",
        "ParseSequenceExampleV2",
        "ParseSingleSequenceExample",
        "DecodeCSV",
    }
)
DECODE_OPS = frozenset(
    {
        "DecodeRaw",
        "DecodeJpeg",
        "DecodeAndCropJpeg",
        "DecodePng",
        "DecodeImage",
        "DecodeBmp",
        "DecodeGif",
        "DecodeWav",
        "DecodeCompressed",
        "DecodeJSONExample",
        "DecodeProtoV2",
    }
)
PY_OPS = frozenset({"PyFunc", "PyFuncStateless", "EagerPyFunc"})
READER_OPS = frozenset(
    {
        "ReadFile",
        "TFRecordDataset",
        "TFRecordDatasetV2",
        "FixedLengthRecordDataset",
        "FixedLengthRecordDatasetV2",
        "TextLineDataset",
    }
)
# Ops that only move or reshape values: a map of these needs no parallelism.
CHEAP_OPS = frozenset(
    {
        "Identity",
        "IdentityN",
        "NoOp",
        "Const",
        "EnsureShape",
        "Reshape",
        "Squeeze",
        "ExpandDims",
        "StridedSlice",
        "Pack",
        "Unpack",
        "Shape",
        "Cast",
    }
)
_NOT_RANDOM = frozenset({"RandomIndexShuffle"})  # Stateless: seeded by its inputs.


@dataclasses.dataclass(frozen=True)
class Context:
    """What the caller told the doctor about how the pipeline is used.

    Attributes:
      training: a training pipeline (order and determinism trade-offs apply).
      num_devices: devices each batch is split over (1: one device per
        batch, e.g. one pipeline per device).
      num_input_pipelines: pipelines that together read the data (workers
        or per-device pipelines); each should read only its share.
      large_constant_bytes: constants embedded in one stage from this size
        on are reported.
    """

    training: bool = True
    num_devices: int = 1
    num_input_pipelines: int = 1
    large_constant_bytes: int = 64 << 20


def finding(
    pipeline: Pipeline,
    stage: Stage,
    rule: str,
    severity: str,
    message: str,
    fix: str,
) -> Finding:
    return Finding(
        rule,
        severity,
        stage.label,
        message,
        fix,
        stage=pipeline.position(stage),
        node=stage.name,
    )


def is_random_op(op: str) -> bool:
    """Stateful random ops: a new draw each time they run."""
    if op in _NOT_RANDOM:
        return False
    return op.startswith(("Random", "Stateful")) or op in (
        "TruncatedNormal",
        "Multinomial",
        "ParameterizedTruncatedNormal",
    )


def random_ops(stage: Stage) -> list[str]:
    return sorted(op for op in stage.function_ops() if is_random_op(op))


def batch_levels(pipeline: Pipeline) -> dict[Stage, int]:
    """Times each stage's elements have been batched (unbatch undoes one)."""
    levels: dict[Stage, int] = {}
    for stage in pipeline.stages:
        level = max((levels[s] for s in stage.inputs), default=0)
        if stage.family in ("batch", "map_and_batch"):
            level += 1
        elif stage.family == "unbatch":
            level = max(level - 1, 0)
        levels[stage] = level
    return levels


def input_level(levels: dict[Stage, int], stage: Stage) -> int:
    """The batch level of the elements `stage` receives."""
    return max((levels[s] for s in stage.inputs), default=0)


def reads_files(stage: Stage) -> bool:
    """A reader source, or an interleave/flat_map whose function reads files."""
    if stage.family == "reader":
        return True
    if stage.family not in ("interleave", "flat_map"):
        return False
    return bool(stage.function_ops() & READER_OPS)


def has_scalar_string_input(stage: Stage, levels: dict[Stage, int]) -> bool:
    """Whether `stage` receives single serialized records (scalar strings)."""
    if not stage.inputs:
        return False
    signature = stage.inputs[0].output_signature()
    if signature is None:
        return input_level(levels, stage) == 0
    return any(dtype == tf.string and shape.rank == 0 for dtype, shape in signature)
