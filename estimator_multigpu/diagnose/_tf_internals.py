"""The one place `emg.diagnose` reaches TensorFlow internals; each use says why.

Everything else in the subpackage uses public TensorFlow only
(`tf.raw_ops.DatasetToGraphV2`, `tf.compat.v1.GraphDef`, `tf.Graph`).
"""

from __future__ import annotations

import re

import tensorflow as tf

# Why: `tensorflow.core` protos are not under the public `tf.*` names; the
# serialized `tf.data.Options` of an `OptionsDataset` node (graph attribute
# `serialized_options`) can only be decoded with this message class.
from tensorflow.core.framework import dataset_options_pb2

# The variant tensor is read in the module both `inputs` and `diagnose` use.
from estimator_multigpu.dataset_graph import variant_tensor

_KERNEL = re.compile(r"<(\w+?)Op\b")


def input_datasets(dataset: tf.data.Dataset) -> list[tf.data.Dataset]:
    """The datasets a transformation reads from, in order (none for a source).

    Why: there is no public way to reach the input of a transformation. It is
    needed to time each stage of a pipeline alone, and to walk past a stage
    TensorFlow cannot serialize (`prefetch_to_device` in eager mode).
    """
    return list(dataset._inputs())  # noqa: SLF001


def kernel_op(dataset: tf.data.Dataset) -> str:
    """The op name of an eager dataset's kernel, e.g. `'PrefetchDataset'`.

    Why: only for a stage TensorFlow cannot serialize. Its eager variant has
    no graph node to read the op from; the variant's debug string, which
    names the kernel (`<PrefetchDatasetOp::Dataset>`), is all there is.
    """
    match = _KERNEL.search(repr(variant_tensor(dataset)))
    return match.group(1) if match else "UnknownDataset"


def options_deterministic(serialized: bytes) -> bool | None:
    """`deterministic` of a serialized `tf.data.Options`, or None when unset."""
    options = dataset_options_pb2.Options.FromString(serialized)
    if options.WhichOneof("optional_deterministic") is None:
        return None
    return options.deterministic
