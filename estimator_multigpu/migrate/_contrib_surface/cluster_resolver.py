"""tf.contrib.cluster_resolver of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "move to core"
ADVICE = "tf.distribute.cluster_resolver"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "ClusterResolver": (
        "exact",
        "tf.compat.v1.distribute.cluster_resolver.ClusterResolver",
        "",
    ),
    "GCEClusterResolver": (
        "exact",
        "tf.compat.v1.distribute.cluster_resolver.GCEClusterResolver",
        "",
    ),
    "KubernetesClusterResolver": (
        "exact",
        "tf.compat.v1.distribute.cluster_resolver.KubernetesClusterResolver",
        "",
    ),
    "SimpleClusterResolver": (
        "exact",
        "tf.compat.v1.distribute.cluster_resolver.SimpleClusterResolver",
        "",
    ),
    "SlurmClusterResolver": (
        "exact",
        "tf.compat.v1.distribute.cluster_resolver.SlurmClusterResolver",
        "",
    ),
    "TFConfigClusterResolver": (
        "exact",
        "tf.compat.v1.distribute.cluster_resolver.TFConfigClusterResolver",
        "",
    ),
    "TPUClusterResolver": (
        "exact",
        "tf.compat.v1.distribute.cluster_resolver.TPUClusterResolver",
        "",
    ),
    "UnionClusterResolver": (
        "exact",
        "tf.compat.v1.distribute.cluster_resolver.UnionResolver",
        "",
    ),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {}
