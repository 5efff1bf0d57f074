"""tf.contrib.framework.local_variable onto tf.compat.v1.Variable: a local,
non-trainable variable, as contrib made it (tf_slim's copy crashes on TF 2.21)."""

import importlib.util

import pytest
from migrate_helpers import CORPUS, ROOT, fix_source, run_fixed

from estimator_multigpu.migrate import _api_changes, _contrib_surface

SCRIPT = CORPUS / "contrib_local_variable.py"
SYMBOL = "tf.contrib.framework.local_variable"
LOCALS = "trainable=False, collections=[tf.compat.v1.GraphKeys.LOCAL_VARIABLES]"


def _fixed(tmp_path, source):
    return fix_source(tmp_path, "import tensorflow as tf\n" + source)


def test_the_row_is_tf_compat_v1_variable_in_the_table_and_the_override():
    row = _contrib_surface.row(SYMBOL)
    assert (row.outcome, row.successor) == ("exact", "tf.compat.v1.Variable")
    spec = importlib.util.spec_from_file_location(
        "contrib_fates", ROOT / "tools" / "contrib_fates.py"
    )
    fates = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fates)
    assert fates.OVERRIDES[SYMBOL][:2] == ("exact", "tf.compat.v1.Variable")


@pytest.mark.parametrize(
    "call, expected",
    [
        (
            "tf.contrib.framework.local_variable(x)",
            f"tf.compat.v1.Variable(x, {LOCALS})",
        ),
        (
            "tf.contrib.framework.local_variable(x, False, 'n', True)",
            "tf.compat.v1.Variable(x, validate_shape=False, name='n', "
            f"use_resource=True, {LOCALS})",
        ),
        (
            "tf.contrib.framework.local_variable(initial_value=x, name='n')",
            f"tf.compat.v1.Variable(initial_value=x, name='n', {LOCALS})",
        ),
    ],
    ids=["value", "positional", "keywords"],
)
def test_a_call_becomes_a_local_variable(tmp_path, call, expected):
    result = _fixed(tmp_path, f"v = {call}\n")
    assert f"v = {expected}\n" in result.rewritten
    assert all(f.fixed for f in result.findings)


@pytest.mark.parametrize(
    "use",
    [
        "make = tf.contrib.framework.local_variable\n",
        "v = tf.contrib.framework.local_variable(x, trainable=True)\n",
        "v = tf.contrib.framework.local_variable(*args)\n",
        "v = tf.contrib.framework.local_variable(x, **options)\n",
    ],
    ids=["not_called", "sets_trainable", "starred", "double_starred"],
)
def test_a_use_the_rows_cannot_map_is_left(tmp_path, use):
    result = _fixed(tmp_path, use)
    assert result.rewritten is None or "local_variable" in result.rewritten
    assert not any(f.fixed for f in result.findings if f.api == SYMBOL)


def test_the_finding_says_what_the_rewrite_adds(tmp_path):
    described = _api_changes.describe(SYMBOL)
    assert described == (
        "positional validate_shape=, name=, use_resource= by keyword; "
        "trainable=False, collections=[tf.compat.v1.GraphKeys.LOCAL_VARIABLES] "
        "added"
    )
    [finding] = _fixed(
        tmp_path, "v = tf.contrib.framework.local_variable(x)\n"
    ).findings
    assert finding.rule.replacement.startswith(f"tf.compat.v1.Variable ({described};")


def test_the_rewritten_corpus_script_runs_on_tf2(tmp_path):
    out = run_fixed(SCRIPT.name, tmp_path, all_fixed=True, timeout=240)
    assert out.splitlines() == [
        "seen 3",
        "total [6.0, 6.0]",
        "local ['Variable', 'seen']",
        "global ['weight']",
        "trainable ['weight']",
    ]
