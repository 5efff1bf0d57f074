"""emg.inputs.lookup: tf.contrib.lookup's table builders, argument for argument,
give the ids TF 2.x's public tables give for the same vocabulary."""

import pytest
import tensorflow as tf

from estimator_multigpu.inputs import lookup

KEYS = ["New", "York", "Paris", "", "London"]


def _run(*tensors):
    with tf.compat.v1.Session() as sess:
        sess.run(tf.compat.v1.tables_initializer())
        return [sess.run(t).tolist() for t in tensors]


@pytest.fixture
def vocab(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("New\nLondon\nYork\n")
    return str(path)


def test_file_tables_match_the_public_vocabulary_table(vocab):
    with tf.Graph().as_default():
        keys = tf.constant(KEYS)
        ours = lookup.index_table_from_file(vocab, num_oov_buckets=3)
        public = tf.lookup.StaticVocabularyTable(
            tf.lookup.TextFileInitializer(
                vocab,
                tf.string,
                tf.lookup.TextFileIndex.WHOLE_LINE,
                tf.int64,
                tf.lookup.TextFileIndex.LINE_NUMBER,
            ),
            num_oov_buckets=3,
        )
        got, want = _run(ours.lookup(keys), public.lookup(keys))
    assert got == want
    assert got[:2] == [0, 2] and got[4] == 1


def test_contribs_mapping_keyword_and_defaults(vocab):
    with tf.Graph().as_default():
        ids = lookup.index_table_from_tensor(mapping=["O", "B"], default_value=-7)
        older = lookup.string_to_index_table_from_tensor(["O", "B"], num_oov_buckets=1)
        names = lookup.index_to_string_table_from_file(vocab, default_value="?")
        got = _run(
            ids.lookup(tf.constant(["B", "I"])),
            older.lookup(tf.constant(["O", "I"])),
            names.lookup(tf.constant([2, 3], tf.int64)),
            lookup.string_to_index(tf.constant(["B"]), mapping=["O", "B"]),
            lookup.index_to_string(tf.constant([0, 5], tf.int64), ["O", "B"]),
        )
    assert got == [[1, -7], [0, 2], [b"York", b"?"], [1], [b"O", b"UNK"]]


def test_a_missing_mapping_is_refused_as_contrib_did():
    with pytest.raises(ValueError, match="mapping must be specified"):
        lookup.index_table_from_tensor(None)
    with pytest.raises(ValueError, match="requires string"):
        with tf.Graph().as_default():
            lookup.string_to_index_table_from_tensor([1, 2])


def test_hasher_specs_are_tensorflows():
    assert lookup.FastHashSpec.hasher == "fasthash"
    assert lookup.StrongHashSpec is not None
    with pytest.raises(AttributeError):
        lookup.no_such_name  # noqa: B018
