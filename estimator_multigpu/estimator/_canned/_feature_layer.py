"""The DNN's input layer, with `tf.feature_column.shared_embeddings` columns.

`tf.compat.v1.feature_column.input_layer` refuses the v2 shared-embedding
columns (`tf.feature_column.shared_embeddings`); tf.estimator's v2 DNN read
them with Keras's `DenseFeatures`. As there, the columns' outputs are
concatenated in the order of their names; the shared table is the
variable its creator names (`<a>_<b>_shared_embedding`, outside the `dnn`
scope), and, as tf.estimator's v2 DNN did (the table is not one of its
Keras model's variables), it is not trained: only warm-started or restored.
"""

from __future__ import annotations

import tensorflow as tf

# Variables the canned heads leave out of training (see `untrained_variables`).
UNTRAINED = "emg_canned_untrained_variables"
_COMBINERS = ("mean", "sum", "sqrtn")
_warned = []


def is_v2_shared(column) -> bool:
    """Whether `column` came from `tf.feature_column.shared_embeddings`."""
    return hasattr(column, "shared_embedding_column_creator")


def untrained_variables() -> list:
    """The variables of this graph that the canned heads do not train."""
    return tf.compat.v1.get_collection(UNTRAINED)


def _check_column(column) -> None:
    categorical = column.categorical_column
    if column.max_norm is not None or column.combiner not in _COMBINERS:
        raise ValueError(
            f"A tf.feature_column.shared_embeddings column ({column.name}) is "
            f"read here with max_norm=None and a combiner of {_COMBINERS}; "
            f"received max_norm={column.max_norm!r}, combiner="
            f"{column.combiner!r}. Use tf.compat.v1.feature_column."
            "shared_embedding_columns for other settings."
        )
    if column.combiner == "sqrtn" and hasattr(categorical, "weight_feature_key"):
        raise ValueError(
            f"A tf.feature_column.shared_embeddings column ({column.name}) of a "
            "weighted categorical column is read here with combiner 'mean' or "
            "'sum', not 'sqrtn'; use tf.compat.v1.feature_column."
            "shared_embedding_columns for 'sqrtn'."
        )


def _shared_embedding(features, column, root_scope) -> tf.Tensor:
    """`[batch_size, dimension]`: the combined embedding of `column`'s ids."""
    _check_column(column)
    with tf.compat.v1.variable_scope(f"{column.name}_ids"):
        # Per example, how often (or with what weight) each bucket occurs.
        counts = tf.compat.v1.feature_column.input_layer(
            features, [tf.feature_column.indicator_column(column.categorical_column)]
        )
    with tf.compat.v1.variable_scope(root_scope, auxiliary_name_scope=False):
        table = column.shared_embedding_column_creator.embedding_weights
    if all(v is not table for v in untrained_variables()):
        tf.compat.v1.add_to_collection(UNTRAINED, table)
        if not _warned:
            _warned.append(True)
            tf.get_logger().warning(
                "The tf.feature_column.shared_embeddings table %s is not "
                "trained (as tf.estimator's v2 DNN did not train it); build the "
                "columns with tf.compat.v1.feature_column.shared_embedding_columns "
                "to train it.",
                table.name,
            )
    summed = tf.matmul(counts, tf.convert_to_tensor(table))
    if column.combiner == "sum":
        return summed
    total = tf.reduce_sum(counts, axis=1, keepdims=True)
    if column.combiner == "sqrtn":
        total = tf.sqrt(total)
    return tf.math.divide_no_nan(summed, total)


def input_layer(features, columns, root_scope) -> tf.Tensor:
    """`tf.compat.v1.feature_column.input_layer`, v2 shared embeddings too.

    Args:
      features: the input_fn's feature dict.
      columns: dense feature columns.
      root_scope: the variable scope the model_fn was called in (where the
        shared tables live).
    """
    shared = [c for c in columns if is_v2_shared(c)]
    if not shared:
        return tf.compat.v1.feature_column.input_layer(features, columns)
    others = [c for c in columns if not is_v2_shared(c)]
    outputs = {}
    if others:
        by_column = {}
        tf.compat.v1.feature_column.input_layer(
            features, others, cols_to_output_tensors=by_column
        )
        outputs.update({c.name: t for c, t in by_column.items()})
    for column in shared:
        outputs[column.name] = _shared_embedding(features, column, root_scope)
    return tf.concat([outputs[name] for name in sorted(outputs)], axis=1)
