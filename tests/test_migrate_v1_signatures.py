"""A TF 2 name called with TF 1.x's arguments (`tf.name_scope(name,
default_name=...)`, `tf.reduce_sum(x, keep_dims=True)`) under `import
tensorflow as tf` is a TF 1.x use: --fix switches the module to compat.v1,
whose function takes them. The table is checked against the TensorFlow
installed."""

import ast
import pathlib
import sys

import pytest
from migrate_helpers import run

from estimator_multigpu.migrate import _runner, _v1_signatures
from estimator_multigpu.migrate._api_spec import SPEC

TOOLS = pathlib.Path(__file__).resolve().parents[1] / "tools"


def _process(tmp_path, source):
    path = tmp_path / "a.py"
    path.write_text(source)
    return _runner.process(str(path))


def test_the_table_matches_the_installed_tensorflow():
    import tensorflow as tf

    if not tf.__version__.startswith("2.21."):
        pytest.skip(f"the table lists TensorFlow 2.21, not {tf.__version__}")
    sys.path.insert(0, str(TOOLS))
    try:
        import v1_signatures
    finally:
        sys.path.remove(str(TOOLS))
    assert v1_signatures.table(tf) == _v1_signatures.SIGNATURES


@pytest.mark.parametrize(
    "call, v1",
    [
        ("tf.name_scope(name, default_name='top_k')", True),
        ("tf.name_scope(name, 'top_k', [x])", True),
        ("tf.name_scope('scope')", False),
        ("tf.reduce_sum(x, keep_dims=True)", True),
        ("tf.reduce_sum(x, 1, True)", False),
        ("tf.reduce_sum(*args, **kw)", False),
        ("tf.nn.relu(x)", False),
    ],
)
def test_v1_call(call, v1):
    node = ast.parse(call).body[0].value
    api = "tf." + ast.unparse(node.func).removeprefix("tf.")
    assert SPEC.v1_call(api, node) is v1


SOURCE = """\
import tensorflow as tf


def top_k_error(labels, predictions, k, name=None):
    with tf.name_scope(name, default_name="top_k_error"):
        labels = tf.expand_dims(tf.cast(labels, tf.int32), axis=-1)
        _, top_k = tf.nn.top_k(predictions, k=k)
        hits = tf.cast(tf.equal(top_k, labels), tf.float32)
        return 1 - tf.reduce_mean(hits, -1, keep_dims=True)


with tf.Graph().as_default():
    error = top_k_error([1, 0], [[0.1, 0.9], [0.8, 0.2]], 1, name=None)
    print(error.op.name.split("/")[0], tf.compat.v1.Session().run(error).tolist())
"""


def test_a_module_of_v1_calls_is_switched_to_compat_v1(tmp_path):
    result = _process(tmp_path, SOURCE)
    # name_scope's TF 1.x signature has a rule of its own (name-scope-v1),
    # fixed by the same switch; the other calls join the compat-v1 group.
    [finding, scope] = result.findings
    assert finding.rule.rule_id == "compat-v1" and finding.fixed
    assert "tf.reduce_mean (line 9)" in finding.text
    assert scope.rule.rule_id == "name-scope-v1" and scope.fixed
    assert (scope.line, scope.api) == (5, "tf.name_scope")
    assert result.rewritten.startswith(
        "import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()\n"
    )


def test_a_module_of_tf2_calls_is_left_alone(tmp_path):
    source = "import tensorflow as tf\n\nwith tf.name_scope('a'):\n    x = tf.reduce_sum([1], 0, True)\n"
    assert _process(tmp_path, source).findings == []


@pytest.mark.slow
def test_the_switched_module_runs_where_the_original_fails(tmp_path):
    original = tmp_path / "original.py"
    original.write_text(SOURCE)
    failed = run([sys.executable, str(original)], timeout=240)
    assert failed.returncode != 0 and "TypeError" in failed.stderr
    fixed = tmp_path / "fixed.py"
    fixed.write_text(_process(tmp_path, SOURCE).rewritten)
    proc = run([sys.executable, str(fixed)], timeout=240)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.splitlines() == ["top_k_error [[0.0], [0.0]]"]
