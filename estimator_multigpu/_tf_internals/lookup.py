"""The lookup-table builders TF 1.x's tf.contrib.lookup re-exported."""

from __future__ import annotations

import types

from estimator_multigpu._tf_internals._access import private


def lookup_ops() -> types.ModuleType:
    """`tensorflow.python.ops.lookup_ops`.

    Why: `index_table_from_file`, `index_table_from_tensor`,
    `index_to_string_table_from_file`/`_from_tensor`, `IdTableWithHashBuckets`
    and the hasher specs are TF 1.x's code, kept in TF 2.x (feature columns
    build their tables with them) but exported under no public name since
    tf.contrib.lookup went. Public alternative: `tf.lookup.StaticHashTable`
    with `tf.lookup.TextFileInitializer`/`KeyValueTensorInitializer`, and
    `tf.lookup.StaticVocabularyTable` for out-of-vocabulary buckets (fast
    hashing only), assembled by hand.
    """
    return private("tensorflow.python.ops.lookup_ops")
