"""The per-replica context a DALI `pipeline_fn` receives."""

from __future__ import annotations

import dataclasses
import warnings


@dataclasses.dataclass(frozen=True, kw_only=True)
class DaliReplicaContext:
    """What `pipeline_fn(ctx)` needs to build the DALI pipeline of one replica.

    Attributes:
      shard_id: the replica's index; pass it to the reader's `shard_id`.
      num_shards: the number of replicas; pass it to the reader's `num_shards`.
      device_id: the DALI `device_id` of the replica's device: its CUDA
        ordinal on a GPU, None (CPU-only pipeline) on a CPU.
      per_device_batch_size: examples per replica and step; the pipeline's
        batch size (`batch_size`, its old name, still reads it, with a
        DeprecationWarning).
      seed: this replica's seed, derived from the user's one seed, or None;
        the pipeline's `seed` (augmentations differ between replicas).
      global_seed: the user's one seed, the same on every replica, or None.
        Pass it as the reader's `seed` with `shuffle_after_epoch=True`: that
        shuffles the whole file list before sharding, so every shard must
        draw the same permutation to stay disjoint.
      num_threads: CPU threads for the pipeline.
      device: the TF device the replica (and its DALIDataset) runs on.
      global_batch_size: examples per step over all replicas.
    """

    shard_id: int
    num_shards: int
    device_id: int | None
    per_device_batch_size: int
    seed: int | None
    global_seed: int | None
    num_threads: int
    device: str
    global_batch_size: int

    @property
    def batch_size(self) -> int:
        """Deprecated name of `per_device_batch_size`."""
        warnings.warn(
            "DaliReplicaContext.batch_size is deprecated; use "
            "ctx.per_device_batch_size (examples per replica and step).",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.per_device_batch_size
