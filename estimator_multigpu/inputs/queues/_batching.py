"""The steps every batcher shares: filter, unbatch, shape, batch, prefetch."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import tensorflow as tf

from estimator_multigpu.inputs.queues import _common


@dataclasses.dataclass(frozen=True, kw_only=True)
class BatchOptions:
    """The queue batcher arguments that shape the batches (TF1 names)."""

    enqueue_many: bool
    shapes: Any
    dynamic_pad: bool
    allow_smaller_final_batch: bool
    shared_name: str | None
    deterministic: bool


@dataclasses.dataclass(frozen=True, kw_only=True)
class Shuffle:
    """The shuffle of a `shuffle_batch`: its buffer size and seed."""

    buffer_size: int
    seed: int | None


def check_dataset(tensors: Any, argument: str) -> tf.data.Dataset:
    """Raises TypeError unless `tensors` is a `tf.data.Dataset`."""
    if not isinstance(tensors, tf.data.Dataset):
        raise TypeError(
            f"`{argument}` must be a tf.data.Dataset of per-example structures; "
            f"received {type(tensors).__name__}. Build it with a producer and "
            "`queues.read(...)` and `.map(...)` your per-example ops over it, "
            f"instead of passing tensors. See {_common.guide('batchers')}."
        )
    return tensors


def call_unpacked(fn: Callable, element: Any) -> Any:
    """Calls `fn` with tf.data's convention: a tuple is unpacked."""
    return fn(*element) if type(element) is tuple else fn(element)


def element_from_args(spec: Any, args: tuple) -> Any:
    """Rebuilds the element from the positional args tf.data passed."""
    return tuple(args) if type(spec) is tuple else args[0]


def _keep_fn(keep_input: Any, rank: int, spec: Any) -> Callable[..., tf.Tensor]:
    """`keep_input` as a function of the element returning a bool of `rank`."""

    def keep(*args):
        element = element_from_args(spec, args)
        value = (
            call_unpacked(keep_input, element) if callable(keep_input) else keep_input
        )
        value = tf.convert_to_tensor(value, dtype=tf.bool)
        if value.shape.rank != rank:
            raise ValueError(
                f"`keep_input` must give a {'scalar' if rank == 0 else 'vector'} "
                f"bool per element{' (enqueue_many=True)' if rank else ''}; "
                f"received shape {value.shape}."
            )
        return value

    return keep


def _filter_many(dataset: tf.data.Dataset, keep) -> tf.data.Dataset:
    """Unbatches `dataset`, keeping the examples whose mask entry is True."""
    spec = dataset.element_spec
    masked = dataset.map(lambda *x: (element_from_args(spec, x), keep(*x)))
    masked = masked.unbatch().filter(lambda element, mask: mask)
    return masked.map(lambda element, mask: element)


def examples(
    dataset: tf.data.Dataset, enqueue_many: bool, shapes: Any, keep_input: Any = True
) -> tf.data.Dataset:
    """Per-example dataset: filtered by `keep_input`, unbatched, shaped."""
    if keep_input is True:
        dataset = dataset.unbatch() if enqueue_many else dataset
    elif enqueue_many:
        dataset = _filter_many(dataset, _keep_fn(keep_input, 1, dataset.element_spec))
    else:
        dataset = dataset.filter(_keep_fn(keep_input, 0, dataset.element_spec))
    return apply_shapes(dataset, shapes)


def apply_shapes(dataset: tf.data.Dataset, shapes: Sequence[Any] | None):
    """Gives each component the shape in `shapes` (flattened order)."""
    if shapes is None:
        return dataset
    specs = tf.nest.flatten(dataset.element_spec)
    shapes = [tf.TensorShape(s) for s in shapes]
    if len(shapes) != len(specs):
        raise ValueError(
            f"`shapes` has {len(shapes)} entries but each example has "
            f"{len(specs)} tensors; give one shape per tensor (dict keys sorted)."
        )
    for i, (shape, spec) in enumerate(zip(shapes, specs)):
        if not spec.shape.is_compatible_with(shape):
            raise ValueError(
                f"`shapes[{i}]` is {shape} but that tensor has shape {spec.shape}."
            )
    structure = dataset.element_spec

    def reshape(*args):
        flat = tf.nest.flatten(element_from_args(structure, args))
        shaped = [tf.ensure_shape(t, s) for t, s in zip(flat, shapes)]
        return tf.nest.pack_sequence_as(structure, shaped)

    return dataset.map(reshape)


def batched(
    dataset: tf.data.Dataset,
    batch_size: Any,
    dynamic_pad: bool,
    allow_smaller_final_batch: bool,
) -> tf.data.Dataset:
    """Batches like the queue: the remainder is dropped unless allowed."""
    if not tf.is_tensor(batch_size):
        batch_size = _common.check_int(batch_size, "batch_size")
    drop = not allow_smaller_final_batch
    if dynamic_pad:
        return dataset.padded_batch(batch_size, drop_remainder=drop)
    undefined = [
        s.shape
        for s in tf.nest.flatten(dataset.element_spec)
        if not s.shape.is_fully_defined()
    ]
    if undefined:
        raise ValueError(
            f"All shapes must be fully defined to batch without padding; received "
            f"{undefined}. Pass `shapes=`, reshape in your per-example function, "
            "or set `dynamic_pad=True`."
        )
    return dataset.batch(batch_size, drop_remainder=drop)


def finish(
    dataset: tf.data.Dataset, batches_ahead: int, deterministic: bool
) -> tf.data.Dataset:
    """Adds the prefetch headroom and the determinism option."""
    options = tf.data.Options()
    options.deterministic = deterministic
    return dataset.prefetch(max(1, batches_ahead)).with_options(options)


def order(deterministic: bool | None, num_threads: int, joined: bool) -> bool:
    """The determinism flag: fixed order iff one thread and no join, by default."""
    num_threads = _common.check_int(num_threads, "num_threads")
    if deterministic is None:
        return num_threads == 1 and not joined
    return bool(deterministic)


def shuffle_buffer(batch_size: Any, capacity: Any, min_after_dequeue: Any) -> int:
    """Returns the shuffle buffer size; raises where the queue would refuse."""
    capacity = _common.check_int(capacity, "capacity")
    min_after_dequeue = _common.check_int(min_after_dequeue, "min_after_dequeue", 0)
    if capacity <= min_after_dequeue:
        raise ValueError(
            f"`capacity` ({capacity}) must be bigger than `min_after_dequeue` "
            f"({min_after_dequeue}); use e.g. capacity = min_after_dequeue + "
            "3 * batch_size."
        )
    size = batch_size if isinstance(batch_size, int) else 0
    return min_after_dequeue + max(size, 1)


def pipeline(
    dataset,
    batch_size,
    capacity,
    options: BatchOptions,
    shuffle: Shuffle | None = None,
    keep_input=True,
):
    """Filters, unbatches, shapes, shuffles, batches and prefetches."""
    _common.warn_shared(options.shared_name)
    capacity = _common.check_int(capacity, "capacity")
    if isinstance(batch_size, int) and capacity < batch_size:
        _common.warn(
            f"`capacity` ({capacity}) is smaller than `batch_size` ({batch_size}): "
            "a queue this size could never hold a batch. Here `capacity` only "
            "sets the prefetch headroom and is not a memory bound.",
            "capacity",
        )
    dataset = examples(dataset, options.enqueue_many, options.shapes, keep_input)
    headroom = capacity
    if shuffle is not None:
        dataset = dataset.shuffle(shuffle.buffer_size, seed=shuffle.seed)
        headroom = capacity - shuffle.buffer_size
    dataset = batched(
        dataset, batch_size, options.dynamic_pad, options.allow_smaller_final_batch
    )
    size = batch_size if isinstance(batch_size, int) else 1
    return finish(dataset, headroom // size, options.deterministic)


def build(
    source: Any,
    batch_size: Any,
    capacity: Any,
    *,
    joined: bool,
    num_threads: int = 1,
    min_after_dequeue: Any = None,
    seed: int | None = None,
    keep_input: Any = True,
    dynamic_pad: bool = False,
    **options: Any,
) -> tf.data.Dataset:
    """The one body of the eight batchers.

    Args:
      source: a dataset of examples, or a list of them when `joined`.
      batch_size, capacity: as the batcher received them.
      joined: True for the `*_join` forms (several datasets, free order).
      num_threads: the batcher's enqueue threads (1 for the joins).
      min_after_dequeue: set for the shuffling forms (with `seed`).
      keep_input: for the `maybe_*` forms (already checked).
      dynamic_pad: pad variable-length tensors.
      **options: `enqueue_many`, `shapes`, `allow_smaller_final_batch`,
        `shared_name`, `deterministic` (the batcher's keyword-only flag).
    """
    if not joined:
        check_dataset(source, "tensors")
    shuffle = None
    if min_after_dequeue is not None:
        size = shuffle_buffer(batch_size, capacity, min_after_dequeue)
        shuffle = Shuffle(buffer_size=size, seed=seed)
    det = order(options.pop("deterministic"), num_threads, joined=joined)
    dataset = join(source, det) if joined else source
    settings = BatchOptions(dynamic_pad=dynamic_pad, deterministic=det, **options)
    return pipeline(dataset, batch_size, capacity, settings, shuffle, keep_input)


def join(datasets: Any, deterministic: bool) -> tf.data.Dataset:
    """Interleaves independent datasets in parallel, one element at a time."""
    if isinstance(datasets, tf.data.Dataset) or not isinstance(datasets, list | tuple):
        raise TypeError(
            "`tensors_list` must be a list of tf.data.Dataset (one per reader); "
            f"received {type(datasets).__name__}. For a single dataset use the "
            "non-join batcher."
        )
    if not datasets:
        raise ValueError("`tensors_list` is empty; pass at least one dataset.")
    datasets = [check_dataset(d, f"tensors_list[{i}]") for i, d in enumerate(datasets)]
    first = datasets[0].element_spec
    for i, d in enumerate(datasets[1:], 1):
        try:
            tf.nest.assert_same_structure(first, d.element_spec)
        except (ValueError, TypeError) as error:
            raise ValueError(
                f"`tensors_list[{i}]` yields {d.element_spec}, unlike "
                f"`tensors_list[0]` ({first}); all must have the same structure."
            ) from error
    nested = tf.data.Dataset.from_tensors(datasets[0])
    for d in datasets[1:]:
        nested = nested.concatenate(tf.data.Dataset.from_tensors(d))
    return nested.interleave(
        lambda d: d,
        cycle_length=len(datasets),
        num_parallel_calls=len(datasets),
        deterministic=deterministic,
    )
