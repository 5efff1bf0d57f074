"""Python 2 builtins of TF 1.x-era scripts onto their Python 3 successors.

`d.iteritems()`, `d.itervalues()`, `d.iterkeys()` and a bare `xrange` parse
under Python 3 and fail only when their line runs (often after the training
did). `--fix` writes `.items()`, `.values()`, `.keys()` and `range` (and
`from functools import reduce` for the builtin `reduce`), unless the module
defines or binds the name itself.
"""

import os
import re

import pytest
from migrate_helpers import CORPUS, RuleCorpus, fix_source, run_script

from estimator_multigpu.migrate import _python2_builtins

RULE = _python2_builtins.RULE_ID
SCRIPT = CORPUS / "python2_builtins.py"
CHECKS = RuleCorpus(RULE, SCRIPT, _python2_builtins.ANCHOR)
_ours = CHECKS.ours


@pytest.mark.parametrize(
    "use, expected",
    [
        ("for k, v in d.iteritems():\n    pass\n", "for k, v in d.items():\n"),
        ("x = list(d.itervalues())\n", "x = list(d.values())\n"),
        ("x = sorted(d.iterkeys())\n", "x = sorted(d.keys())\n"),
        ("x = self.stats[k].iteritems()\n", "x = self.stats[k].items()\n"),
        ("x = d . iteritems ( )\n", "x = d . items ( )\n"),
        ("for i in xrange(3):\n    pass\n", "for i in range(3):\n"),
        ("r = xrange\n", "r = range\n"),
        ("ok = isinstance(d, basestring)\n", "ok = isinstance(d, str)\n"),
        ("s = unicode(d)\n", "s = str(d)\n"),
        ("c = unichr(65)\n", "c = chr(65)\n"),
        ("ok = isinstance(d, (int, long))\n", "ok = isinstance(d, (int, int))\n"),
        ("s = raw_input('> ')\n", "s = input('> ')\n"),
        ("s = reduce(max, [1, 2])\n", "from functools import reduce\nd = {}\n"),
    ],
    ids=[
        "iteritems",
        "itervalues",
        "iterkeys",
        "subscript",
        "spaced",
        "xrange",
        "xrange_value",
        "basestring",
        "unicode",
        "unichr",
        "long",
        "raw_input",
        "reduce",
    ],
)
def test_the_python2_spelling_becomes_its_successor(tmp_path, use, expected):
    result = fix_source(tmp_path, "d = {}\n" + use)
    assert expected in result.rewritten
    [finding] = _ours(result)
    assert finding.fixed and finding.rule.fixable


@pytest.mark.parametrize(
    "source",
    [
        "class Log:\n    def iteritems(self):\n        return []\n\n"
        "x = Log().iteritems()\n",
        "from six.moves import xrange\nfor i in xrange(3):\n    pass\n",
        "try:\n    xrange\nexcept NameError:\n    xrange = range\nr = xrange(2)\n",
        "def f(xrange):\n    return xrange(2)\n",
        "from six import iteritems\nx = iteritems({})\n",
        "x = reader.iteritems(batch)\n",
        "unicode = str\nx = unicode(3)\n",
        "x = unicode('', 'utf-8')\n",
        "x = unicode(b, encoding='utf-8')\n",
        "from functools import reduce\nx = reduce(max, [1, 2])\n",
        "def f(reduce):\n    return reduce(max, [1, 2])\n",
        "x = functools.reduce(max, [1, 2])\n",
    ],
    ids=[
        "own_method",
        "six_moves",
        "bound_fallback",
        "parameter",
        "six_function",
        "with_arguments",
        "unicode_bound",
        "unicode_decoding",
        "unicode_encoding_keyword",
        "reduce_imported",
        "reduce_parameter",
        "reduce_attribute",
    ],
)
def test_a_name_the_module_binds_or_another_call_is_left_alone(tmp_path, source):
    result = fix_source(tmp_path, source)
    assert not _ours(result)
    assert result.rewritten in (None, source)


def test_every_reduce_of_a_module_is_served_by_one_import_after_its_imports(
    tmp_path,
):
    source = (
        '"""Sizes."""\nfrom __future__ import print_function\nimport os\n\n\n'
        "def size(shape):\n    from operator import mul\n"
        "    return reduce(mul, shape, 1)\n\n\n"
        "print(size([2, 3]), reduce(lambda a, b: a + b, [1, 2]), os.sep)\n"
    )
    result = fix_source(tmp_path, source)
    assert result.rewritten == source.replace(
        "import os\n", "import os\nfrom functools import reduce\n"
    )
    assert [f.fixed for f in _ours(result)] == [True, True]
    path = tmp_path / "fixed.py"
    path.write_text(result.rewritten)
    assert run_script(path).stdout == f"6 3 {os.sep}\n"


def test_the_corpus_script_reports_exactly_its_marked_findings():
    CHECKS.assert_marked_findings()


def test_the_finding_says_the_error_and_the_successor(tmp_path):
    result = fix_source(tmp_path, "x = {}.iteritems()\nfor i in xrange(2):\n    pass\n")
    texts = sorted(f"{f.rule.summary} -> {f.rule.replacement}" for f in _ours(result))
    assert texts == [
        ".iteritems() is Python 2 only (Python 3 raises AttributeError when the "
        "line runs) -> .items() (the same iteration; emg-migrate --fix writes it)",
        "xrange is Python 2 only (Python 3 raises NameError when the line runs) "
        "-> range (the same iteration; emg-migrate --fix writes it)",
    ]
    assert all(f.rule.guide.endswith("#python-2-builtins") for f in _ours(result))


def test_the_guide_has_the_section_the_finding_links_to():
    CHECKS.assert_guide_anchor()


def test_a_second_fix_changes_nothing(tmp_path):
    CHECKS.assert_second_fix_changes_nothing(tmp_path)


@pytest.mark.slow
def test_the_fixed_script_runs_on_python3_to_its_statistics(tmp_path):
    # The TF names ported, the Python 2 builtin left: it fails at its line.
    CHECKS.assert_fails_unfixed(
        tmp_path, "in range(3)", "in xrange(3)", "NameError: name 'xrange'"
    )
    out = CHECKS.run_fixed(tmp_path)
    assert re.search(r"^loss [\d.]+ [\d.]+ [\d.]+$", out, re.M)
    assert "keys ['loss', 'w']" in out
    assert "total below first True" in out
    assert "pickled True" in out
    CHECKS.assert_fails_unfixed(
        tmp_path,
        "from functools import reduce\n",
        "",
        "NameError: name 'reduce' is not defined",
    )


@pytest.mark.parametrize(
    "use, expected",
    [
        ("import cPickle\nx = cPickle.dumps(1)\n", "import pickle as cPickle\n"),
        ("import cPickle as pickle\n", "import pickle\n"),
        ("import os, Queue\n", "import os, queue as Queue\n"),
        (
            "from ConfigParser import ConfigParser\n",
            "from configparser import ConfigParser\n",
        ),
        (
            "try:\n    import urlparse\nexcept ImportError:\n    pass\n",
            "    import urllib.parse as urlparse\n",
        ),
    ],
    ids=["plain", "aliased", "in_a_list", "from", "in_try"],
)
def test_a_python2_module_import_becomes_its_successor_under_the_same_name(
    tmp_path, use, expected
):
    result = fix_source(tmp_path, use)
    assert expected in result.rewritten
    [finding] = _ours(result)
    assert finding.fixed and finding.rule.fixable
    assert "ModuleNotFoundError" in finding.rule.summary


def test_a_module_python3_split_or_changed_is_left_alone(tmp_path):
    source = "import cStringIO\nimport urllib2\nfrom six.moves import cPickle\n"
    result = fix_source(tmp_path, source)
    assert not _ours(result)
    assert result.rewritten in (None, source)


def test_module_imports_and_builtins_are_fixed_together(tmp_path):
    source = "import cPickle\nfor i in xrange(2):\n    cPickle.dumps(i)\n"
    result = fix_source(tmp_path, source)
    assert result.rewritten == (
        "import pickle as cPickle\nfor i in range(2):\n    cPickle.dumps(i)\n"
    )
    assert all(f.fixed for f in _ours(result)) and len(_ours(result)) == 2


@pytest.mark.slow
def test_a_basestring_check_fails_unfixed_and_runs_fixed(tmp_path):
    checks = RuleCorpus(
        RULE, CORPUS / "caffe_style_dimension_division.py", _python2_builtins.ANCHOR
    )
    assert "pooled [2, 4, 4, 6]" in checks.run_fixed(tmp_path)
    checks.assert_fails_unfixed(
        tmp_path,
        "isinstance(name, str)",
        "isinstance(name, basestring)",
        "NameError: name 'basestring' is not defined",
    )


@pytest.mark.slow
def test_a_measured_map_fails_unfixed_and_runs_fixed(tmp_path):
    checks = RuleCorpus(
        RULE, CORPUS / "caffe_style_dimension_division.py", _python2_builtins.ANCHOR
    )
    assert "rank 4 channels 6" in checks.run_fixed(tmp_path)
    checks.assert_fails_unfixed(
        tmp_path,
        "list(map(lambda v: v.value, h.get_shape()))",
        "map(lambda v: v.value, h.get_shape())",
        "TypeError: object of type 'map' has no len()",
    )


@pytest.mark.parametrize(
    "body, written",
    [
        ("n = len(map(str, xs))\n", "n = len(list(map(str, xs)))\n"),
        ("y = filter(None, xs)[0]\n", "y = list(filter(None, xs))[0]\n"),
        (
            "def f(x):\n    s = map(int, x)\n    return len(s), s[1]\n",
            "    s = list(map(int, x))\n",
        ),
        ("p = zip(xs, xs)\nq = p[-1]\n", "p = list(zip(xs, xs))\n"),
    ],
    ids=["measured", "indexed", "bound_in_a_function", "bound_in_the_module"],
)
def test_a_map_filter_or_zip_used_as_a_list_becomes_one(tmp_path, body, written):
    result = fix_source(tmp_path, "xs = [1, 2]\n" + body)
    assert written in result.rewritten
    [finding] = _ours(result)
    assert finding.fixed and finding.rule.fixable
    assert "iterator on Python 3" in finding.rule.summary


@pytest.mark.parametrize(
    "body",
    [
        "for y in map(str, xs):\n    pass\n",
        "ys = list(map(str, xs))\nn = len(ys)\n",
        "ys = map(str, xs)\nfor y in ys:\n    pass\n",
        "ys = map(str, xs)\nys = [1]\nn = len(ys)\n",
        "from six.moves import map\nn = len(map(str, xs))\n",
        "def f(ys):\n    return len(ys)\n\nys = map(str, xs)\n",
    ],
    ids=[
        "iterated",
        "already_a_list",
        "bound_and_iterated",
        "bound_twice",
        "six_moves",
        "other_scope",
    ],
)
def test_a_map_only_iterated_or_not_the_builtin_is_left(tmp_path, body):
    result = fix_source(tmp_path, "xs = [1, 2]\n" + body)
    assert not _ours(result)
