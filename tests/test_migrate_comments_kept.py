"""A rewrite that would write an import statement again, whole, leaves it as
it is when a comment stands inside it: the comment is the user's, and the
text written from the tree would drop it. The names stay reported."""

import io
import tokenize

import pytest

from estimator_multigpu.migrate import _runner

PARENTHESIZED = {
    "scipy private path": (
        "from scipy.signal.signaltools import (\n"
        "    convolve,  # the public one\n"
        "    _centered,  # private, kept here\n"
        ")\n"
        "print(convolve, _centered)\n"
    ),
    "numpy removed alias": (
        "from numpy import (\n"
        "    float,  # removed alias\n"
        "    array,  # kept\n"
        ")\n"
        "print(float, array)\n"
    ),
}


def _comments(text: str) -> list[str]:
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    return [t.string for t in tokens if t.type == tokenize.COMMENT]


@pytest.mark.parametrize("source", PARENTHESIZED.values(), ids=PARENTHESIZED)
def test_an_import_with_comments_inside_keeps_them(tmp_path, source):
    path = tmp_path / "a.py"
    path.write_text(source)
    result = _runner.process(str(path))
    assert result.findings, "the names are still reported"
    rewritten = result.rewritten or result.original
    assert _comments(rewritten) == _comments(source)


def test_the_same_import_without_comments_is_rewritten(tmp_path):
    path = tmp_path / "a.py"
    path.write_text(
        "from scipy.signal.signaltools import (\n    convolve,\n    _centered,\n)\n"
        "print(convolve, _centered)\n"
    )
    result = _runner.process(str(path))
    assert "from scipy.signal import convolve" in result.rewritten
