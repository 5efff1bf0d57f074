"""input_fn builders that feed several devices from tf.data, and data sources."""

from estimator_multigpu.inputs import lookup, queues
from estimator_multigpu.inputs._context import InputContext
from estimator_multigpu.inputs._data_service import (
    check_service_ops,
    with_data_service,
)
from estimator_multigpu.inputs._device_array import DeviceArray
from estimator_multigpu.inputs._device_array_dataset import (
    device_array_dataset,
    device_array_dataset_fn,
)
from estimator_multigpu.inputs._multi_device import multi_device_input_fn
from estimator_multigpu.inputs._record_dataset_fn import (
    example_parser,
    record_dataset_fn,
)
from estimator_multigpu.inputs._record_files import FixedLengthRecords
from estimator_multigpu.inputs._record_options import (
    CacheStage,
    RecordCache,
    RecordReading,
    ShardBy,
)
from estimator_multigpu.inputs._records import record_pipeline
from estimator_multigpu.inputs._sharded import sharded_input_fn

__all__ = [
    "CacheStage",
    "DeviceArray",
    "FixedLengthRecords",
    "InputContext",
    "RecordCache",
    "RecordReading",
    "ShardBy",
    "check_service_ops",
    "device_array_dataset",
    "device_array_dataset_fn",
    "example_parser",
    "lookup",
    "multi_device_input_fn",
    "record_dataset_fn",
    "record_pipeline",
    "queues",
    "sharded_input_fn",
    "with_data_service",
]


def __getattr__(name):
    """Names `inputs` no longer has, each with where it went."""
    if name == "dali":
        raise AttributeError(
            "`emg.inputs.dali` was the old name of the DALI adapter, which is a "
            "tf.distribute adapter: use `emg.distribute.dali` (import "
            "estimator_multigpu.distribute.dali)."
        )
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
