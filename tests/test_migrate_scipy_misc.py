"""SciPy's removed scipy.misc image functions (imsave, imread, imresize,
toimage, bytescale, fromimage), rewritten onto emg.scipy_misc in every
spelling; the module's other scipy.misc names reported and kept."""

import inspect
import re

import pytest
from migrate_helpers import CORPUS, RuleCorpus, fix_source

from estimator_multigpu import scipy_misc
from estimator_multigpu.migrate import _runner, _scipy_misc

RULE = _scipy_misc.RULE_ID
SCRIPT = CORPUS / "scipy_misc_images.py"
CHECKS = RuleCorpus(RULE, SCRIPT, _scipy_misc.ANCHOR)
EMG = "import estimator_multigpu as emg\n"
_ours = CHECKS.ours


@pytest.mark.parametrize("name", sorted(_scipy_misc.REWRITTEN))
def test_every_rewritten_name_is_a_drop_in_function(name):
    assert callable(getattr(scipy_misc, name))
    assert name in scipy_misc.__all__


def test_the_drop_ins_keep_scipy_1_1s_signatures():
    signatures = {
        "bytescale": "(data, cmin=None, cmax=None, high=255, low=0)",
        "fromimage": "(im, flatten=False, mode=None)",
        "imread": "(name, flatten=False, mode=None)",
        "imresize": "(arr, size, interp='bilinear', mode=None)",
        "imsave": "(name, arr, format=None)",
        "toimage": (
            "(arr, high=255, low=0, cmin=None, cmax=None, pal=None, mode=None, "
            "channel_axis=None)"
        ),
    }
    for name, signature in signatures.items():
        assert str(inspect.signature(getattr(scipy_misc, name))) == signature


def test_scipy_misc_attribute_calls_and_their_import(tmp_path):
    result = fix_source(
        tmp_path,
        "import scipy.misc\n\n\ndef save(p, x):\n"
        "    scipy.misc.imsave(p, scipy.misc.imresize(x, 0.5, interp='nearest'))\n",
    )
    assert result.rewritten == (
        EMG + "\n\ndef save(p, x):\n    emg.scipy_misc.imsave(p, "
        "emg.scipy_misc.imresize(x, 0.5, interp='nearest'))\n"
    )
    assert [f.fixed for f in _ours(result)] == [True, True]


@pytest.mark.parametrize(
    "imports, name",
    [
        ("import scipy.misc as misc\n", "misc"),
        ("import scipy.misc as sm\n", "sm"),
        ("from scipy import misc\n", "misc"),
        ("from scipy import misc as m\n", "m"),
    ],
)
def test_a_name_bound_to_scipy_misc(tmp_path, imports, name):
    result = fix_source(
        tmp_path,
        f"import numpy as np\n{imports}x = {name}.imread('a.png')\n"
        f"y = {name}.bytescale(x, cmin=0)\n{name}.toimage(y).save('b.png')\n",
    )
    assert result.rewritten == (
        "import numpy as np\n" + EMG + "x = emg.scipy_misc.imread('a.png')\n"
        "y = emg.scipy_misc.bytescale(x, cmin=0)\n"
        "emg.scipy_misc.toimage(y).save('b.png')\n"
    )


def test_names_imported_from_scipy_misc(tmp_path):
    result = fix_source(
        tmp_path,
        "from scipy.misc import imsave, imresize as resize  # samples\n"
        "imsave('a.png', resize(x, (4, 4)))\n",
    )
    assert result.rewritten == (
        "from estimator_multigpu.scipy_misc import imsave, imresize as resize"
        "  # samples\nimsave('a.png', resize(x, (4, 4)))\n"
    )
    assert [f.api for f in _ours(result)] == [
        "scipy.misc.imsave",
        "scipy.misc.imresize",
    ]
    assert all(f.fixed for f in _ours(result))


def test_other_scipy_misc_names_are_reported_and_kept(tmp_path):
    source = (
        "import scipy.misc\nfrom scipy.misc import face, imsave\n"
        "imsave('a.png', scipy.misc.face())\nscipy.misc.imsave('b.png', face())\n"
    )
    result = fix_source(tmp_path, source)
    assert result.rewritten == (
        "import scipy.misc\nfrom scipy.misc import face\n"
        "from estimator_multigpu.scipy_misc import imsave\n"
        + EMG
        + "imsave('a.png', scipy.misc.face())\n"
        "emg.scipy_misc.imsave('b.png', face())\n"
    )
    left = [f for f in _ours(result) if not f.fixed]
    assert [(f.api, f.line) for f in left] == [
        ("scipy.misc.face", 2),
        ("scipy.misc.face", 3),
    ]
    assert all("scipy.datasets.face" in f.rule.replacement for f in left)
    assert not any(f.rule.fixable for f in left)


def test_import_scipy_misc_becomes_import_scipy_when_scipy_is_read(tmp_path):
    result = fix_source(
        tmp_path,
        "import scipy.misc\nscipy.misc.imsave('a.png', scipy.ndimage.zoom(x, 2))\n",
    )
    assert result.rewritten.startswith("import scipy\n" + EMG)
    other = fix_source(
        tmp_path,
        "import scipy.misc\nimport scipy.ndimage\n"
        "scipy.misc.imsave('a.png', scipy.ndimage.zoom(x, 2))\n",
    )
    assert other.rewritten.startswith("import scipy.ndimage\n" + EMG)


def test_an_import_in_a_block_leaves_a_statement(tmp_path):
    result = fix_source(
        tmp_path,
        "def save(p, x):\n    import scipy.misc\n    scipy.misc.imsave(p, x)\n",
    )
    assert result.rewritten == (
        EMG + "def save(p, x):\n    pass\n    emg.scipy_misc.imsave(p, x)\n"
    )


def test_a_module_without_scipy_misc_is_left(tmp_path):
    result = fix_source(tmp_path, "import misc\nmisc.imsave('a', x)\nimport scipy\n")
    assert not _ours(result)


def test_the_corpus_script_reports_exactly_its_marked_findings():
    CHECKS.assert_marked_findings()


def test_the_finding_names_the_drop_in_and_the_guide():
    [finding, *_] = _ours(_runner.process(str(SCRIPT)))
    assert finding.rule.replacement.startswith("emg.scipy_misc.")
    assert finding.rule.guide.endswith(f"#{_scipy_misc.ANCHOR}")
    CHECKS.assert_guide_anchor()


def test_a_second_fix_changes_nothing(tmp_path):
    CHECKS.assert_second_fix_changes_nothing(tmp_path)


@pytest.mark.slow
def test_the_fixed_script_saves_reads_and_resizes_its_samples(tmp_path):
    out = CHECKS.run_fixed(tmp_path, str(tmp_path))
    assert re.search(r"^step 2 loss [\d.]+$", out, re.M)
    assert re.search(r"^saved \(16, 16, 3\) uint8 0 255$", out, re.M)
    assert re.search(r"^resized \(8, 8, 3\) gray \d+ \d+$", out, re.M)
