"""tf.contrib.framework.nest: the names tf.nest kept are written there (TF 1.x's
is_sequence as is_nested, its TF 2 name); the rest stay reported."""

import pytest
from migrate_helpers import CORPUS, expected_findings, fix_with_passes, run_fixed

from estimator_multigpu.migrate import _runner

NAMES = {
    "assert_same_structure": "assert_same_structure",
    "flatten": "flatten",
    "is_sequence": "is_nested",
    "map_structure": "map_structure",
    "pack_sequence_as": "pack_sequence_as",
}


@pytest.mark.parametrize("name", sorted(NAMES))
def test_each_kept_name_becomes_tf_nest(name):
    new, findings = fix_with_passes(
        f"import tensorflow as tf\nx = tf.contrib.framework.nest.{name}(a)\n"
    )
    assert [f.fixed for f in findings] == [True], [f.rule for f in findings]
    assert f"x = tf.nest.{NAMES[name]}(a)\n" in new


def test_a_nest_module_import_is_read_through():
    new, findings = fix_with_passes(
        """
        import tensorflow as tf
        from tensorflow.contrib.framework import nest

        def ok(state):
            if not nest.is_sequence(state):
                return [state]
            return nest.map_structure(lambda x: x, nest.flatten(state))
        """
    )
    assert all(f.fixed for f in findings), [f.api for f in findings if not f.fixed]
    assert "if not tf.nest.is_nested(state):" in new
    assert "return tf.nest.map_structure(lambda x: x, tf.nest.flatten(state))" in new
    assert "contrib" not in new
    namespace = {}
    exec(compile(new, "ok.py", "exec"), namespace)  # noqa: S102
    assert namespace["ok"]((1, [2])) == [1, 2] and namespace["ok"](3) == [3]


def test_a_name_tf_nest_lacks_stays_reported():
    _, findings = fix_with_passes(
        "import tensorflow as tf\ny = tf.contrib.framework.nest.flatten_up_to(s, x)\n"
    )
    assert [f.fixed for f in findings] == [False]


def test_the_corpus_script_findings_are_the_expected_ones():
    path = CORPUS / "contrib_framework_nest.py"
    found = sorted(
        (f.line, f.rule.rule_id) for f in _runner.process(str(path)).findings
    )
    assert [f for f in found if f[1] != "compat-v1"] == expected_findings(path)


@pytest.mark.slow
def test_the_fixed_corpus_script_runs(tmp_path):
    out = run_fixed("contrib_framework_nest.py", tmp_path, all_fixed=True, timeout=240)
    assert out.splitlines()[-2:] == ["sums [12.0, 0.0, 12.0, 12.0]", "packed State 0.0"]
