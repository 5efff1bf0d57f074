"""tf.contrib.lookup's table builders, with TF 1.x's arguments, on TF 2.x.

TF 2.x kept TF 1.x's lookup-table code (its feature columns build their
tables with it) but no public name for `index_table_from_file` and the rest:
each function here is tf.contrib.lookup's, argument for argument (contrib's
own `mapping=` where contrib took it, core's `vocabulary_list=` never), and
builds the same tables. In graph mode their initializers join
`tf.compat.v1.tables_initializer()`, which an Estimator's scaffold runs.
"""

from __future__ import annotations

import tensorflow as tf

from estimator_multigpu._tf_internals import lookup_ops as _lookup_ops

# The hasher specs (FastHashSpec, HasherSpec, StrongHashSpec) are TensorFlow's
# own, read on first use (`__getattr__`), so they are not in __all__.
_SPECS = ("FastHashSpec", "HasherSpec", "StrongHashSpec")
__all__ = [
    "index_table_from_file",
    "index_table_from_tensor",
    "index_to_string",
    "index_to_string_table_from_file",
    "index_to_string_table_from_tensor",
    "string_to_index",
    "string_to_index_table_from_file",
    "string_to_index_table_from_tensor",
]


def __getattr__(name):
    """The hasher specs, read from TensorFlow when first used."""
    if name in _SPECS:
        return getattr(_lookup_ops(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _fast():
    return _lookup_ops().FastHashSpec


def index_table_from_file(
    vocabulary_file=None,
    num_oov_buckets=0,
    vocab_size=None,
    default_value=-1,
    hasher_spec=None,
    key_dtype=None,
    name=None,
    key_column_index=-2,
    value_column_index=-1,
    delimiter="\t",
):
    """A table mapping the keys of `vocabulary_file` (one a line) to int64 ids.

    Out-of-vocabulary keys get `default_value`, or with `num_oov_buckets` a
    hash bucket after the vocabulary (`hasher_spec`, fast hashing by default).
    `key_column_index`/`value_column_index` are -2 (the whole line) and -1
    (the line number) by default, as in TF 1.x.

    Args:
      vocabulary_file: the vocabulary file's path (a string).
      num_oov_buckets: hash buckets for keys out of the vocabulary (0: none).
      vocab_size: the number of vocabulary entries to read (None: all).
      default_value: the value of a key (or id) the table does not hold.
      hasher_spec: how out-of-vocabulary keys are hashed (`FastHashSpec` by default).
      key_dtype: the keys' dtype (tf.string by default).
      name: a name for the table's ops.
      key_column_index: the column of each line that holds the key (-2: the whole line).
      value_column_index: the column of each line that holds the value (-1: the line number).
      delimiter: the column delimiter of each line.
    """
    return _lookup_ops().index_table_from_file(
        vocabulary_file=vocabulary_file,
        num_oov_buckets=num_oov_buckets,
        vocab_size=vocab_size,
        default_value=default_value,
        hasher_spec=hasher_spec or _fast(),
        key_dtype=key_dtype or tf.string,
        name=name,
        key_column_index=key_column_index,
        value_column_index=value_column_index,
        delimiter=delimiter,
    )


def index_table_from_tensor(
    mapping,
    num_oov_buckets=0,
    default_value=-1,
    hasher_spec=None,
    dtype=None,
    name=None,
):
    """A table mapping each element of the 1-D `mapping` to its index (int64).

    Args:
      mapping: a 1-D tensor of the vocabulary's keys (strings, or ints where the keys are).
      num_oov_buckets: hash buckets for keys out of the vocabulary (0: none).
      default_value: the value of a key (or id) the table does not hold.
      hasher_spec: how out-of-vocabulary keys are hashed (`FastHashSpec` by default).
      dtype: the keys' dtype (tf.string by default).
      name: a name for the table's ops.
    """
    if mapping is None:
        raise ValueError("mapping must be specified.")
    return _lookup_ops().index_table_from_tensor(
        vocabulary_list=mapping,
        num_oov_buckets=num_oov_buckets,
        default_value=default_value,
        hasher_spec=hasher_spec or _fast(),
        dtype=dtype or tf.string,
        name=name,
    )


def index_to_string_table_from_file(
    vocabulary_file,
    vocab_size=None,
    default_value="UNK",
    name=None,
    key_column_index=-1,
    value_column_index=-2,
    delimiter="\t",
):
    """A table mapping int64 ids to the lines of `vocabulary_file`.

    Args:
      vocabulary_file: the vocabulary file's path (a string).
      vocab_size: the number of vocabulary entries to read (None: all).
      default_value: the value of a key (or id) the table does not hold.
      name: a name for the table's ops.
      key_column_index: the column of each line that holds the id (-1: the line number).
      value_column_index: the column of each line that holds the string (-2: the whole line).
      delimiter: the column delimiter of each line.
    """
    return _lookup_ops().index_to_string_table_from_file(
        vocabulary_file=vocabulary_file,
        vocab_size=vocab_size,
        default_value=default_value,
        name=name,
        key_column_index=key_column_index,
        value_column_index=value_column_index,
        delimiter=delimiter,
    )


def index_to_string_table_from_tensor(mapping, default_value="UNK", name=None):
    """A table mapping int64 ids to the elements of the 1-D string `mapping`.

    Args:
      mapping: a 1-D tensor of the vocabulary's keys (strings, or ints where the keys are).
      default_value: the value of a key (or id) the table does not hold.
      name: a name for the table's ops.
    """
    if mapping is None:
        raise ValueError("mapping must be specified.")
    return _lookup_ops().index_to_string_table_from_tensor(
        vocabulary_list=mapping, default_value=default_value, name=name
    )


def string_to_index(tensor, mapping, default_value=-1, name=None):
    """The int64 index of each string of `tensor` in `mapping`.

    Args:
      tensor: the keys (or ids) to look up.
      mapping: a 1-D tensor of the vocabulary's keys (strings, or ints where the keys are).
      default_value: the value of a key (or id) the table does not hold.
      name: a name for the table's ops.
    """
    table = index_table_from_tensor(
        mapping=mapping, default_value=default_value, name=name
    )
    return table.lookup(tensor)


def index_to_string(tensor, mapping, default_value="UNK", name=None):
    """The string of `mapping` at each int64 index of `tensor`.

    Args:
      tensor: the keys (or ids) to look up.
      mapping: a 1-D tensor of the vocabulary's keys (strings, or ints where the keys are).
      default_value: the value of a key (or id) the table does not hold.
      name: a name for the table's ops.
    """
    table = index_to_string_table_from_tensor(
        mapping=mapping, default_value=default_value, name=name
    )
    return table.lookup(tensor)


def string_to_index_table_from_file(
    vocabulary_file=None,
    num_oov_buckets=0,
    vocab_size=None,
    default_value=-1,
    hasher_spec=None,
    name=None,
):
    """TF 1.x's older name of `index_table_from_file` for string keys.

    Args:
      vocabulary_file: the vocabulary file's path (a string).
      num_oov_buckets: hash buckets for keys out of the vocabulary (0: none).
      vocab_size: the number of vocabulary entries to read (None: all).
      default_value: the value of a key (or id) the table does not hold.
      hasher_spec: how out-of-vocabulary keys are hashed (`FastHashSpec` by default).
      name: a name for the table's ops.
    """
    return index_table_from_file(
        vocabulary_file,
        num_oov_buckets,
        vocab_size,
        default_value,
        hasher_spec,
        name=name,
    )


def string_to_index_table_from_tensor(
    mapping, num_oov_buckets=0, default_value=-1, hasher_spec=None, name=None
):
    """TF 1.x's older name of `index_table_from_tensor` for string keys.

    Args:
      mapping: a 1-D tensor of the vocabulary's keys (strings, or ints where the keys are).
      num_oov_buckets: hash buckets for keys out of the vocabulary (0: none).
      default_value: the value of a key (or id) the table does not hold.
      hasher_spec: how out-of-vocabulary keys are hashed (`FastHashSpec` by default).
      name: a name for the table's ops.
    """
    with tf.compat.v1.name_scope(name, "string_to_index") as scope:
        mapping = tf.convert_to_tensor(mapping)
    if mapping.dtype.base_dtype != tf.string:
        raise ValueError("string_to_index_table_from_tensor requires string.")
    return index_table_from_tensor(
        mapping, num_oov_buckets, default_value, hasher_spec, name=scope
    )
