"""The per-shard context a `dataset_fn` receives (seeds from `sharding.derive_seed`)."""

from __future__ import annotations

import dataclasses
from typing import Any

from estimator_multigpu._sharding import block_slice, derive_seed, in_block_slice


@dataclasses.dataclass(frozen=True, kw_only=True)
class InputContext:
    """What a `dataset_fn(ctx)` needs to build the pipeline of one shard.

    Built by keyword only (`InputContext(num_shards=..., shard_index=...)`).

    Attributes:
      num_shards: how many pipelines read the data (1 for
        `multi_device_input_fn`, one per device for `sharded_input_fn`).
      shard_index: this pipeline's index in `[0, num_shards)`.
      device: the device this shard feeds (the host CPU for
        `multi_device_input_fn`, whose one pipeline feeds every device).
      per_device_batch_size: examples per device and step (the largest one
        when per-device batches are uneven).
      global_batch_size: examples per step over all devices.
      num_devices: how many devices the input feeds.
      seed: this shard's seed, derived from the user's one seed (None when
        the user gave none).
      mode: the Estimator mode the input_fn was called with, or None.
      params: the Estimator `params` the input_fn was called with, or None.
    """

    num_shards: int
    shard_index: int
    device: str
    per_device_batch_size: int
    global_batch_size: int
    num_devices: int
    seed: int | None = None
    mode: str | None = None
    params: Any = None

    def in_shard(self, index):
        """Whether examples `index` (a tensor of indices) are this shard's.

        The rule the input builders shard by, for sources that pick examples
        by index: each block of `global_batch_size` consecutive examples is
        cut into `num_shards` slices in shard order (the first
        `global_batch_size % num_shards` one example longer) and this shard
        takes slice `shard_index`, so a step's shards, concatenated, are
        consecutive examples.

        Args:
          index: example indices, an integer tensor.

        Returns:
          A boolean tensor of `index`'s shape.
        """
        offset, size = block_slice(
            self.global_batch_size, self.num_shards, self.shard_index
        )
        return in_block_slice(index, self.global_batch_size, offset, size)


__all__ = ["InputContext", "derive_seed"]
