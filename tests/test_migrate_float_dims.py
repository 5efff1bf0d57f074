"""A static shape's true-division dimension (`channels / groups`): TF 1.x
took int() of it, TF 2 refuses a float; --fix wraps it in int()."""

import pytest
from migrate_helpers import CORPUS, RuleCorpus, fix_source

from estimator_multigpu.migrate import _float_dims

CHECKS = RuleCorpus(
    _float_dims.RULE_ID, CORPUS / "grouped_conv_float_dims.py", _float_dims.ANCHOR
)
_ours = CHECKS.ours


def _fix(tmp_path, body):
    return fix_source(tmp_path, "import tensorflow as tf\n" + body)


@pytest.mark.parametrize(
    "call, written",
    [
        (
            "tf.get_variable('w', shape=[3, 3, c / g, 8])",
            "tf.get_variable('w', shape=[3, 3, int(c / g), 8])",
        ),
        ("tf.get_variable('b', [n / 2])", "tf.get_variable('b', [int(n / 2)])"),
        (
            "tf.placeholder(tf.float32, (None, n / 2))",
            "tf.placeholder(tf.float32, (None, int(n / 2)))",
        ),
        (
            "tf.compat.v1.placeholder_with_default(x, [n / 2])",
            "tf.compat.v1.placeholder_with_default(x, [int(n / 2)])",
        ),
        ("tf.TensorShape([n / 2, 3])", "tf.TensorShape([int(n / 2), 3])"),
    ],
)
def test_each_static_shape_division_becomes_int(tmp_path, call, written):
    result = _fix(tmp_path, f"c, g, n, x = 6, 2, 8, None\ny = {call}\n")
    assert [f.text for f in _ours(result)] and all(f.fixed for f in _ours(result))
    assert written in result.rewritten


@pytest.mark.parametrize(
    "call",
    [
        "tf.get_variable('w', shape=[c // g, n])",  # already an int
        "tf.get_variable('w', shape=dims)",  # not a literal
        "tf.reshape(x, [-1, n / 2])",  # a tensor shape: a float fails on TF 1.x too
        "tf.get_variable('w', *args)",
    ],
)
def test_other_shapes_are_left(tmp_path, call):
    result = _fix(
        tmp_path, f"c, g, n, x, dims, args = 6, 2, 8, None, [1], ()\ny = {call}\n"
    )
    assert not _ours(result)


def test_the_corpus_script_reports_what_it_marks():
    CHECKS.assert_marked_findings()
    CHECKS.assert_guide_anchor()


def test_a_second_fix_changes_nothing(tmp_path):
    CHECKS.assert_second_fix_changes_nothing(tmp_path)


@pytest.mark.slow
def test_the_corpus_script_fails_unfixed_and_runs_fixed(tmp_path):
    out = CHECKS.run_fixed(tmp_path)
    assert out.splitlines() == [
        "conv1/weights:0 [3, 3, 4, 4]",
        "conv1/biases:0 [4]",
        "conv2/weights:0 [3, 3, 2, 6]",
        "conv2/biases:0 [6]",
        "pooled [None, 4, 4, 4]",
        "output [2, 8, 8, 6]",
    ]
    CHECKS.assert_fails_unfixed(
        tmp_path,
        "int(channels / groups)",
        "channels / groups",
        "Dimension value must be integer",
    )
