"""tf.contrib.factorization of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "delete (rebuild in core pending)?"
ADVICE = "keep the TF 1.15 implementation in your code (Apache-2.0), or rewrite it with core tf ops"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "COSINE_DISTANCE": ("none", "", ""),
    "GMM": ("none", "", ""),
    "GmmAlgorithm": ("none", "", ""),
    "KMEANS_PLUS_PLUS_INIT": ("none", "", ""),
    "KMeans": ("none", "", ""),
    "KMeansClustering": ("none", "", ""),
    "RANDOM_INIT": ("none", "", ""),
    "SQUARED_EUCLIDEAN_DISTANCE": ("none", "", ""),
    "WALSMatrixFactorization": ("none", "", ""),
    "WALSModel": ("none", "", ""),
    "gmm": ("none", "", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.factorization.python.ops.clustering_ops": {
        "COSINE_DISTANCE": "COSINE_DISTANCE",
        "KMEANS_PLUS_PLUS_INIT": "KMEANS_PLUS_PLUS_INIT",
        "KMeans": "KMeans",
        "RANDOM_INIT": "RANDOM_INIT",
        "SQUARED_EUCLIDEAN_DISTANCE": "SQUARED_EUCLIDEAN_DISTANCE",
    },
    "tf.contrib.factorization.python.ops.factorization_ops": {"WALSModel": "WALSModel"},
    "tf.contrib.factorization.python.ops.gmm": {"GMM": "GMM"},
    "tf.contrib.factorization.python.ops.gmm_ops": {
        "GmmAlgorithm": "GmmAlgorithm",
        "gmm": "gmm",
    },
    "tf.contrib.factorization.python.ops.kmeans": {
        "KMeansClustering": "KMeansClustering"
    },
    "tf.contrib.factorization.python.ops.wals": {
        "WALSMatrixFactorization": "WALSMatrixFactorization"
    },
}
