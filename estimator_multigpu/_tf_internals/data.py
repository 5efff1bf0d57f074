"""tf.data internals: a dataset's variant, its inputs, options, MultiDeviceIterator."""

from __future__ import annotations

import re
from typing import Any

import tensorflow as tf

from estimator_multigpu._tf_internals._access import member, private

_KERNEL = re.compile(r"<(\w+?)Op\b")


def variant_tensor(dataset: tf.data.Dataset) -> tf.Tensor:
    """The dataset's variant tensor: its node in a graph, or its eager handle.

    Why: `tf.data.Dataset` has no public accessor for the tensor that
    `tf.raw_ops.DatasetToGraphV2` serializes, nor for the graph node that a
    graph-mode dataset is. Public alternative: none.
    """
    return member(dataset, "_variant_tensor")


def input_datasets(dataset: tf.data.Dataset) -> list[tf.data.Dataset]:
    """The datasets a transformation reads from, in order (none for a source).

    Why: there is no public way to reach the input of a transformation. It is
    needed to time each stage of a pipeline alone, and to walk past a stage
    TensorFlow cannot serialize (`prefetch_to_device` in eager mode).
    """
    return list(member(dataset, "_inputs")())


def unary_input(dataset: Any) -> Any:
    """The one input of a unary dataset (`_input_dataset`, or the v1 `_dataset`).

    Why: no public API tells whether a dataset is batched; the check walks
    the unary chain. Returns None where neither attribute is present.
    """
    found = getattr(dataset, "_input_dataset", None)
    return found or getattr(dataset, "_dataset", None)


def kernel_op(dataset: tf.data.Dataset) -> str:
    """The op name of an eager dataset's kernel, e.g. `'PrefetchDataset'`.

    Why: only for a stage TensorFlow cannot serialize. Its eager variant has
    no graph node to read the op from; the variant's debug string, which
    names the kernel (`<PrefetchDatasetOp::Dataset>`), is all there is.
    """
    match = _KERNEL.search(repr(variant_tensor(dataset)))
    return match.group(1) if match else "UnknownDataset"


def options_deterministic(serialized: bytes) -> bool | None:
    """`deterministic` of a serialized `tf.data.Options`, or None when unset.

    Why: `tensorflow.core` protos are not under the public `tf.*` names; the
    serialized options of an `OptionsDataset` node (graph attribute
    `serialized_options`) decode only with this message class.
    """
    protos = private("tensorflow.core.framework.dataset_options_pb2")
    options = protos.Options.FromString(serialized)
    if options.WhichOneof("optional_deterministic") is None:
        return None
    return options.deterministic


def multi_device_iterator() -> type:
    """The `MultiDeviceIterator` class.

    Why: it has no public `tf.*` name in any TF 2.x; it lives in
    `tensorflow.python.data.ops.multi_device_iterator_ops`. Public
    alternative: `tf.distribute` input or `emg.inputs.sharded_input_fn`.
    """
    return private(
        "tensorflow.python.data.ops.multi_device_iterator_ops",
        "MultiDeviceIterator",
        fix=" (or use emg.inputs.sharded_input_fn)",
    )
