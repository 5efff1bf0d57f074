"""`layer.apply(x)`, TF 1.x's alias of calling a layer, becomes `layer(x)`
where the receiver is provably a layer; every other `apply` stays."""

import sys

import pytest
from migrate_helpers import CORPUS, fix_with_passes, run

from estimator_multigpu.migrate import _runner


def fix(source):
    fixed, findings = fix_with_passes(source)
    return fixed, [f for f in findings if f.rule.rule_id == "layer-apply"]


@pytest.mark.parametrize(
    "line, new",
    [
        ("y = tf.keras.layers.Dense(3).apply(x)", "y = tf.keras.layers.Dense(3)(x)"),
        (
            "y = tf.layers.Conv2D(4, 3).apply(x, training=t)",
            "y = tf.layers.Conv2D(4, 3)(x, training=t)",
        ),
        ("y = keras.layers.Flatten().apply(x)", "y = keras.layers.Flatten()(x)"),
        ("y = tf.keras.Sequential([]).apply(x)", "y = tf.keras.Sequential([])(x)"),
        (
            "y = functools.partial(tf.keras.layers.Dense, 3)().apply(x)",
            "y = functools.partial(tf.keras.layers.Dense, 3)()(x)",
        ),
    ],
)
def test_a_layer_made_in_place_is_called(line, new):
    source = f"import functools\nimport keras\nimport tensorflow as tf\n{line}\n"
    fixed, applies = fix(source)
    assert len(applies) == 1 and applies[0].fixed
    assert fixed.splitlines()[-1] == new


def test_a_layer_by_name_dict_and_factory_function_is_called():
    fixed, applies = fix(
        """\
        import functools
        import tensorflow as tf

        def block(units, **kw):
            layer = tf.keras.Sequential([tf.keras.layers.Dense(units, **kw)])
            return layer

        def net(x, kind):
            conv = {"a": functools.partial(tf.keras.layers.Dense, use_bias=False),
                    "b": functools.partial(block)}
            x = conv[kind](
                4).apply(x)
            top = tf.keras.layers.Dense(1)
            return top.apply(x)
        """
    )
    assert [f.line for f in applies] == [12, 14]
    assert "conv[kind](\n        4)(x)" in fixed
    assert "return top(x)" in fixed


@pytest.mark.parametrize(
    "line",
    [
        "op = tf.train.ExponentialMovingAverage(0.9).apply(tf.trainable_variables())",
        "ds = tf.data.Dataset.range(3).apply(tf.data.experimental.unbatch())",
        "y = make_layer().apply(x)",
        "y = layer.apply(x)",
        "y = tf.keras.layers.Dense(3).apply()",
    ],
)
def test_another_apply_stays(line):
    source = "import tensorflow as tf\nlayer = tf.keras.layers.Dense(1)\n"
    source += f"def f(layer):\n    {line}\n"
    fixed, applies = fix(source)
    assert applies == []
    assert line in fixed


def test_a_name_bound_to_something_else_too_stays():
    fixed, applies = fix(
        """\
        import tensorflow as tf
        dense = tf.keras.layers.Dense(1)
        if flag:
            dense = make()
        y = dense.apply(x)
        """
    )
    assert applies == [] and "dense.apply(x)" in fixed


@pytest.mark.slow
def test_the_rewritten_corpus_script_runs_on_tf2(tmp_path):
    path = tmp_path / "layer_apply_calls.py"
    path.write_text((CORPUS / "layer_apply_calls.py").read_text())
    result = _runner.process(str(path))
    assert all(f.fixed for f in result.findings), [
        f.api for f in result.findings if not f.fixed
    ]
    assert [f.line for f in result.findings if f.rule.rule_id == "layer-apply"] == [
        30,
        31,
        33,
    ]
    path.write_text(result.rewritten)
    proc = run([sys.executable, str(path)], timeout=240)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.splitlines() == ["outputs [[[12.0]], [[12.0]]]", "row [1, 2]"]
