"""A file opened in text mode whose reads are decoded (Python 2's byte strings).

`tf.gfile.Open(path, 'r').read().decode()` and `open(path).read().decode()`
read bytes under Python 2 and a str under Python 3 (AttributeError: 'str'
object has no attribute 'decode'). `--fix` opens the file 'rb': the read is
bytes again and the code's own decode makes the same str.
"""

import re

import pytest
from migrate_helpers import CORPUS, RuleCorpus, fix_source

from estimator_multigpu.migrate import _text_reads_decoded

RULE = _text_reads_decoded.RULE_ID
SCRIPT = CORPUS / "text_reads_decoded.py"
CHECKS = RuleCorpus(RULE, SCRIPT, _text_reads_decoded.ANCHOR)
_ours = CHECKS.ours
_HEAD = "import tensorflow as tf\n"


@pytest.mark.parametrize(
    "use, expected",
    [
        (
            "with tf.gfile.Open(p, 'r') as f:\n    s = f.read().decode()\n",
            "with tf.gfile.Open(p, 'rb') as f:\n",
        ),
        (
            'with tf.gfile.GFile(p, mode="r") as f:\n'
            '    a = f.readline().decode("utf-8")\n    b = f.read().decode()\n',
            'with tf.gfile.GFile(p, mode="rb") as f:\n',
        ),
        (
            "with tf.io.gfile.GFile(p) as f:\n    s = f.read().decode()\n",
            "with tf.io.gfile.GFile(p, 'rb') as f:\n",
        ),
        ("s = open(p).read().decode('utf-8')\n", "s = open(p, 'rb').read()"),
        ("s = open(p, 'rt').readline().decode()\n", "s = open(p, 'rb').readline()"),
        (
            "s = tf.gfile.FastGFile(p, 'r').read().decode('latin-1')\n",
            "s = tf.gfile.FastGFile(p, 'rb').read()",
        ),
        (
            "from tensorflow.python.platform import gfile\n"
            "with gfile.Open(p, 'r') as f:\n    s = f.read().decode()\n",
            "with gfile.Open(p, 'rb') as f:\n",
        ),
    ],
    ids=[
        "gfile_open_with",
        "gfile_two_reads",
        "io_gfile_no_mode",
        "open_chain",
        "open_rt_readline",
        "fast_gfile_chain",
        "gfile_module_import",
    ],
)
def test_a_decoded_text_mode_read_opens_the_file_binary(tmp_path, use, expected):
    result = fix_source(tmp_path, _HEAD + "p = 'labels.txt'\n" + use)
    assert expected in result.rewritten
    [finding] = _ours(result)
    assert finding.fixed and finding.rule.fixable


@pytest.mark.parametrize(
    "use",
    [
        "with open(p) as f:\n    s = f.read()\n",
        "with open(p, 'rb') as f:\n    s = f.read().decode()\n",
        "s = open(p, encoding='utf-8').read().decode()\n",
        "s = open(p, mode).read().decode()\n",
        "s = open(*args).read().decode()\n",
        "s = reader.read().decode()\n",
        "with open(p) as f:\n    f = other\n    s = f.read().decode()\n",
        "def open(p):\n    return x\ns = open(p).read().decode()\n",
    ],
    ids=[
        "not_decoded",
        "binary_already",
        "python3_keyword",
        "mode_variable",
        "starred",
        "not_an_opener",
        "handle_rebound",
        "own_open",
    ],
)
def test_what_is_not_a_decoded_text_read_is_left_alone(tmp_path, use):
    source = "p, mode, args, reader, other = 'a', 'r', (), None, None\n" + use
    result = fix_source(tmp_path, source)
    assert not _ours(result)
    assert result.rewritten in (None, source)


def test_a_handle_also_used_as_text_is_reported_not_rewritten(tmp_path):
    source = (
        "with open('labels.txt', 'r') as f:\n"
        "    head = f.readline().decode()\n"
        "    rest = f.read()\n"
    )
    result = fix_source(tmp_path, source)
    [finding] = _ours(result)
    assert not finding.fixed and not finding.rule.fixable
    assert "another way" in finding.rule.replacement
    assert result.rewritten in (None, source)


def test_the_corpus_script_reports_exactly_its_marked_findings():
    CHECKS.assert_marked_findings()


def test_the_guide_has_the_section_the_finding_links_to():
    CHECKS.assert_guide_anchor()


def test_a_second_fix_changes_nothing(tmp_path):
    CHECKS.assert_second_fix_changes_nothing(tmp_path)


@pytest.mark.slow
def test_the_fixed_script_reads_its_labels_and_trains(tmp_path):
    # The TF names ported, the text-mode read left: it fails at its decode.
    CHECKS.assert_fails_unfixed(
        tmp_path,
        'tf.gfile.Open(path, "rb")',
        'tf.gfile.Open(path, "r")',
        "AttributeError: 'str' object has no attribute 'decode'",
    )
    out = CHECKS.run_fixed(tmp_path, str(tmp_path), all_fixed=True)
    assert "labels [(0, 'daisy'), (1, 'roses'), (2, 'tulips')]" in out
    assert "first 0:daisy" in out
    assert len(re.findall(r"^step \d loss [\d.]+$", out, re.M)) == 3
