"""tf.contrib.distribute of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "move to core"
ADVICE = "tf.distribute"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "AllReduceCrossDeviceOps": ("none", "", ""),
    "CollectiveAllReduceStrategy": ("none", "", ""),
    "CrossDeviceOps": ("exact", "tf.compat.v1.distribute.CrossDeviceOps", ""),
    "DistributeConfig": ("none", "", ""),
    "DistributionStrategy": ("exact", "tf.compat.v1.distribute.Strategy", ""),
    "MirroredStrategy": (
        "exact",
        "tf.distribute.MirroredStrategy",
        "tf.distribute.MirroredStrategy",
    ),
    "Monitor": ("none", "", ""),
    "MultiWorkerAllReduce": ("none", "", ""),
    "OneDeviceStrategy": ("exact", "tf.compat.v1.distribute.OneDeviceStrategy", ""),
    "ParameterServerStrategy": ("none", "", ""),
    "ReplicaContext": ("exact", "tf.compat.v1.distribute.ReplicaContext", ""),
    "StandardInputStep": ("none", "", ""),
    "StandardSingleLossStep": ("none", "", ""),
    "Step": ("none", "", ""),
    "TPUStrategy": ("exact", "tf.compat.v1.distribute.experimental.TPUStrategy", ""),
    "UpdateContext": ("none", "", ""),
    "get_cross_replica_context": ("none", "", ""),
    "get_distribution_strategy": ("exact", "tf.compat.v1.distribute.get_strategy", ""),
    "get_loss_reduction": ("exact", "tf.compat.v1.distribute.get_loss_reduction", ""),
    "get_replica_context": ("exact", "tf.compat.v1.distribute.get_replica_context", ""),
    "get_strategy": ("exact", "tf.compat.v1.distribute.get_strategy", ""),
    "has_distribution_strategy": ("exact", "tf.compat.v1.distribute.has_strategy", ""),
    "has_strategy": ("exact", "tf.compat.v1.distribute.has_strategy", ""),
    "in_cross_replica_context": (
        "exact",
        "tf.compat.v1.distribute.in_cross_replica_context",
        "",
    ),
    "initialize_tpu_system": ("exact", "tf.tpu.experimental.initialize_tpu_system", ""),
    "require_replica_context": ("none", "", ""),
    "run_standard_tensorflow_server": ("none", "", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.distribute.python.collective_all_reduce_strategy": {
        "CollectiveAllReduceStrategy": "CollectiveAllReduceStrategy"
    },
    "tf.contrib.distribute.python.mirrored_strategy": {
        "MirroredStrategy": "MirroredStrategy"
    },
    "tf.contrib.distribute.python.monitor": {"Monitor": "Monitor"},
    "tf.contrib.distribute.python.parameter_server_strategy": {
        "ParameterServerStrategy": "ParameterServerStrategy"
    },
}
