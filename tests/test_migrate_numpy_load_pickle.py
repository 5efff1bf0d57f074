"""np.load of a pickled object (a dict saved with np.save): NumPy 1.16.3
made allow_pickle False; --fix passes allow_pickle=True where the call
shows the file is a pickle."""

import pytest
from migrate_helpers import CORPUS, RuleCorpus, fix_source

from estimator_multigpu.migrate import _numpy_load_pickle

CHECKS = RuleCorpus(
    _numpy_load_pickle.RULE_ID,
    CORPUS / "numpy_pickled_weights.py",
    _numpy_load_pickle.ANCHOR,
)
_ours = CHECKS.ours


@pytest.mark.parametrize(
    "call, written",
    [
        (
            "np.load(path, encoding='bytes').item()",
            "np.load(path, encoding='bytes', allow_pickle=True).item()",
        ),
        ("np.load(path).item()", "np.load(path, allow_pickle=True).item()"),
        ("np.load(path)[()]", "np.load(path, allow_pickle=True)[()]"),
        (
            "numpy.load(file=path, encoding='latin1')",
            "numpy.load(file=path, encoding='latin1', allow_pickle=True)",
        ),
        ("np.load(path,).item()", "np.load(path, allow_pickle=True,).item()"),
    ],
)
def test_a_pickled_load_passes_allow_pickle(tmp_path, call, written):
    source = f"import numpy\nimport numpy as np\npath = 'w.npy'\nd = {call}\n"
    result = fix_source(tmp_path, source)
    assert _ours(result) and all(f.fixed for f in _ours(result))
    assert f"d = {written}\n" in result.rewritten


@pytest.mark.parametrize(
    "call",
    [
        "np.load(path)",  # plain arrays
        "np.load(path, allow_pickle=True).item()",
        "np.load(path, None, True).item()",
        "np.load(path, **kw).item()",
        "np.load(path)[0]",
    ],
)
def test_other_loads_are_left(tmp_path, call):
    source = f"import numpy as np\npath, kw = 'w.npy', {{}}\nd = {call}\n"
    assert not _ours(fix_source(tmp_path, source))


def test_the_corpus_script_reports_what_it_marks():
    CHECKS.assert_marked_findings()
    CHECKS.assert_guide_anchor()


def test_a_second_fix_changes_nothing(tmp_path):
    CHECKS.assert_second_fix_changes_nothing(tmp_path)


@pytest.mark.slow
def test_the_corpus_script_fails_unfixed_and_runs_fixed(tmp_path):
    out = CHECKS.run_fixed(tmp_path)
    assert out.splitlines() == ["layers ['fc']", "y [[2.5, 3.75]]"]
    CHECKS.assert_fails_unfixed(
        tmp_path,
        'np.load(path, encoding="bytes", allow_pickle=True)',
        'np.load(path, encoding="bytes")',
        "Object arrays cannot be loaded when allow_pickle=False",
    )
