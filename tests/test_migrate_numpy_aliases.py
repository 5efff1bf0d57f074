"""NumPy names TF 1.x-era code used that NumPy 2 (TensorFlow 2.21's) removed.

`np.float`, `np.int`, ... (removed in NumPy 1.24) become the builtins and
NumPy 2.0's removed spellings (`np.float_`, `np.NaN`, `np.product`, ...)
the names NumPy kept; each table row is checked against the installed NumPy.
"""

import re
import warnings

import numpy as np
import pytest
from migrate_helpers import CORPUS, rewrite, run_script

from estimator_multigpu.migrate import _numpy_aliases, _runner

RULE = _numpy_aliases.RULE_ID
SCRIPT = CORPUS / "numpy_removed_aliases.py"


def _fixed(tmp_path, source):
    path = tmp_path / "a.py"
    path.write_text(source)
    return _runner.process(str(path))


def _ours(result):
    return [f for f in result.findings if f.rule.rule_id == RULE]


@pytest.mark.parametrize("name", sorted(_numpy_aliases.SUCCESSORS))
def test_each_row_is_gone_from_numpy_and_its_successor_is_the_same(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert not hasattr(np, name), f"numpy.{name} exists: no row for it"
    new = eval(_numpy_aliases.SUCCESSORS[name].format(np="np"))  # noqa: S307
    old = {"product": np.prod, "cumproduct": np.cumprod, "round_": np.round}
    if name in ("sometrue", "alltrue"):
        assert new is {"sometrue": np.any, "alltrue": np.all}[name]
    elif name in old:
        assert new is old[name]
    elif isinstance(new, float):
        assert str(new) in ("nan", "inf", "-inf", "0.0", "-0.0")
    else:
        assert np.dtype(new) == np.dtype(new)  # a dtype NumPy takes


@pytest.mark.parametrize(
    "use, expected",
    [
        ("x = np.zeros(2).astype(np.float)\n", "x = np.zeros(2).astype(float)\n"),
        ("y = np.ones(2, dtype=np.int)\n", "y = np.ones(2, dtype=int)\n"),
        ("z = numpy.NaN\n", "z = numpy.nan\n"),
        ("z = onp.NINF\n", "z = (-onp.inf)\n"),
        ("s = np.product(shape)\n", "s = np.prod(shape)\n"),
        ("t = np.string_(b'a')\n", "t = np.bytes_(b'a')\n"),
    ],
    ids=[
        "builtin",
        "dtype_keyword",
        "module_name",
        "alias_and_expression",
        "function",
        "type",
    ],
)
def test_the_removed_name_becomes_its_successor(tmp_path, use, expected):
    head = "import numpy as np\nimport numpy\nimport numpy as onp\n"
    result = _fixed(tmp_path, head + "shape = [2]\n" + use)
    assert expected in result.rewritten
    [finding] = _ours(result)
    assert finding.fixed and finding.rule.fixable


@pytest.mark.parametrize(
    "source",
    [
        "import numpy as np\nnp.float = float\nx = np.float(2)\n",
        "import numpy as np\nx = np.bool(1), np.long(2), np.float64(1), np.nan\n",
        "class np:\n    float = float\nx = np.float(1)\n",
        "import torch as np\nx = np.float\n",
    ],
    ids=["shimmed", "kept_by_numpy2", "own_class", "another_module"],
)
def test_a_name_numpy_has_or_the_module_binds_is_left_alone(tmp_path, source):
    result = _fixed(tmp_path, source)
    assert not _ours(result)
    assert result.rewritten in (None, source)


def test_the_corpus_script_reports_exactly_its_marked_findings():
    # `# numpy:` marks the lines (the scan's passes find them, not its table,
    # which `# expect:` markers are for).
    lines = SCRIPT.read_text().splitlines()
    marked = [
        n for n, line in enumerate(lines, 1) if re.search(r"# numpy: " + RULE, line)
    ]
    found = _runner.process(str(SCRIPT)).findings
    assert sorted(f.line for f in found if f.rule.rule_id == RULE) == marked


def test_the_finding_says_the_error_the_successor_and_links_the_guide(tmp_path):
    [f] = _ours(_fixed(tmp_path, "import numpy as np\nx = np.float(1)\n"))
    assert f.rule.summary == (
        "numpy.float was removed in NumPy 1.24 (AttributeError when the line "
        "runs; TensorFlow 2.21 needs NumPy 2)"
    )
    assert f.rule.replacement.startswith("float (the same value;")
    assert f.rule.guide.endswith(f"#{_numpy_aliases.ANCHOR}")
    guide = (CORPUS.parents[1] / "migration_guide.md").read_text()
    assert f'<a id="{_numpy_aliases.ANCHOR}"></a>' in guide


def test_a_second_fix_changes_nothing(tmp_path):
    once = _fixed(tmp_path, SCRIPT.read_text()).rewritten
    again = _fixed(tmp_path, once)
    assert not _ours(again)


@pytest.mark.slow
def test_the_fixed_script_runs_on_numpy2(tmp_path):
    before = run_script(SCRIPT)
    assert "AttributeError: `np.float_` was removed in the NumPy 2.0" in before.stderr
    result = run_script(rewrite(SCRIPT.name, tmp_path))
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.splitlines()[-3:] == [
        "one_hot [4, 3] 4.0",
        "nanmax 3.0 size 12",
        "dtype float64 True",
    ]
