"""A name a contrib package re-exports from its modules resolves to its public
name: `from tensorflow.contrib.framework.python.ops import arg_scope` (the
package's __init__ star-imports arg_scope.py) is tf.contrib.framework.arg_scope."""

import textwrap

import pytest

from estimator_multigpu.migrate import _contrib_surface, _runner

SOURCE = textwrap.dedent(
    """\
    import tensorflow as tf
    from tensorflow.contrib.framework.python.ops import add_arg_scope
    from tensorflow.contrib.framework.python.ops import arg_scope


    @add_arg_scope
    def dense(x, units=1):
        return tf.layers.dense(x, units)


    def model(x):
        with arg_scope([dense], units=2):
            return dense(x)
    """
)


@pytest.mark.parametrize(
    "api, public",
    [
        (
            "tf.contrib.framework.python.ops.arg_scope",
            "tf.contrib.framework.arg_scope",
        ),
        (
            "tf.contrib.framework.python.ops.add_arg_scope",
            "tf.contrib.framework.add_arg_scope",
        ),
        (
            "tf.contrib.framework.python.ops.get_name_scope",
            "tf.contrib.framework.get_name_scope",
        ),
    ],
)
def test_a_package_re_export_is_its_public_name(api, public):
    assert _contrib_surface.public(api) == (public, api)


def test_a_module_of_the_package_still_resolves_through_its_own_names():
    assert _contrib_surface.public(
        "tf.contrib.framework.python.ops.variables.model_variable"
    ) == (
        "tf.contrib.framework.model_variable",
        "tf.contrib.framework.python.ops.variables.model_variable",
    )


def test_a_name_no_module_of_the_package_holds_is_no_public_name():
    found = _contrib_surface.public("tf.contrib.framework.python.ops.no_such_name")
    assert found == ("tf.contrib.framework.python", "tf.contrib.framework.python")


def test_fix_writes_tf_slim_for_the_package_spelling(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(SOURCE)
    result = _runner.process(str(path))
    assert not result.remaining, [f.rule.replacement for f in result.remaining]
    new = result.rewritten
    assert "tensorflow.contrib" not in new
    assert "@tf_slim.add_arg_scope\n" in new
    assert "with tf_slim.arg_scope([dense], units=2):" in new
