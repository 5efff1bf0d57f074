"""tf.contrib.layers functions that tf_slim keeps as they were (the same code)."""

from __future__ import annotations

CONTRIB = "tf.contrib.layers."
# tf_slim 1.1's top-level functions from contrib.layers, run on TF 2.21 (not
# batch_norm: see slim.LACKS), and not those contrib_names.REPLACEMENTS maps
# to core TensorFlow; tests/test_migrate_exact_rewrites.py checks the list
# against tf_slim.
NAMES = (
    "avg_pool2d avg_pool3d bias_add conv1d conv2d conv2d_in_plane "
    "conv2d_transpose conv3d conv3d_transpose convolution convolution1d "
    "convolution2d convolution2d_in_plane convolution2d_transpose convolution3d "
    "convolution3d_transpose dense_to_sparse dropout elu fully_connected "
    "group_norm images_to_sequence instance_norm layer_norm linear max_pool2d "
    "max_pool3d maxout one_hot_encoding "
    "optimize_loss pool relu relu6 repeat scale_gradient separable_conv2d "
    "separable_convolution2d sequence_to_images softmax spatial_softmax stack "
    "summarize_activation summarize_collection summarize_tensor unit_norm "
    "variance_scaling_initializer"
).split()
