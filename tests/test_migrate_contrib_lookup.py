"""emg-migrate --fix moves tf.contrib.lookup's table builders onto
emg.inputs.lookup, and contrib names written by module path onto their
emg drop-ins (`hparam.HParams` after `from tensorflow.contrib.training.python.
training import hparam`)."""

import pytest
from migrate_helpers import fix_with_passes, run_fixed

import estimator_multigpu as emg
from estimator_multigpu.migrate import (
    _contrib_surface,
)

EMG_ROWS = [
    _contrib_surface.row(f"tf.contrib.{m}.{n}")
    for m in _contrib_surface.MODULES
    for n in _contrib_surface.table(m).ROWS
    if _contrib_surface.fixable(f"tf.contrib.{m}.{n}")
    and _contrib_surface.row(f"tf.contrib.{m}.{n}").outcome == "emg"
]


def test_every_fixable_emg_row_names_a_drop_in_that_exists():
    assert EMG_ROWS, "no emg row --fix writes"
    for row in EMG_ROWS:
        target = emg
        for part in row.successor.split(".")[1:]:
            target = getattr(target, part)
        assert target is not None, row.symbol


def test_lookup_builders_become_the_drop_ins():
    new, findings = fix_with_passes(
        """\
        import tensorflow as tf

        def tables(path):
            words = tf.contrib.lookup.index_table_from_file(path, num_oov_buckets=1)
            tags = tf.contrib.lookup.index_table_from_tensor(
                mapping=tf.constant(['O', 'B']), hasher_spec=tf.contrib.lookup.FastHashSpec)
            names = tf.contrib.lookup.index_to_string_table_from_file(path)
            return words, tags, names
        """
    )
    assert all(f.fixed for f in findings), [f.api for f in findings if not f.fixed]
    assert "tf.contrib" not in new
    assert "import estimator_multigpu as emg\n" in new
    assert "emg.inputs.lookup.index_table_from_file(path, num_oov_buckets=1)" in new
    assert "emg.inputs.lookup.index_table_from_tensor(\n" in new
    assert (
        "mapping=tf.constant(['O', 'B']), hasher_spec=emg.inputs.lookup.FastHashSpec)"
        in new
    )
    assert "emg.inputs.lookup.index_to_string_table_from_file(path)" in new


def test_a_module_path_import_of_lookup_is_rewritten_and_dropped():
    new, findings = fix_with_passes(
        """\
        import tensorflow as tf
        from tensorflow.contrib.lookup import lookup_ops

        def table():
            return lookup_ops.index_table_from_tensor(['a', 'b'], default_value=0)
        """
    )
    assert all(f.fixed for f in findings), [f.api for f in findings if not f.fixed]
    assert "contrib" not in new
    assert (
        "emg.inputs.lookup.index_table_from_tensor(['a', 'b'], default_value=0)" in new
    )


def test_hparams_by_its_module_path_becomes_the_drop_in():
    new, findings = fix_with_passes(
        """\
        import tensorflow as tf
        from tensorflow.contrib.training.python.training import hparam

        def params(args):
            return hparam.HParams(**args.__dict__)
        """
    )
    assert all(f.fixed for f in findings), [f.api for f in findings if not f.fixed]
    assert "contrib" not in new
    assert "return emg.estimator.HParams(**args.__dict__)" in new


def test_an_emg_successor_uses_the_name_the_module_binds():
    new, _ = fix_with_passes(
        """\
        import tensorflow as tf
        import estimator_multigpu as multi

        def table(path):
            return tf.contrib.lookup.index_table_from_file(path)
        """
    )
    assert "multi.inputs.lookup.index_table_from_file(path)" in new
    assert "import estimator_multigpu as emg" not in new


@pytest.mark.slow
def test_the_rewritten_corpus_script_runs_on_tf2(tmp_path):
    """tf.contrib.lookup's builders and contrib HParams by module path, fixed, run."""
    out = run_fixed(
        "contrib_lookup_tables.py", tmp_path, str(tmp_path), all_fixed=True, timeout=240
    )
    assert out.splitlines() == [
        "words [0, 2, 3]",
        "tags [1, 0, 2]",
        "names [b'York', b'UNK']",
        "mapped [1, -1] [b'B', b'UNK']",
        "hparams 4 0.5",
    ]
