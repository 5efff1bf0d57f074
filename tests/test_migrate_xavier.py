"""tf.contrib.layers.xavier_initializer onto tf.compat.v1.glorot_uniform_initializer:
contrib's default (uniform=True) is dropped, seed and dtype kept by keyword;
any other uniform is left for a person."""

import pytest
from migrate_helpers import CORPUS, assert_fix_is_final, fix_source, run_fixed

SCRIPT = CORPUS / "contrib_xavier_init.py"
GLOROT = "tf.compat.v1.glorot_uniform_initializer"


def _fixed(tmp_path, source):
    return fix_source(tmp_path, "import tensorflow as tf\n" + source)


@pytest.mark.parametrize(
    "call, expected",
    [
        ("tf.contrib.layers.xavier_initializer()", f"{GLOROT}()"),
        ("tf.contrib.layers.xavier_initializer(True)", f"{GLOROT}()"),
        ("tf.contrib.layers.xavier_initializer(True, 7)", f"{GLOROT}(seed=7)"),
        (
            "tf.contrib.layers.xavier_initializer(seed=1, uniform=True, dtype=d)",
            f"{GLOROT}(seed=1, dtype=d)",
        ),
        (
            "tf.contrib.layers.xavier_initializer(uniform=True)",
            f"{GLOROT}()",
        ),
        ("tf.contrib.layers.xavier_initializer(seed=s)", f"{GLOROT}(seed=s)"),
        # The only argument, with a trailing comma (and a comment): the comma
        # goes with it, or the call would be `f(, ...)`.
        (
            "tf.contrib.layers.xavier_initializer(\n    uniform=True,  # keep\n)",
            f"{GLOROT}(\n      # keep\n)",
        ),
        ("tf.contrib.layers.xavier_initializer(True ,)", f"{GLOROT}()"),
    ],
    ids=[
        "bare",
        "positional_default",
        "positional_seed",
        "keywords",
        "only_uniform",
        "seed",
        "only_uniform_trailing_comma_comment",
        "only_positional_trailing_comma",
    ],
)
def test_the_uniform_form_becomes_glorot_uniform(tmp_path, call, expected):
    result = _fixed(tmp_path, f"init = {call}\n")
    assert f"init = {expected}\n" in result.rewritten
    assert all(f.fixed for f in result.findings)


@pytest.mark.parametrize(
    "use",
    [
        "init = tf.contrib.layers.xavier_initializer(False)\n",
        "init = tf.contrib.layers.xavier_initializer(uniform=flag)\n",
        "init = tf.contrib.layers.xavier_initializer(*args)\n",
        "init = tf.contrib.layers.xavier_initializer(**options)\n",
        "make = tf.contrib.layers.xavier_initializer\n",
    ],
    ids=["normal", "unknown_uniform", "starred", "double_starred", "not_called"],
)
def test_a_call_that_is_not_the_uniform_form_is_left(tmp_path, use):
    result = _fixed(tmp_path, use)
    assert result.rewritten is None or "xavier_initializer" in result.rewritten
    assert not any(f.fixed for f in result.findings if "xavier" in f.api)


def test_the_finding_says_what_is_dropped(tmp_path):
    [finding] = _fixed(
        tmp_path, "init = tf.contrib.layers.xavier_initializer()\n"
    ).findings
    assert finding.rule.replacement == (
        f"{GLOROT} (uniform=True (contrib's default) dropped: another uniform "
        "is left for you (uniform=False: tf.compat.v1.glorot_normal_initializer); "
        "positional seed=, dtype= by keyword; emg-migrate --fix writes it)"
    )


def test_a_second_fix_changes_nothing(tmp_path):
    assert_fix_is_final(SCRIPT.name, tmp_path)


@pytest.mark.slow
def test_the_rewritten_corpus_script_runs_on_tf2(tmp_path):
    out = run_fixed(SCRIPT.name, tmp_path, all_fixed=True, timeout=240)
    assert out.splitlines() == [
        "w within limit True spread True",
        "v within limit True",
        "u float32 (4, 4)",
    ]
