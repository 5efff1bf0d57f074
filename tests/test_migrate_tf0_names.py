"""TF 0.x names that TF 1.0 renamed onto their TF 1.x successors.

`tf.mul`, `tf.pack`, `tf.select`, `tf.train.SummaryWriter`,
`tf.merge_all_summaries`, `tf.scalar_summary`... exist in no TF 1.x or 2.x
module (not even tf.compat.v1). `--fix` writes the successor through the
same root, renames the keywords that differ, and leaves a call whose
positional arguments mean something else in the successor.
"""

import re

import pytest
from migrate_helpers import (
    CORPUS,
    RuleCorpus,
    expected_findings,
    fix_source,
    run_script,
)

from estimator_multigpu.migrate import _tf0_names

RULE = _tf0_names.RULE_ID
SCRIPT = CORPUS / "tf0_renamed_names.py"
CHECKS = RuleCorpus(RULE, SCRIPT, _tf0_names.ANCHOR, expected_findings)
V1 = "import tensorflow.compat.v1 as tf\n"
_ours = CHECKS.ours


@pytest.mark.parametrize(
    "use, expected",
    [
        ("y = tf.mul(x, 2)\n", "y = tf.multiply(x, 2)\n"),
        ("y = tf.sub(x, 2)\n", "y = tf.subtract(x, 2)\n"),
        ("y = tf.neg(x)\n", "y = tf.negative(x)\n"),
        ("y = tf.pack([x, x], axis=1)\n", "y = tf.stack([x, x], axis=1)\n"),
        ("a, b = tf.unpack(x)\n", "a, b = tf.unstack(x)\n"),
        ("y = tf.select(c, t=x, e=z)\n", "y = tf.where(c, x=x, y=z)\n"),
        (
            "y = tf.batch_matmul(x, z, adj_x=True)\n",
            "y = tf.matmul(x, z, adjoint_a=True)\n",
        ),
        (
            "y = tf.image.per_image_whitening(x)\n",
            "y = tf.image.per_image_standardization(x)\n",
        ),
        ("w = tf.train.SummaryWriter(d, g)\n", "w = tf.summary.FileWriter(d, g)\n"),
        ("m = tf.merge_all_summaries()\n", "m = tf.summary.merge_all()\n"),
        (
            "tf.image_summary(tag='x', tensor=x, max_images=2)\n",
            "tf.summary.image(name='x', tensor=x, max_outputs=2)\n",
        ),
        ("f = tf.mul\n", "f = tf.multiply\n"),
    ],
    ids=[
        "mul",
        "sub",
        "neg",
        "pack",
        "unpack",
        "select_keywords",
        "batch_matmul_keywords",
        "whitening",
        "summary_writer",
        "merge_all",
        "image_summary_keywords",
        "as_value",
    ],
)
def test_the_tf0_name_becomes_its_successor(tmp_path, use, expected):
    result = fix_source(tmp_path, V1 + use)
    assert expected in result.rewritten
    [finding] = _ours(result)
    assert finding.fixed and finding.rule.fixable


def test_under_tensorflow_2s_root_a_v1_only_successor_is_written_in_compat_v1(
    tmp_path,
):
    # No other TF 1.x name: the import stays, and the graph-mode summary
    # and where (no broadcasting) are compat.v1's; multiply is the same in both.
    source = (
        "import tensorflow as tf\n"
        "m = tf.merge_all_summaries()\n"
        "y = tf.select(c, x, z)\n"
        "z = tf.mul(x, 2)\n"
    )
    new = fix_source(tmp_path, source).rewritten
    assert "import tensorflow as tf\n" in new
    assert "m = tf.compat.v1.summary.merge_all()\n" in new
    assert "y = tf.compat.v1.where(c, x, z)\n" in new
    assert "z = tf.multiply(x, 2)\n" in new


@pytest.mark.parametrize(
    "use",
    [
        "y = tf.batch_matmul(x, z, True)\n",  # adj_x, but matmul's transpose_a
        "s = tf.histogram_summary('w', w, None, 'name')\n",  # name, but family
        "y = tf.mul(*args)\n",
    ],
    ids=["batch_matmul_third", "summary_name_positional", "star_args"],
)
def test_a_call_whose_arguments_would_change_meaning_is_left(tmp_path, use):
    result = fix_source(tmp_path, V1 + use)
    [finding] = _ours(result)
    assert not finding.fixed and not finding.rule.fixable
    assert "checked by hand" in finding.rule.replacement
    assert result.rewritten in (None, V1 + use)


def test_a_tf1_name_and_another_modules_mul_are_not_findings(tmp_path):
    source = V1 + "import numpy as np\ny = tf.multiply(x, 2)\nz = np.mul(x)\n"
    assert not _ours(fix_source(tmp_path, source))


def test_the_corpus_script_reports_exactly_its_marked_findings():
    CHECKS.assert_marked_findings()


def test_the_guide_has_the_section_the_finding_links_to():
    CHECKS.assert_guide_anchor()


def test_a_second_fix_changes_nothing(tmp_path):
    CHECKS.assert_second_fix_changes_nothing(tmp_path)


@pytest.mark.slow
def test_the_fixed_script_trains_and_writes_its_summaries(tmp_path):
    original = run_script(SCRIPT, tmp_path / "before")
    assert original.returncode != 0 and "AttributeError" in original.stderr
    out = CHECKS.run_fixed(tmp_path, tmp_path / "logs")
    assert len(re.findall(r"^step \d loss [\d.]+$", out, re.M)) == 3
    assert "positive [[1.0, 0.0], [3.0, 0.0]]" in out
    assert list((tmp_path / "logs").glob("events.out.tfevents.*"))
