"""TPUEstimator's names and their emg.estimator.tpu drop-ins; the TPU-only ones."""

from __future__ import annotations

# Names under tf.contrib.tpu and tf.compat.v1.estimator.tpu with a drop-in
# of the same name in emg.estimator.tpu.
ESTIMATOR_TPU_NAMES = (
    "TPUEstimator",
    "TPUEstimatorSpec",
    "RunConfig",
    "TPUConfig",
    "InputPipelineConfig",
)
# Only under tf.contrib.tpu (tf.compat.v1.tpu in TF 2.x).
CONTRIB_TPU_NAMES = ("CrossShardOptimizer", "bfloat16_scope")
# Code that is compiled for a TPU: it has no CPU/GPU counterpart.
TPU_ONLY = (
    "rewrite",
    "outside_compilation",
    "shard",
    "replicate",
    "batch_parallel",
    "initialize_system",
    "shutdown_system",
    "cross_replica_sum",
)
TPU_ONLY_SUMMARY = (
    "{name} compiles the computation for a TPU (XLA on TPU cores), which does "
    "not run on GPUs or CPUs"
)
TPU_ONLY_REPLACEMENT = (
    "run the computation itself (TPUEstimator(use_tpu=False) never calls "
    "{name}; guard such code with `if FLAGS.use_tpu:`), or tf.distribute."
    "TPUStrategy on a TPU"
)
