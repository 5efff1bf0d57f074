"""tf.contrib.image of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "partial move to tensorflow/contrib?"
ADVICE = "tf.image, TensorFlow Addons carried some of it until its end of life (2024); keep the TF 1.15 implementation in your code (Apache-2.0) or rewrite it with core ops"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "angles_to_projective_transforms": ("none", "", ""),
    "bipartite_match": ("none", "", ""),
    "compose_transforms": ("none", "", ""),
    "connected_components": ("none", "", ""),
    "dense_image_warp": ("none", "", ""),
    "flat_transforms_to_matrices": ("none", "", ""),
    "interpolate_spline": ("none", "", ""),
    "matrices_to_flat_transforms": ("none", "", ""),
    "rotate": ("none", "", ""),
    "single_image_random_dot_stereograms": ("none", "", ""),
    "sparse_image_warp": ("none", "", ""),
    "transform": ("none", "", ""),
    "translate": ("none", "", ""),
    "translations_to_projective_transforms": ("none", "", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.image.python.ops.dense_image_warp": {
        "dense_image_warp": "dense_image_warp"
    },
    "tf.contrib.image.python.ops.image_ops": {
        "angles_to_projective_transforms": "angles_to_projective_transforms",
        "bipartite_match": "bipartite_match",
        "compose_transforms": "compose_transforms",
        "connected_components": "connected_components",
        "flat_transforms_to_matrices": "flat_transforms_to_matrices",
        "matrices_to_flat_transforms": "matrices_to_flat_transforms",
        "rotate": "rotate",
        "transform": "transform",
        "translate": "translate",
        "translations_to_projective_transforms": "translations_to_projective_transforms",
    },
    "tf.contrib.image.python.ops.interpolate_spline": {
        "interpolate_spline": "interpolate_spline"
    },
    "tf.contrib.image.python.ops.single_image_random_dot_stereograms": {
        "single_image_random_dot_stereograms": "single_image_random_dot_stereograms"
    },
    "tf.contrib.image.python.ops.sparse_image_warp": {
        "sparse_image_warp": "sparse_image_warp"
    },
}
