"""SciPy's private module paths (scipy.sparse.linalg.eigen.arpack,
scipy.ndimage.filters, scipy.signal.signaltools, ...), rewritten onto the
public namespace that holds the same object, in every import spelling; what
has no public name of the same object reported and kept."""

import importlib
import re
import warnings

import pytest
from migrate_helpers import CORPUS, RuleCorpus, fix_source

from estimator_multigpu.migrate import _runner, _scipy_private_paths
from estimator_multigpu.migrate._scipy_private_table import PATHS

RULE = _scipy_private_paths.RULE_ID
SCRIPT = CORPUS / "scipy_private_paths.py"
CHECKS = RuleCorpus(RULE, SCRIPT, _scipy_private_paths.ANCHOR)
_ours = CHECKS.ours


@pytest.mark.parametrize("private", sorted(PATHS))
def test_every_row_names_the_public_namespaces_own_objects(private):
    pytest.importorskip("scipy")
    public, names = PATHS[private]
    module = importlib.import_module(public)
    assert names and all(hasattr(module, n) for n in names)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            stub = importlib.import_module(private)
    except ModuleNotFoundError:  # gone (scipy.sparse.linalg's sub-packages)
        assert private.startswith("scipy.sparse.linalg.")
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert all(getattr(stub, n) is getattr(module, n) for n in names)


def test_a_name_forwarded_to_another_object_is_in_no_row():
    assert not _scipy_private_paths.shared("scipy.optimize.linesearch", "line_search")
    assert not _scipy_private_paths.shared("scipy.io.mmio", "mmread")
    assert not _scipy_private_paths.shared("scipy.linalg.decomp_schur", "norm")
    assert _scipy_private_paths.shared("scipy.linalg.decomp_schur", "schur")


def test_from_the_removed_arpack_module(tmp_path):
    result = fix_source(
        tmp_path,
        "from scipy.sparse.linalg.eigen.arpack import eigsh\n"
        "from scipy.sparse.linalg.eigen.arpack.arpack import ArpackError as E\n"
        "v = eigsh(a, 1)\n",
    )
    assert result.rewritten == (
        "from scipy.sparse.linalg import eigsh\n"
        "from scipy.sparse.linalg import ArpackError as E\n"
        "v = eigsh(a, 1)\n"
    )
    assert [f.api for f in _ours(result)] == [
        "scipy.sparse.linalg.eigen.arpack.eigsh",
        "scipy.sparse.linalg.eigen.arpack.arpack.ArpackError",
    ]
    assert all(f.fixed for f in _ours(result))


@pytest.mark.parametrize(
    "before, after",
    [
        (
            "from scipy.ndimage.filters import gaussian_filter, convolve1d\n",
            "from scipy.ndimage import gaussian_filter, convolve1d\n",
        ),
        (
            "from scipy.signal.signaltools import convolve as conv  # smooth\n",
            "from scipy.signal import convolve as conv  # smooth\n",
        ),
        (
            "import os; from scipy.linalg.decomp import eigh\n",
            "import os; from scipy.linalg import eigh\n",
        ),
        (
            "from scipy.stats.mstats_basic import mquantiles\n",
            "from scipy.stats.mstats import mquantiles\n",
        ),
        (
            "from scipy.sparse.linalg.isolve.iterative import cg, gmres\n",
            "from scipy.sparse.linalg import cg, gmres\n",
        ),
    ],
)
def test_names_imported_from_a_private_module(tmp_path, before, after):
    result = fix_source(tmp_path, before)
    assert result.rewritten == after
    assert all(f.fixed for f in _ours(result))


def test_a_name_the_public_namespace_lacks_stays_on_its_own_line(tmp_path):
    result = fix_source(
        tmp_path,
        "def f():\n    from scipy.signal.signaltools import convolve, _centered\n",
    )
    assert result.rewritten == (
        "def f():\n    from scipy.signal.signaltools import _centered\n"
        "    from scipy.signal import convolve\n"
    )
    [left] = [f for f in _ours(result) if not f.fixed]
    assert left.api == "scipy.signal.signaltools._centered"
    assert not left.rule.fixable and "scipy.signal" in left.rule.replacement


@pytest.mark.parametrize(
    "imports, name, new",
    [
        ("import scipy.ndimage.filters as filters\n", "filters", "import scipy.ndimage as filters\n"),
        ("from scipy.ndimage import filters\n", "filters", "import scipy.ndimage as filters\n"),
        ("from scipy.ndimage import morphology as morph\n", "morph", "import scipy.ndimage as morph\n"),
        ("from scipy.sparse.linalg.eigen import arpack\n", "arpack", "import scipy.sparse.linalg as arpack\n"),
    ],
)  # fmt: skip
def test_a_name_bound_to_a_private_module_is_bound_to_the_public_one(
    tmp_path, imports, name, new
):
    body = f"y = {name}.{'eigsh' if name == 'arpack' else 'gaussian_filter'}(x, 1)\n"
    if name == "morph":
        body = f"y = {name}.binary_dilation(x)\n"
    result = fix_source(tmp_path, imports + body)
    assert result.rewritten == new + body
    assert [f.fixed for f in _ours(result)] == [True]


def test_a_from_import_binding_a_private_module_beside_other_names(tmp_path):
    result = fix_source(
        tmp_path,
        "from scipy.ndimage import filters, zoom\ny = filters.sobel(zoom(x, 2))\n",
    )
    assert result.rewritten == (
        "from scipy.ndimage import zoom\nimport scipy.ndimage as filters\n"
        "y = filters.sobel(zoom(x, 2))\n"
    )


def test_chains_through_scipy_and_their_import(tmp_path):
    result = fix_source(
        tmp_path,
        "import scipy.ndimage.filters\nimport scipy.sparse.linalg.eigen.arpack\n"
        "y = scipy.ndimage.filters.gaussian_filter(x, 1)\n"
        "v = scipy.sparse.linalg.eigen.arpack.eigsh(a, 1)\n",
    )
    assert result.rewritten == (
        "import scipy.ndimage\nimport scipy.sparse.linalg\n"
        "y = scipy.ndimage.gaussian_filter(x, 1)\n"
        "v = scipy.sparse.linalg.eigsh(a, 1)\n"
    )
    assert all(f.fixed for f in _ours(result)) and len(_ours(result)) == 4


def test_a_chain_through_a_name_bound_above_the_public_module(tmp_path):
    result = fix_source(
        tmp_path,
        "from scipy import ndimage\nimport scipy as sc\n"
        "y = ndimage.filters.gaussian_filter(x, 1)\n"
        "z = sc.signal.signaltools.convolve(y, y)\n",
    )
    assert result.rewritten == (
        "from scipy import ndimage\nimport scipy as sc\n"
        "y = ndimage.gaussian_filter(x, 1)\nz = sc.signal.convolve(y, y)\n"
    )


@pytest.mark.parametrize(
    "source, api",
    [
        (
            "import scipy.ndimage.filters as f\ng = f\n",
            "scipy.ndimage.filters",
        ),
        (
            "from scipy.ndimage import filters\ny = filters._gaussian_kernel1d(1, 0, 3)\n",
            "scipy.ndimage.filters",
        ),
        ("from scipy.stats.stats import *\n", "scipy.stats.stats.*"),
        ("from scipy import ndimage\nf = ndimage.filters\n", "scipy.ndimage.filters"),
        (
            "from scipy import ndimage\nk = ndimage.morphology._ni_support\n",
            "scipy.ndimage.morphology._ni_support",
        ),
        (
            "import scipy.sparse.linalg.eigen as eig\nv = eig.arpack.eigsh(a)\n",
            "scipy.sparse.linalg.eigen",
        ),
        (
            "import scipy.ndimage.filters\nk = scipy.ndimage.filters._ni_support\n",
            "scipy.ndimage.filters",
        ),
    ],
)  # fmt: skip
def test_what_has_no_public_name_is_reported_and_kept(tmp_path, source, api):
    result = fix_source(tmp_path, source)
    assert result.rewritten in (None, source)
    assert api in [f.api for f in _ours(result)]
    assert not any(f.fixed or f.rule.fixable for f in _ours(result))


def test_public_paths_and_other_modules_are_left(tmp_path):
    result = fix_source(
        tmp_path,
        "import scipy.ndimage\nfrom scipy.sparse.linalg import eigsh\n"
        "from mylib.ndimage.filters import gaussian_filter\n"
        "y = scipy.ndimage.gaussian_filter(x, 1)\n",
    )
    assert not _ours(result)


def test_the_corpus_script_reports_exactly_its_marked_findings():
    CHECKS.assert_marked_findings()


def test_the_finding_names_the_public_path_and_the_guide():
    [finding, *_] = _ours(_runner.process(str(SCRIPT)))
    assert finding.rule.replacement.startswith("scipy.ndimage ")
    assert finding.rule.guide.endswith(f"#{_scipy_private_paths.ANCHOR}")
    CHECKS.assert_guide_anchor()


def test_a_second_fix_changes_nothing(tmp_path):
    once = CHECKS.assert_second_fix_changes_nothing(tmp_path)
    assert "from scipy.sparse.linalg import eigsh  #" in once


@pytest.mark.slow
def test_the_fixed_script_trains_on_its_scaled_laplacian(tmp_path):
    pytest.importorskip("scipy")
    out = CHECKS.run_fixed(tmp_path, cwd=str(tmp_path))
    assert re.search(r"^step 2 loss [\d.]+$", out, re.M)
    assert re.search(r"^smoothed 2 mask \d+ cg 0 0\.5$", out, re.M)
