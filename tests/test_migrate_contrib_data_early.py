"""emg-migrate --fix moves the early tf.contrib.data (TF 1.2-1.3: Dataset,
Iterator and the file datasets, which TF 1.4 moved to core and TF 1.15's
tf.contrib.data no longer had) onto tf.compat.v1.data, by any spelling, and
its Dataset's dense_to_sparse_batch method onto sparse_batch."""

import pytest
from migrate_helpers import assert_fix_is_final, fix_with_passes, run_fixed

from estimator_multigpu.migrate import _contrib_surface

EARLY = ("Dataset", "Iterator", "TextLineDataset", "FixedLengthRecordDataset")


@pytest.mark.parametrize("name", EARLY)
def test_each_early_name_has_its_compat_v1_successor(name):
    row = _contrib_surface.row(f"tf.contrib.data.{name}")
    assert (row.outcome, row.successor) == ("exact", f"tf.compat.v1.data.{name}")
    assert _contrib_surface.fixable(row.symbol)


def test_dotted_uses_become_compat_v1_data():
    new, findings = fix_with_passes(
        """\
        import tensorflow as tf

        def pipeline(files, batch):
            ds = tf.contrib.data.Dataset.from_tensor_slices(files)
            lines = tf.contrib.data.TextLineDataset(files)
            records = tf.contrib.data.FixedLengthRecordDataset(files, 8)
            it = tf.contrib.data.Iterator.from_structure(ds.output_types)
            return ds, lines, records, it
        """
    )
    left = [f.api for f in findings if not f.fixed]
    assert not left, left
    assert "contrib" not in new
    assert "ds = tf.compat.v1.data.Dataset.from_tensor_slices(files)" in new
    assert "lines = tf.compat.v1.data.TextLineDataset(files)" in new
    assert "records = tf.compat.v1.data.FixedLengthRecordDataset(files, 8)" in new
    assert "tf.compat.v1.data.Iterator.from_structure(" in new


def test_from_imports_are_rewritten_and_dropped():
    new, findings = fix_with_passes(
        """\
        import tensorflow as tf
        from tensorflow.contrib.data import Dataset, Iterator

        def pipeline(x):
            ds = Dataset.from_tensor_slices(x).batch(2)
            return Iterator.from_structure(ds.output_types, ds.output_shapes)
        """
    )
    left = [f.api for f in findings if not f.fixed]
    assert not left, left
    assert "contrib" not in new
    assert "ds = tf.compat.v1.data.Dataset.from_tensor_slices(x).batch(2)" in new
    assert "return tf.compat.v1.data.Iterator.from_structure(" in new


def test_iterator_from_dataset_becomes_make_initializable_iterator():
    # TF 1.2's Iterator.from_dataset(dataset, shared_name=None): TF 1.3 made it
    # dataset.make_initializable_iterator(shared_name); tf.compat.v1.data's
    # Iterator has no from_dataset.
    new, findings = fix_with_passes(
        """\
        import tensorflow as tf

        def iterator(ds):
            return tf.contrib.data.Iterator.from_dataset(ds, shared_name="it")
        """
    )
    assert all(f.fixed for f in findings), [f.api for f in findings]
    assert (
        'return tf.compat.v1.data.make_initializable_iterator(ds, shared_name="it")'
        in new
    )


def test_the_dense_to_sparse_batch_method_becomes_sparse_batch():
    new, findings = fix_with_passes(
        """\
        import tensorflow as tf

        def batches(ds, rows):
            a = ds.dense_to_sparse_batch(2, [4])
            b = ds.map(len).dense_to_sparse_batch(batch_size=2, row_shape=rows)
            c = tf.contrib.data.dense_to_sparse_batch(2, [4])
            return a, b, c
        """
    )
    assert all(f.fixed for f in findings), [f.api for f in findings]
    assert "a = ds.sparse_batch(2, [4])" in new
    assert "b = ds.map(len).sparse_batch(batch_size=2, row_shape=rows)" in new
    assert "c = tf.data.experimental.dense_to_sparse_batch(2, [4])" in new


def test_a_dense_to_sparse_batch_with_star_arguments_is_left():
    _, findings = fix_with_passes(
        "import tensorflow as tf\nb = ds.dense_to_sparse_batch(*args)\n"
    )
    [finding] = findings
    assert finding.rule.rule_id == "dataset-sparse-batch" and not finding.fixed


@pytest.mark.slow
def test_the_rewritten_corpus_script_runs_on_tf2(tmp_path):
    out = run_fixed("contrib_data_early.py", tmp_path, all_fixed=True, timeout=240)
    assert out.splitlines() == [
        "train [0, 2] [1, 3]",
        "train [4, 6] [5, 7]",
        "lines [b'a 1', b'b 2']",
        "records [b'abcd', b'efgh']",
        "sparse [[0, 0], [1, 0], [1, 1]] [1, 2, 2]",
        "valid [1, 3] [0, 0]",
    ]


def test_the_fix_of_the_corpus_script_is_final(tmp_path):
    assert_fix_is_final("contrib_data_early.py", tmp_path)
