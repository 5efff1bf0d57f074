"""NumPy names TF 1.x-era code used and NumPy 2 removed, onto their successors.

TensorFlow 2.21 needs NumPy 2, which removed `np.float`, `np.int` (builtin
aliases), `np.cast`, `np.float_`, `np.NaN`, `np.asscalar`, `np.in1d` and
more. Each table row is checked against the installed NumPy: the old name
raises, the successor exists and is what the name was.
"""

import re
import warnings

import numpy as np
import pytest
from migrate_helpers import CORPUS, RuleCorpus, fix_source

from estimator_multigpu.migrate import _api_spec, _numpy_removed

RULE = _numpy_removed.RULE_ID
SCRIPT = CORPUS / "numpy_removed_names.py"
CHECKS = RuleCorpus(RULE, SCRIPT, _numpy_removed.ANCHOR)
SPEC = _api_spec.SPEC
NAMES = {
    *SPEC.numpy_builtins,
    *SPEC.numpy_aliases,
    *SPEC.numpy_values,
    *SPEC.numpy_calls,
}
_ours = CHECKS.ours


def _removed(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # np.object, np.str
        try:
            getattr(np, name)
        except AttributeError:
            return True
    return False


@pytest.mark.parametrize("name", sorted(NAMES))
def test_every_name_of_the_table_is_gone_from_the_installed_numpy(name):
    assert _removed(name)


@pytest.mark.parametrize("name", ["bool", "long", "row_stack"])
def test_names_numpy_2_still_defines_are_not_in_the_table(name):
    assert not _removed(name) and name not in NAMES


@pytest.mark.parametrize(
    "name, new", sorted(_api_spec.NUMPY_ALIASES.items()), ids=lambda v: str(v)
)
def test_each_alias_successor_is_defined(name, new):
    # NumPy's own migration note names the successor where it has one.
    note = np._expired_attrs_2_0.__expired_attributes__.get(name, "")
    assert hasattr(np, new)
    if "Use `np." in note:
        assert f"`np.{new}`" in note


def test_the_builtin_rows_are_numpy_s_former_builtin_aliases():
    former = set(np.__former_attrs__)  # float, int, complex, object, str
    table = _api_spec.NUMPY_BUILTINS
    assert former <= set(table)
    assert all(table[name] == name for name in former)
    assert table["unicode"] == "str"  # Python 3's unicode


def _old_cast(x, dtype):
    # NumPy 1.x: cast[k] = lambda x, k=k: array(x, copy=False).astype(k)
    return np.asarray(x).astype(dtype)


@pytest.mark.parametrize(
    "value, dtype",
    [([1.7, -2.5], np.int32), ([300, 2], np.uint8), (np.arange(3.0), "float32")],
    ids=["float_to_int", "wraps", "string_dtype"],
)
def test_the_cast_successor_is_a_fresh_array_cast_as_astype_does(
    tmp_path, value, dtype
):
    source = "import numpy as np\ny = np.cast[T](x)\n"
    text = fix_source(tmp_path, source).rewritten
    assert "y = np.asarray(x).astype(T)\n" in text
    x = np.array(value) if isinstance(value, np.ndarray) else value
    scope = {"x": x, "T": dtype}
    exec(text, scope)
    np.testing.assert_array_equal(scope["y"], _old_cast(x, dtype))
    assert scope["y"].dtype == np.dtype(dtype) and scope["y"] is not x


@pytest.mark.parametrize(
    "use, expected",
    [
        ("y = np.float(3)\n", "y = float(3)\n"),
        ("y = np.zeros(2, dtype=np.int)\n", "y = np.zeros(2, dtype=int)\n"),
        ("y = np.array([1], np.object)\n", "y = np.array([1], object)\n"),
        ("y = np.unicode\n", "y = str\n"),
        ("y = np.float_\n", "y = np.float64\n"),
        ("y = np.string_\n", "y = np.bytes_\n"),
        ("y = np . NaN\n", "y = np . nan\n"),
        ("y = np.Inf, np.infty, np.PINF\n", "y = np.inf, np.inf, np.inf\n"),
        ("y = np.NINF\n", "y = -np.inf\n"),
        ("y = np.NINF ** 2, np.NINF.real\n", "y = (-np.inf) ** 2, (-np.inf).real\n"),
        ("y = 2 ** np.NINF\n", "y = 2 ** -np.inf\n"),
        ("y = np.product([2, 3])\n", "y = np.prod([2, 3])\n"),
        ("y = np.sometrue([0, 1])\n", "y = np.any([0, 1])\n"),
        ("y = np.trapz([1, 2, 3], dx=2)\n", "y = np.trapezoid([1, 2, 3], dx=2)\n"),
        ("y = np.asscalar(np.ones(1))\n", "y = np.ones(1).item()\n"),
        ("y = np.asscalar(a - 1)\n", "y = (a - 1).item()\n"),
        (
            "y = np.in1d([[1, 2]], [2], invert=True)\n",
            "y = np.isin([[1, 2]], [2], invert=True).ravel()\n",
        ),
        ("y = np.cast[np.float_](a)\n", "y = np.asarray(a).astype(np.float64)\n"),
    ],
    ids=[
        "float",
        "int_dtype",
        "object",
        "unicode",
        "float_",
        "string_",
        "spaced",
        "infinities",
        "ninf",
        "ninf_tight",
        "ninf_exponent",
        "product",
        "sometrue",
        "trapz",
        "asscalar",
        "asscalar_expression",
        "in1d",
        "nested",
    ],
)
def test_the_removed_name_becomes_its_successor_and_runs(tmp_path, use, expected):
    result = fix_source(tmp_path, "import numpy as np\na = np.ones(1)\n" + use)
    assert expected in result.rewritten
    assert _ours(result) and all(f.fixed and f.rule.fixable for f in _ours(result))
    exec(result.rewritten, {})


def test_in1d_s_successor_is_flat_like_in1d():
    a, b = np.array([[1, 2], [3, 4]]), [2, 3]
    old = np.array([v in b for v in a.ravel()])  # in1d's answer, 1-D
    np.testing.assert_array_equal(np.isin(a, b).ravel(), old)


@pytest.mark.parametrize(
    "source, expected",
    [
        ("import numpy\ny = numpy.float_(numpy.NaN)\n", "numpy.float64(numpy.nan)"),
        ("import numpy as onp\ny = onp.NINF\n", "y = -onp.inf"),
        ("def f():\n    import numpy as np\n    return np.float\n", "return float"),
    ],
    ids=["plain_import", "other_alias", "local_import"],
)
def test_the_module_s_spelling_of_numpy_is_kept(tmp_path, source, expected):
    assert expected in fix_source(tmp_path, source).rewritten


@pytest.mark.parametrize(
    "source",
    [
        "import numpy as np\ny = np.bool(1), np.long(2), np.float64(1)\n",
        "import numpy as np\nnp.float = float\ny = np.float(1)\n",
        "import jax.numpy as np\ny = np.float_\n",
        "import numpy as np\nnp = object()\n",
        "y = np.float(1)\n",
    ],
    ids=["still_defined", "own_shim", "other_numpy", "no_use", "unbound"],
)
def test_names_numpy_2_has_or_the_module_defines_are_left_alone(tmp_path, source):
    result = fix_source(tmp_path, source)
    assert not _ours(result)
    assert result.rewritten in (None, source)


@pytest.mark.parametrize(
    "source, why",
    [
        ("from numpy import float_\n", "imported by name"),
        ("import numpy as np\nf = np.asscalar\n", "used as a value"),
        ("import numpy as np\nf = np.cast[np.float32]\n", "np.cast used as a value"),
        ("import numpy as np\ny = np.asscalar(a, b)\n", "other than one argument"),
        ("import numpy as np\nfloat = 3\ny = np.float\n", "binds float itself"),
    ],
    ids=["from_import", "value", "cast_value", "two_arguments", "shadowed"],
)
def test_what_has_no_written_successor_is_reported_not_rewritten(tmp_path, source, why):
    result = fix_source(tmp_path, source)
    [finding] = _ours(result)
    assert not finding.rule.fixable and not finding.fixed
    assert why in finding.rule.replacement
    assert result.rewritten in (None, source)


def test_the_corpus_script_reports_exactly_its_marked_findings():
    CHECKS.assert_marked_findings()


def test_the_finding_says_the_error_and_the_successor(tmp_path):
    result = fix_source(tmp_path, "import numpy as np\nx = np.cast[np.int32](1)\n")
    [finding] = _ours(result)
    assert finding.rule.summary == (
        "np.cast[dtype](x) was removed from NumPy (NumPy 2 raises "
        "AttributeError when the line runs)"
    )
    assert finding.rule.replacement == (
        "np.asarray(x).astype(dtype) (what it was; emg-migrate --fix writes it)"
    )
    assert finding.rule.guide.endswith(f"#{_numpy_removed.ANCHOR}")


def test_the_guide_has_the_section_the_finding_links_to():
    CHECKS.assert_guide_anchor()


def test_a_second_fix_changes_nothing(tmp_path):
    CHECKS.assert_second_fix_changes_nothing(tmp_path)


@pytest.mark.slow
def test_the_fixed_script_runs_on_numpy_2_to_its_statistics(tmp_path):
    # The TF names ported, np.cast left: it fails at its line.
    CHECKS.assert_fails_unfixed(
        tmp_path,
        "np.asarray((pixels - 127.5) / 127.5).astype(np.float32)",
        "np.cast[np.float32]((pixels - 127.5) / 127.5)",
        "`np.cast` was removed",
    )
    out = CHECKS.run_fixed(tmp_path)
    assert re.search(r"^step 2 loss [\d.]+$", out, re.M)
    assert re.search(r"^best [\d.]+ after 3 steps; nan True$", out, re.M)
