"""A static dimension divided with `/` (`x.get_shape()[-1] / group`): Python
2's `/` floor-divided a TF 1.x Dimension, Python 3's raises TypeError under
the compat.v1 port; --fix writes `//`."""

import pytest
from migrate_helpers import CORPUS, RuleCorpus, fix_source

from estimator_multigpu.migrate import _dimension_division, _float_dims

CHECKS = RuleCorpus(
    _dimension_division.RULE_ID,
    CORPUS / "caffe_style_dimension_division.py",
    _dimension_division.ANCHOR,
)
_ours = CHECKS.ours


def _fix(tmp_path, body):
    return fix_source(tmp_path, "import tensorflow as tf\n" + body)


@pytest.mark.parametrize(
    "body, written",
    [
        ("h = x.get_shape()[1] / 2\n", "h = x.get_shape()[1] // 2\n"),
        ("h = x.get_shape()[-1]/g\n", "h = x.get_shape()[-1]//g\n"),
        (
            "def f(x, g):\n    c_i = x.get_shape()[-1]\n    return c_i / g\n",
            "    return c_i // g\n",
        ),
        (
            "def f(x, g):\n    c = x.get_shape()[3]\n"
            "    return tf.get_variable('w', [3, 3, c / g, 8])\n",
            "    return tf.get_variable('w', [3, 3, c // g, 8])\n",
        ),
        ("h = (x.get_shape()[1]\n     / 2)\n", "h = (x.get_shape()[1]\n     // 2)\n"),
    ],
    ids=["subscript", "unspaced", "bound_name", "in_a_shape", "over_lines"],
)
def test_a_dimension_divided_with_slash_becomes_floor_division(tmp_path, body, written):
    result = _fix(tmp_path, "x, g = None, 2\n" + body)
    assert written in result.rewritten
    [finding] = _ours(result)
    assert finding.fixed and finding.rule.fixable


def test_a_dimension_in_a_static_shape_is_not_also_wrapped_in_int(tmp_path):
    # int(c / g) would still raise: the `/` of a Dimension runs first.
    result = _fix(tmp_path, "c = x.get_shape()[3]\nw = tf.get_variable('w', [c / 2])\n")
    assert "[c // 2]" in result.rewritten
    assert not [f for f in result.findings if f.rule.rule_id == _float_dims.RULE_ID]


@pytest.mark.parametrize(
    "body",
    [
        "h = x.shape[1] / 2\n",  # a NumPy array's shape too: an int
        "h = x.get_shape()[1:3] / 2\n",  # a slice: a TensorShape
        "h = x.get_shape().as_list()[1] / 2\n",  # an int or None
        "def f(c_i):\n    return c_i / 2\n",  # a parameter
        "c = x.get_shape()[1]\nc = 3.0\nh = c / 2\n",  # bound twice
        "def f(x):\n    c = x.get_shape()[1]\n\ndef g(c):\n    return c / 2\n",
        "h = 2 / x.get_shape()[1]\n",  # Dimension.__rtruediv__ is TF's own
        "h = x.get_shape()[1] // 2\n",
    ],
    ids=[
        "shape_attribute",
        "slice",
        "as_list",
        "parameter",
        "bound_twice",
        "other_function",
        "divisor",
        "already_floor",
    ],
)
def test_other_divisions_are_left(tmp_path, body):
    result = _fix(tmp_path, "x = None\n" + body)
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
        "rank 4 channels 6",
        "conv1/weights:0 [3, 3, 4, 4]",
        "conv2/weights:0 [3, 3, 2, 6]",
        "pooled [2, 4, 4, 6]",
    ]
    CHECKS.assert_fails_unfixed(
        tmp_path,
        "c_i // group",
        "c_i / group",
        "unsupported operand type(s) for /: 'Dimension' and 'int'",
    )
