"""Imports of tf.contrib names the module never reads: --fix drops them (each
fails on TF 2.x by itself), and keeps the used names of the same statement."""

import pytest
from migrate_helpers import CORPUS, assert_fix_is_final, fix_source, run_fixed

SCRIPT = CORPUS / "contrib_unused_imports.py"


def _fixed(tmp_path, source):
    return fix_source(tmp_path, "import tensorflow as tf\n" + source)


@pytest.mark.parametrize(
    "source, kept",
    [
        (
            "from tensorflow.contrib.metrics.python.ops import set_ops\nx = tf.ones([1])\n",
            "",
        ),
        ("import tensorflow.contrib.layers as layers\nx = tf.ones([1])\n", ""),
        (
            "from tensorflow.contrib.framework.python.ops import variables as v\n"
            "x = tf.ones([1])\n",
            "",
        ),
    ],
    ids=["from_module_path", "import_as", "from_as"],
)
def test_an_unused_contrib_import_is_dropped(tmp_path, source, kept):
    result = _fixed(tmp_path, source)
    assert result.rewritten is not None, result.notes
    assert "contrib" not in result.rewritten
    imports = [f for f in result.findings if f.text.startswith("import of")]
    assert imports and all(f.fixed for f in imports)
    assert imports[0].rule.replacement == (
        "nothing: the import goes (emg-migrate --fix drops it)"
    )


def test_a_used_name_of_the_statement_stays(tmp_path):
    result = _fixed(
        tmp_path,
        "from tensorflow.contrib.framework import arg_scope, nest\n"
        "with arg_scope([]):\n    pass\n",
    )
    assert "nest" not in result.rewritten.split("with")[0]
    assert "arg_scope" in result.rewritten


@pytest.mark.parametrize(
    "source",
    [
        "from tensorflow.contrib import layers\n__all__ = ['layers']\n",
        "try:\n    from tensorflow.contrib import layers\nexcept ImportError:\n    layers = None\n",
        "from .contrib import layers\n",
    ],
    ids=["exported", "inside_a_block", "relative"],
)
def test_an_import_that_may_matter_is_kept(tmp_path, source):
    result = _fixed(tmp_path, source)
    assert result.rewritten is None or "import layers" in result.rewritten


def test_a_second_fix_changes_nothing(tmp_path):
    assert_fix_is_final(SCRIPT.name, tmp_path)


@pytest.mark.slow
def test_the_rewritten_corpus_script_runs_on_tf2(tmp_path):
    out = run_fixed(SCRIPT.name, tmp_path, all_fixed=True, timeout=240)
    assert out.splitlines() == ["ratio [0.5, 0.0]"]
