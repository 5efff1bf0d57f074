"""What the doctor knows about tf.data ops: families, API names, argument positions."""

from __future__ import annotations

import re

_VERSION = re.compile(r"V\d+$")
_DATASET_OP = re.compile(r"Dataset(V\d+)?$")

# Base op (version suffix removed) -> family.
FAMILIES = {
    "MapDataset": "map",
    "ParallelMapDataset": "map",
    "MapAndBatchDataset": "map_and_batch",
    "ExperimentalMapAndBatchDataset": "map_and_batch",
    "InterleaveDataset": "interleave",
    "ParallelInterleaveDataset": "interleave",
    "LegacyParallelInterleaveDataset": "interleave",
    "ExperimentalParallelInterleaveDataset": "interleave",
    "FlatMapDataset": "flat_map",
    "BatchDataset": "batch",
    "ParallelBatchDataset": "batch",
    "PaddedBatchDataset": "batch",
    "UnbatchDataset": "unbatch",
    "ExperimentalUnbatchDataset": "unbatch",
    "ShuffleDataset": "shuffle",
    "ShuffleAndRepeatDataset": "shuffle",
    "RepeatDataset": "repeat",
    "ShardDataset": "shard",
    "CacheDataset": "cache",
    "PrefetchDataset": "prefetch",
    "FilterDataset": "filter",
    "ParallelFilterDataset": "filter",
    "GeneratorDataset": "generator",
    "TFRecordDataset": "reader",
    "FixedLengthRecordDataset": "reader",
    "TextLineDataset": "reader",
    "ZipDataset": "zip",
    "ConcatenateDataset": "concatenate",
    "TakeDataset": "take",
    "SkipDataset": "skip",
    "RangeDataset": "range",
    "TensorSliceDataset": "from_tensor_slices",
    "TensorDataset": "from_tensors",
}
# Wrappers that change options, not elements: "last transformation" skips them.
PASS_THROUGH = frozenset(
    {
        "OptionsDataset",
        "ModelDataset",
        "OptimizeDataset",
        "MaxIntraOpParallelismDataset",
        "PrivateThreadPoolDataset",
        "AssertCardinalityDataset",
        "AssertNextDataset",
        "FinalizeDataset",
    }
)
_API_NAMES = {
    "map_and_batch": "map_and_batch",
    "reader": None,  # The op name (TFRecordDataset, ...) is the API name.
    "generator": "from_generator",
    "PaddedBatchDataset": "padded_batch",
    "OptionsDataset": "with_options",
    "ShuffleAndRepeatDataset": "shuffle_and_repeat",
}
# Op -> {argument: index among the op's data inputs}; negative from the end.
ARGUMENTS = {
    "ShuffleDataset": {"buffer_size": 1, "seed": 2, "seed2": 3},
    "ShuffleDatasetV2": {"buffer_size": 1},
    "ShuffleDatasetV3": {"buffer_size": 1, "seed": 2, "seed2": 3},
    "ShuffleAndRepeatDataset": {"buffer_size": 1, "seed": 2, "seed2": 3, "count": 4},
    "ShuffleAndRepeatDatasetV2": {
        "buffer_size": 1,
        "seed": 2,
        "seed2": 3,
        "count": 4,
    },
    "BatchDataset": {"batch_size": 1},
    "BatchDatasetV2": {"batch_size": 1, "drop_remainder": 2},
    "ParallelBatchDataset": {"batch_size": 1, "drop_remainder": 3},
    "PaddedBatchDataset": {"batch_size": 1},
    "PaddedBatchDatasetV2": {"batch_size": 1, "drop_remainder": -1},
    "MapAndBatchDataset": {"batch_size": -3, "drop_remainder": -1},
    "InterleaveDataset": {"cycle_length": -2},
    "ParallelInterleaveDatasetV2": {"cycle_length": -3, "num_parallel_calls": -1},
    "ParallelInterleaveDatasetV3": {"cycle_length": -3, "num_parallel_calls": -1},
    "ParallelInterleaveDatasetV4": {"cycle_length": -5, "num_parallel_calls": -1},
    "ShardDataset": {"num_shards": 1, "index": 2},
    "RepeatDataset": {"count": 1},
    "TakeDataset": {"count": 1},
    "SkipDataset": {"count": 1},
    "RangeDataset": {"start": 0, "stop": 1, "step": 2},
}
AUTOTUNE = -1
# Ops that run a user function on several elements at once.
PARALLEL_OPS = frozenset(
    {
        "ParallelMapDataset",
        "ParallelMapDatasetV2",
        "ParallelInterleaveDatasetV2",
        "ParallelInterleaveDatasetV3",
        "ParallelInterleaveDatasetV4",
        "LegacyParallelInterleaveDatasetV2",
        "ExperimentalParallelInterleaveDataset",
        "ParallelBatchDataset",
        "ParallelFilterDataset",
        "MapAndBatchDataset",
        "ExperimentalMapAndBatchDataset",
    }
)


def is_dataset_op(op: str) -> bool:
    """Whether an op produces a dataset (`...Dataset` or `...DatasetV2`)."""
    return bool(_DATASET_OP.search(op))


def base_op(op: str) -> str:
    """The op without its version suffix: `ShuffleDatasetV3` -> `ShuffleDataset`."""
    return _VERSION.sub("", op)


def family(op: str) -> str:
    """The transformation family of an op (`'map'`, `'shuffle'`, ...) or the op."""
    return FAMILIES.get(base_op(op), base_op(op))


def api_name(op: str) -> str:
    """The name a user wrote for this op: `ParallelMapDatasetV2` -> `'map'`."""
    for key in (base_op(op), family(op)):
        if key in _API_NAMES:
            return _API_NAMES[key] or base_op(op)
    return family(op) if base_op(op) in FAMILIES else base_op(op)
