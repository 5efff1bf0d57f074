"""librosa's removed functions: feature.rmse -> feature.rms with keywords and
rmse's pad_mode; output.write_wav -> scipy.io.wavfile.write, write_wav's
own body."""

import re

import pytest
from migrate_helpers import CORPUS, RuleCorpus, fix_source

from estimator_multigpu.migrate import _librosa_removed

CHECKS = RuleCorpus(
    _librosa_removed.RULE_ID,
    CORPUS / "librosa_removed_functions.py",
    _librosa_removed.ANCHOR,
)
_ours = CHECKS.ours


@pytest.mark.parametrize(
    "call, written",
    [
        (
            "librosa.feature.rmse(audio, frame_length=n)",
            "librosa.feature.rms(y=audio, frame_length=n, pad_mode='reflect')",
        ),
        (
            "librosa.feature.rmse(None, spec, 512, 128, False, 'edge')",
            "librosa.feature.rms(y=None, S=spec, frame_length=512, "
            "hop_length=128, center=False, pad_mode='edge')",
        ),
        (
            "lr.feature.rmse(S=spec)",
            "lr.feature.rms(S=spec, pad_mode='reflect')",
        ),
        (
            "feat.rmse(y=audio, pad_mode='constant')",
            "feat.rms(y=audio, pad_mode='constant')",
        ),
    ],
)
def test_rmse_becomes_rms_with_keywords(tmp_path, call, written):
    source = (
        "import librosa\nimport librosa as lr\nfrom librosa import feature as feat\n"
        f"audio = spec = n = None\ne = {call}\n"
    )
    result = fix_source(tmp_path, source)
    assert _ours(result) and all(f.fixed for f in _ours(result))
    assert f"e = {written}\n" in result.rewritten


@pytest.mark.parametrize(
    "call, written",
    [
        ("librosa.output.write_wav(p, y, sr)", "scipy.io.wavfile.write(p, sr, y.T)"),
        (
            "librosa.output.write_wav(p, np.array(w), 16000, norm=False)",
            "scipy.io.wavfile.write(p, 16000, np.array(w).T)",
        ),
        (
            "librosa.output.write_wav(sr=sr, y=a + b, path=p)",
            "scipy.io.wavfile.write(p, sr, (a + b).T)",
        ),
    ],
)
def test_write_wav_becomes_wavfile_write(tmp_path, call, written):
    source = f"import numpy as np\nimport librosa\np = y = sr = a = b = w = 0\n{call}\n"
    result = fix_source(tmp_path, source)
    assert _ours(result) and all(f.fixed for f in _ours(result))
    assert f"\n{written}\n" in result.rewritten
    assert result.rewritten.count("import scipy.io.wavfile\n") == 1


def test_write_wav_uses_the_modules_own_wavfile(tmp_path):
    source = (
        "import librosa\nfrom scipy.io import wavfile\n"
        "librosa.output.write_wav('a.wav', y, 8000)\n"
        "librosa.output.write_wav('b.wav', y, 8000)\n"
    )
    result = fix_source(tmp_path, source)
    assert all(f.fixed for f in _ours(result)) and len(_ours(result)) == 2
    assert "import scipy.io.wavfile" not in result.rewritten
    assert result.rewritten.count("wavfile.write(") == 2


@pytest.mark.parametrize(
    "source, why",
    [
        ("from librosa.feature import rmse\ne = rmse(y)\n", "imported by name"),
        ("import librosa\nf = librosa.feature.rmse\n", "used as a value"),
        ("import librosa\ne = librosa.feature.rmse(*a)\n", r"\*args or \*\*kwargs"),
        ("import librosa\ne = librosa.feature.rmse(y, w=1)\n", "unknown keyword w="),
        (
            "import librosa\nlibrosa.output.write_wav(p, y, sr, norm=True)\n",
            "librosa.util.normalize",
        ),
        ("import librosa\nlibrosa.output.write_wav(p, y)\n", "without path, y and sr"),
        (
            "import librosa\nscipy = None\nlibrosa.output.write_wav(p, y, 1)\n",
            "binds `scipy` to something else",
        ),
    ],
)
def test_what_cannot_be_rewritten_is_reported(tmp_path, source, why):
    result = fix_source(tmp_path, source)
    (found,) = _ours(result)
    assert not found.fixed and not found.rule.fixable
    assert re.search(why, found.rule.replacement)


def test_other_librosa_calls_and_other_rmse_are_left(tmp_path):
    source = (
        "import librosa\nimport mylib\n"
        "e = librosa.feature.rms(y=y)\nmylib.feature.rmse(y)\n"
        "mylib.output.write_wav(p, y, 1)\n"
    )
    result = fix_source(tmp_path, source)
    assert not _ours(result)


def test_the_corpus_script_reports_what_it_marks():
    CHECKS.assert_marked_findings()
    CHECKS.assert_guide_anchor()


def test_a_second_fix_changes_nothing(tmp_path):
    CHECKS.assert_second_fix_changes_nothing(tmp_path)


@pytest.mark.slow
def test_the_corpus_script_fails_unfixed_and_runs_fixed(tmp_path):
    pytest.importorskip("librosa")
    out = CHECKS.run_fixed(tmp_path, str(tmp_path))
    assert out.splitlines() == [
        "trimmed 2048 of 4096 samples",
        "codes 5..250",
        "wrote 2048 samples at 8000 Hz, max error 0.0000",
    ]
    CHECKS.assert_fails_unfixed(
        tmp_path,
        "librosa.feature.rms(y=audio, frame_length=frame_length, pad_mode='reflect')",
        "librosa.feature.rmse(audio, frame_length=frame_length)",
        "AttributeError",
    )
    CHECKS.assert_fails_unfixed(
        tmp_path,
        "scipy.io.wavfile.write(path, rate, out.T)",
        "librosa.output.write_wav(path, out, rate)",
        "AttributeError",
    )
