"""tf.contrib.tpu of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "move to core"
ADVICE = "tf.tpu and tf.distribute.TPUStrategy"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "AsyncCheckpointSaverHook": ("none", "", ""),
    "CrossShardOptimizer": (
        "emg",
        "emg.estimator.tpu.CrossShardOptimizer",
        "emg.estimator.tpu.CrossShardOptimizer (with use_tpu=False, on one or N GPUs)",
    ),
    "DeviceAssignment": ("exact", "tf.tpu.experimental.DeviceAssignment", ""),
    "InfeedQueue": ("none", "", ""),
    "TPUDistributionStrategy": ("none", "", ""),
    "Topology": ("exact", "tf.tpu.experimental.Topology", ""),
    "batch_parallel": (
        "exact",
        "tf.distribute.TPUStrategy",
        "run the computation itself (TPUEstimator(use_tpu=False) "
        "never calls batch_parallel; guard such code with `if "
        "FLAGS.use_tpu:`), or tf.distribute.TPUStrategy on a TPU",
    ),
    "bfloat16_scope": (
        "emg",
        "emg.estimator.tpu.bfloat16_scope",
        "emg.estimator.tpu.bfloat16_scope (with use_tpu=False, on one or N GPUs)",
    ),
    "core": ("exact", "tf.compat.v1.tpu.core", ""),
    "cross_replica_sum": (
        "exact",
        "tf.distribute.TPUStrategy",
        "run the computation itself "
        "(TPUEstimator(use_tpu=False) never calls "
        "cross_replica_sum; guard such code with `if "
        "FLAGS.use_tpu:`), or tf.distribute.TPUStrategy on a "
        "TPU",
    ),
    "device_assignment": ("none", "", ""),
    "infeed_dequeue": ("none", "", ""),
    "infeed_dequeue_tuple": ("none", "", ""),
    "infeed_enqueue": ("none", "", ""),
    "infeed_enqueue_tuple": ("none", "", ""),
    "initialize_system": (
        "exact",
        "tf.distribute.TPUStrategy",
        "run the computation itself "
        "(TPUEstimator(use_tpu=False) never calls "
        "initialize_system; guard such code with `if "
        "FLAGS.use_tpu:`), or tf.distribute.TPUStrategy on a "
        "TPU",
    ),
    "keras_to_tpu_model": ("none", "", ""),
    "outfeed_dequeue": ("none", "", ""),
    "outfeed_dequeue_tuple": ("none", "", ""),
    "outfeed_enqueue": ("none", "", ""),
    "outfeed_enqueue_tuple": ("none", "", ""),
    "outside_compilation": (
        "exact",
        "tf.distribute.TPUStrategy",
        "run the computation itself "
        "(TPUEstimator(use_tpu=False) never calls "
        "outside_compilation; guard such code with `if "
        "FLAGS.use_tpu:`), or tf.distribute.TPUStrategy on a "
        "TPU",
    ),
    "profiler": ("exact", "tf.profiler", ""),
    "repeat": (
        "none",
        "tf.repeat",
        "tf.repeat has its name, but it takes (input, repeats, axis, "
        "name), contrib's took (n, body, inputs, infeed_queue, name)",
    ),
    "replicate": (
        "exact",
        "tf.distribute.TPUStrategy",
        "run the computation itself (TPUEstimator(use_tpu=False) never "
        "calls replicate; guard such code with `if FLAGS.use_tpu:`), or "
        "tf.distribute.TPUStrategy on a TPU",
    ),
    "rewrite": (
        "exact",
        "tf.distribute.TPUStrategy",
        "run the computation itself (TPUEstimator(use_tpu=False) never "
        "calls rewrite; guard such code with `if FLAGS.use_tpu:`), or "
        "tf.distribute.TPUStrategy on a TPU",
    ),
    "shard": (
        "exact",
        "tf.distribute.TPUStrategy",
        "run the computation itself (TPUEstimator(use_tpu=False) never "
        "calls shard; guard such code with `if FLAGS.use_tpu:`), or "
        "tf.distribute.TPUStrategy on a TPU",
    ),
    "shutdown_system": (
        "exact",
        "tf.distribute.TPUStrategy",
        "run the computation itself (TPUEstimator(use_tpu=False) "
        "never calls shutdown_system; guard such code with `if "
        "FLAGS.use_tpu:`), or tf.distribute.TPUStrategy on a TPU",
    ),
    "while_loop": (
        "none",
        "tf.while_loop",
        "tf.while_loop has its name, but it takes (cond, body, "
        "loop_vars, shape_invariants, parallel_iterations, back_prop, "
        "swap_memory, maximum_iterations, name), contrib's took "
        "(condition, body, inputs, infeed_queue, name)",
    ),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.tpu.python.profiler": {"": "profiler"},
    "tf.contrib.tpu.python.tpu.keras_support": {
        "TPUDistributionStrategy": "TPUDistributionStrategy",
        "tpu_model": "keras_to_tpu_model",
    },
}
