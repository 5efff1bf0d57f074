"""Which devices a `tf.distribute` input pipeline runs on and feeds."""

from __future__ import annotations

import dataclasses
from typing import Any

import tensorflow as tf

from estimator_multigpu import _sharding, _tf_internals
from estimator_multigpu.inputs import InputContext


@dataclasses.dataclass(frozen=True, kw_only=True)
class ReplicaInputContext(InputContext):
    """An `emg.inputs.InputContext` for one `tf.distribute` input pipeline.

    A `dataset_fn(ctx)` written for `emg.inputs.sharded_input_fn` runs here
    unchanged: `num_shards`, `shard_index`, `device`, `per_device_batch_size`
    and `seed` mean the same.

    Attributes:
      devices: the replica devices this pipeline feeds (one with
        `replication_mode='per_replica'`, all of the worker's otherwise).
      input_context: the `tf.distribute.InputContext` TensorFlow passed.
    """

    devices: tuple[str, ...] = ()
    input_context: Any = None

    @property
    def per_replica_batch_size(self) -> int:
        """Examples per replica and step (`per_device_batch_size`)."""
        return self.per_device_batch_size

    @property
    def num_replicas_in_sync(self) -> int:
        """Replicas over all workers (`num_devices`)."""
        return self.num_devices


def host_device(device: str) -> str:
    """The CPU of the worker that owns `device`, e.g. `.../device:CPU:0`."""
    spec = tf.DeviceSpec.from_string(device)
    return spec.replace(device_type="CPU", device_index=0).to_string()


def _is_per_replica(options) -> bool:
    return bool(options) and options.experimental_replication_mode.name == "PER_REPLICA"


def _fallback_workers(strategy, options) -> list[tuple[str, tuple[str, ...]]]:
    """The (pipeline device, fed devices) TF documents, for strategies that
    do not expose their input workers."""
    replicas = tuple(strategy.extended.worker_devices)
    if not _is_per_replica(options):
        return [(host_device(replicas[0]), replicas)]
    on_device = options.experimental_place_dataset_on_device
    return [((r if on_device else host_device(r)), (r,)) for r in replicas]


def input_workers(strategy, options) -> list[tuple[str, tuple[str, ...]]]:
    """`(device the pipeline runs on, replica devices it feeds)`, by pipeline id.

    Asks the strategy for the input workers it will use with `options`, so the
    mapping is TensorFlow's own. With `'per_replica'` pipeline i feeds replica
    i, `worker_devices[i]`, and runs there when `place_dataset_on_device`,
    else on that worker's CPU; with `'per_worker'` each worker's one pipeline
    runs on its CPU and feeds all its replicas. (A MirroredStrategy that was
    once given `'per_replica'` keeps one pipeline per replica afterwards.)
    """
    workers = _tf_internals.input_workers(strategy.extended, options)
    if workers is None:
        return _fallback_workers(strategy, options)
    return [
        (device, tuple(workers.compute_devices_for_worker(i)))
        for i, device in enumerate(workers.worker_devices)
    ]


def _local_index(input_context, workers, strategy) -> int:
    """Index into `workers` of the pipeline TF asks for.

    One entry per pipeline in one process; in multi-worker training each
    process builds only its own (`input_pipeline_id` is the worker's index).
    """
    count = input_context.num_input_pipelines
    if count == len(workers):
        return input_context.input_pipeline_id
    local_replicas = len(strategy.extended.worker_devices)
    if len(workers) == 1 and count * local_replicas == strategy.num_replicas_in_sync:
        return 0
    raise ValueError(
        f"The dataset_fn was built for {len(workers)} input pipeline(s) but "
        f"TensorFlow runs {count}: pass the same `options` to "
        "strategy.distribute_datasets_from_function(dataset_fn, options) as to "
        "the dataset_fn builder."
    )


def make_context(
    input_context: tf.distribute.InputContext,
    strategy: tf.distribute.Strategy,
    options: tf.distribute.InputOptions | None,
    global_batch_size: int,
    seed: int | None,
) -> ReplicaInputContext:
    """Builds the context of pipeline `input_context.input_pipeline_id`.

    Raises:
      ValueError: if TF runs a different number of pipelines than `options`
        implies (the options given to TF and to the builder differ).
    """
    workers = input_workers(strategy, options)
    device, fed = workers[_local_index(input_context, workers, strategy)]
    index = input_context.input_pipeline_id
    return ReplicaInputContext(
        num_shards=input_context.num_input_pipelines,
        shard_index=index,
        device=device,
        per_device_batch_size=_sharding.per_replica_batch_size(
            global_batch_size, input_context.num_replicas_in_sync
        ),
        global_batch_size=global_batch_size,
        num_devices=input_context.num_replicas_in_sync,
        seed=_sharding.derive_seed(seed, index),
        devices=fed,
        input_context=input_context,
    )
