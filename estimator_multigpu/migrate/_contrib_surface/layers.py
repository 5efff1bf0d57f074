"""tf.contrib.layers of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "partial move to tensorflow/contrib?"
ADVICE = "tf_slim (pip install tf-slim) keeps contrib's layers, arg_scope, variables, losses, metrics, learning and data code; else tf.keras"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "GDN": ("exact", "tf_slim.GDN", ""),
    "OPTIMIZER_CLS_NAMES": ("exact", "tf_slim.OPTIMIZER_CLS_NAMES", ""),
    "OPTIMIZER_SUMMARIES": ("exact", "tf_slim.OPTIMIZER_SUMMARIES", ""),
    "RevBlock": ("exact", "tf_slim.RevBlock", ""),
    "SPARSE_FEATURE_CROSS_DEFAULT_HASH_KEY": ("none", "", ""),
    "apply_regularization": ("exact", "tf_slim.apply_regularization", ""),
    "avg_pool2d": ("exact", "tf_slim.avg_pool2d", ""),
    "avg_pool3d": ("exact", "tf_slim.avg_pool3d", ""),
    "batch_norm": ("exact", "tf_slim.batch_norm", ""),
    "bias_add": ("exact", "tf_slim.bias_add", ""),
    "bow_encoder": ("none", "", ""),
    "bucketized_column": ("none", "", ""),
    "check_feature_columns": ("none", "", ""),
    "conv1d": ("exact", "tf_slim.conv1d", ""),
    "conv2d": (
        "exact",
        "tf.compat.v1.layers.conv2d",
        "tf.compat.v1.layers.conv2d(inputs, num_outputs, kernel_size, "
        "padding='same', activation=tf.nn.relu) (contrib's defaults "
        "written out)",
    ),
    "conv2d_in_plane": ("exact", "tf_slim.conv2d_in_plane", ""),
    "conv2d_transpose": ("exact", "tf_slim.conv2d_transpose", ""),
    "conv3d": ("exact", "tf_slim.conv3d", ""),
    "conv3d_transpose": ("exact", "tf_slim.conv3d_transpose", ""),
    "convolution": ("exact", "tf_slim.convolution", ""),
    "convolution1d": ("exact", "tf_slim.convolution1d", ""),
    "convolution2d": ("exact", "tf_slim.convolution2d", ""),
    "convolution2d_in_plane": ("exact", "tf_slim.convolution2d_in_plane", ""),
    "convolution2d_transpose": ("exact", "tf_slim.convolution2d_transpose", ""),
    "convolution3d": ("exact", "tf_slim.convolution3d", ""),
    "convolution3d_transpose": ("exact", "tf_slim.convolution3d_transpose", ""),
    "create_feature_spec_for_parsing": ("none", "", ""),
    "crossed_column": ("none", "", ""),
    "dense_to_sparse": ("exact", "tf_slim.dense_to_sparse", ""),
    "dropout": (
        "exact",
        "tf.compat.v1.layers.dropout",
        "tf.compat.v1.layers.dropout(inputs, rate=1 - keep_prob, training=is_training)",
    ),
    "elu": ("exact", "tf_slim.elu", ""),
    "embed_sequence": ("none", "", ""),
    "embedding_column": ("none", "", ""),
    "embedding_lookup_unique": ("none", "", ""),
    "flatten": (
        "exact",
        "tf_slim.flatten",
        "tf.compat.v1.layers.flatten (with tf-keras on TF 2.16+)",
    ),
    "fully_connected": (
        "exact",
        "tf.compat.v1.layers.dense",
        "tf.compat.v1.layers.dense(inputs, num_outputs, "
        "activation=tf.nn.relu) (contrib's default activation is "
        "relu)",
    ),
    "gdn": ("exact", "tf_slim.gdn", ""),
    "group_norm": ("exact", "tf_slim.group_norm", ""),
    "images_to_sequence": ("exact", "tf_slim.images_to_sequence", ""),
    "infer_real_valued_columns": ("none", "", ""),
    "input_from_feature_columns": ("none", "", ""),
    "instance_norm": ("exact", "tf_slim.instance_norm", ""),
    "joint_weighted_sum_from_feature_columns": ("none", "", ""),
    "l1_l2_regularizer": ("exact", "tf_slim.l1_l2_regularizer", ""),
    "l1_regularizer": (
        "exact",
        "tf.keras.regularizers.l1",
        "tf.keras.regularizers.l1(scale)",
    ),
    "l2_regularizer": (
        "exact",
        "tf.nn.l2_loss",
        "lambda w: scale * tf.nn.l2_loss(w) (the same value), or "
        "tf.keras.regularizers.l2(scale / 2)",
    ),
    "layer_norm": ("exact", "tf_slim.layer_norm", ""),
    "legacy_fully_connected": ("exact", "tf_slim.legacy_fully_connected", ""),
    "legacy_linear": ("exact", "tf_slim.legacy_linear", ""),
    "legacy_relu": ("exact", "tf_slim.legacy_relu", ""),
    "linear": ("exact", "tf_slim.linear", ""),
    "make_place_holder_tensors_for_base_features": ("none", "", ""),
    "max_pool2d": (
        "exact",
        "tf.compat.v1.layers.max_pooling2d",
        "tf.compat.v1.layers.max_pooling2d(inputs, pool_size, "
        "strides=2) (contrib's default stride is 2)",
    ),
    "max_pool3d": ("exact", "tf_slim.max_pool3d", ""),
    "maxout": ("exact", "tf_slim.maxout", ""),
    "multi_class_target": ("none", "", ""),
    "one_hot_column": ("none", "", ""),
    "one_hot_encoding": ("exact", "tf_slim.one_hot_encoding", ""),
    "optimize_loss": ("exact", "tf_slim.optimize_loss", ""),
    "parse_feature_columns_from_examples": ("none", "", ""),
    "parse_feature_columns_from_sequence_examples": ("none", "", ""),
    "real_valued_column": ("none", "", ""),
    "recompute_grad": ("exact", "tf_slim.recompute_grad", ""),
    "regression_target": ("none", "", ""),
    "relu": ("exact", "tf_slim.relu", ""),
    "relu6": ("exact", "tf_slim.relu6", ""),
    "repeat": ("exact", "tf_slim.repeat", ""),
    "rev_block": ("exact", "tf_slim.rev_block", ""),
    "safe_embedding_lookup_sparse": (
        "none",
        "tf.nn.safe_embedding_lookup_sparse",
        "tf.nn.safe_embedding_lookup_sparse has its "
        "name, but it takes (embedding_weights, "
        "sparse_ids, sparse_weights, combiner, "
        "default_id, max_norm, name, "
        "allow_fast_lookup), contrib's took "
        "(embedding_weights, sparse_ids, "
        "sparse_weights, combiner, default_id, name, "
        "partition_strategy, max_norm)",
    ),
    "scale_gradient": ("exact", "tf_slim.scale_gradient", ""),
    "scattered_embedding_column": ("none", "", ""),
    "separable_conv2d": ("exact", "tf_slim.separable_conv2d", ""),
    "separable_convolution2d": ("exact", "tf_slim.separable_convolution2d", ""),
    "sequence_input_from_feature_columns": ("none", "", ""),
    "sequence_to_images": ("exact", "tf_slim.sequence_to_images", ""),
    "shared_embedding_columns": ("none", "", ""),
    "softmax": ("exact", "tf_slim.softmax", ""),
    "sparse_column_with_hash_bucket": ("none", "", ""),
    "sparse_column_with_integerized_feature": ("none", "", ""),
    "sparse_column_with_keys": ("none", "", ""),
    "sparse_column_with_vocabulary_file": ("none", "", ""),
    "spatial_softmax": ("exact", "tf_slim.spatial_softmax", ""),
    "stack": ("exact", "tf_slim.stack", ""),
    "sum_regularizer": ("exact", "tf_slim.sum_regularizer", ""),
    "summarize_activation": ("exact", "tf_slim.summarize_activation", ""),
    "summarize_activations": ("exact", "tf_slim.summarize_activations", ""),
    "summarize_collection": ("exact", "tf_slim.summarize_collection", ""),
    "summarize_tensor": ("exact", "tf_slim.summarize_tensor", ""),
    "summarize_tensors": ("exact", "tf_slim.summarize_tensors", ""),
    "transform_features": ("none", "", ""),
    "unit_norm": ("exact", "tf_slim.unit_norm", ""),
    "variance_scaling_initializer": (
        "exact",
        "tf.compat.v1.variance_scaling_initializer",
        "tf.compat.v1.variance_scaling_initializer(scale=factor "
        "(contrib's default 2.0), mode=mode.lower() "
        "(default 'fan_in'), distribution='uniform' "
        "if uniform else 'truncated_normal')",
    ),
    "weighted_sparse_column": ("none", "", ""),
    "weighted_sum_from_feature_columns": ("none", "", ""),
    "xavier_initializer": ("exact", "tf.compat.v1.glorot_uniform_initializer", ""),
    "xavier_initializer_conv2d": ("exact", "tf_slim.xavier_initializer_conv2d", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.layers.python.layers.embedding_ops": {
        "embedding_lookup_unique": "embedding_lookup_unique",
        "safe_embedding_lookup_sparse": "safe_embedding_lookup_sparse",
    },
    "tf.contrib.layers.python.layers.encoders": {
        "bow_encoder": "bow_encoder",
        "embed_sequence": "embed_sequence",
    },
    "tf.contrib.layers.python.layers.feature_column": {
        "bucketized_column": "bucketized_column",
        "create_feature_spec_for_parsing": "create_feature_spec_for_parsing",
        "crossed_column": "crossed_column",
        "embedding_column": "embedding_column",
        "make_place_holder_tensors_for_base_features": "make_place_holder_tensors_for_base_features",
        "one_hot_column": "one_hot_column",
        "real_valued_column": "real_valued_column",
        "scattered_embedding_column": "scattered_embedding_column",
        "shared_embedding_columns": "shared_embedding_columns",
        "sparse_column_with_hash_bucket": "sparse_column_with_hash_bucket",
        "sparse_column_with_integerized_feature": "sparse_column_with_integerized_feature",
        "sparse_column_with_keys": "sparse_column_with_keys",
        "sparse_column_with_vocabulary_file": "sparse_column_with_vocabulary_file",
        "weighted_sparse_column": "weighted_sparse_column",
    },
    "tf.contrib.layers.python.layers.feature_column_ops": {
        "check_feature_columns": "check_feature_columns",
        "infer_real_valued_columns": "infer_real_valued_columns",
        "input_from_feature_columns": "input_from_feature_columns",
        "joint_weighted_sum_from_feature_columns": "joint_weighted_sum_from_feature_columns",
        "parse_feature_columns_from_examples": "parse_feature_columns_from_examples",
        "parse_feature_columns_from_sequence_examples": "parse_feature_columns_from_sequence_examples",
        "sequence_input_from_feature_columns": "sequence_input_from_feature_columns",
        "transform_features": "transform_features",
        "weighted_sum_from_feature_columns": "weighted_sum_from_feature_columns",
    },
    "tf.contrib.layers.python.layers.initializers": {
        "variance_scaling_initializer": "variance_scaling_initializer",
        "xavier_initializer": "xavier_initializer_conv2d",
    },
    "tf.contrib.layers.python.layers.layers": {
        "GDN": "GDN",
        "avg_pool2d": "avg_pool2d",
        "avg_pool3d": "avg_pool3d",
        "batch_norm": "batch_norm",
        "bias_add": "bias_add",
        "convolution": "convolution",
        "convolution1d": "convolution1d",
        "convolution2d": "convolution2d",
        "convolution2d_in_plane": "convolution2d_in_plane",
        "convolution2d_transpose": "convolution2d_transpose",
        "convolution3d": "convolution3d",
        "convolution3d_transpose": "convolution3d_transpose",
        "dense_to_sparse": "dense_to_sparse",
        "dropout": "dropout",
        "elu": "elu",
        "flatten": "flatten",
        "fully_connected": "fully_connected",
        "gdn": "gdn",
        "images_to_sequence": "images_to_sequence",
        "layer_norm": "layer_norm",
        "legacy_fully_connected": "legacy_fully_connected",
        "legacy_linear": "legacy_linear",
        "legacy_relu": "legacy_relu",
        "linear": "linear",
        "max_pool2d": "max_pool2d",
        "max_pool3d": "max_pool3d",
        "maxout": "maxout",
        "one_hot_encoding": "one_hot_encoding",
        "relu": "relu",
        "relu6": "relu6",
        "repeat": "repeat",
        "scale_gradient": "scale_gradient",
        "separable_convolution2d": "separable_convolution2d",
        "sequence_to_images": "sequence_to_images",
        "softmax": "softmax",
        "spatial_softmax": "spatial_softmax",
        "stack": "stack",
        "unit_norm": "unit_norm",
    },
    "tf.contrib.layers.python.layers.normalization": {
        "group_norm": "group_norm",
        "instance_norm": "instance_norm",
    },
    "tf.contrib.layers.python.layers.optimizers": {
        "OPTIMIZER_CLS_NAMES": "OPTIMIZER_CLS_NAMES",
        "OPTIMIZER_SUMMARIES": "OPTIMIZER_SUMMARIES",
        "optimize_loss": "optimize_loss",
    },
    "tf.contrib.layers.python.layers.regularizers": {
        "apply_regularization": "apply_regularization",
        "l1_l2_regularizer": "l1_l2_regularizer",
        "l1_regularizer": "l1_regularizer",
        "l2_regularizer": "l2_regularizer",
        "sum_regularizer": "sum_regularizer",
    },
    "tf.contrib.layers.python.layers.rev_block_lib": {
        "RevBlock": "RevBlock",
        "recompute_grad": "recompute_grad",
        "rev_block": "rev_block",
    },
    "tf.contrib.layers.python.layers.summaries": {
        "summarize_activation": "summarize_activation",
        "summarize_activations": "summarize_activations",
        "summarize_collection": "summarize_collection",
        "summarize_tensor": "summarize_tensor",
        "summarize_tensors": "summarize_tensors",
    },
    "tf.contrib.layers.python.layers.target_column": {
        "multi_class_target": "multi_class_target",
        "regression_target": "regression_target",
    },
    "tf.contrib.layers.python.ops.sparse_feature_cross_op": {
        "SPARSE_FEATURE_CROSS_DEFAULT_HASH_KEY": "SPARSE_FEATURE_CROSS_DEFAULT_HASH_KEY"
    },
}
