"""TF 1.x keywords of a call --fix rewrites to a TF 2 name are renamed to TF 2's,
row by row as tf_upgrade_v2's function_keyword_renames has them."""

import inspect

import pytest
from migrate_helpers import fix_source

from estimator_multigpu.migrate import _api_changes, _api_spec

ROWS = sorted(_api_spec.SUCCESSOR_KEYWORD_RENAMES.items())


def _resolve(name):
    import tensorflow as tf

    obj = tf
    for part in name.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


@pytest.fixture(scope="module")
def upgrade_renames():
    from tensorflow.tools.compatibility import tf_upgrade_v2

    return tf_upgrade_v2.TFAPIChangeSpec().function_keyword_renames


@pytest.mark.parametrize("name, renames", ROWS, ids=[n for n, _ in ROWS])
def test_each_row_is_tf_upgrade_v2s_and_tf2_takes_the_new_keyword(
    name, renames, upgrade_renames
):
    assert renames, name
    for old, new in renames.items():
        assert upgrade_renames[name][old] == new, (name, old)
    params = inspect.signature(_resolve(name)).parameters
    assert set(renames.values()) <= set(params), (name, list(params))


def _fixed(tmp_path, source):
    return fix_source(tmp_path, source).rewritten


def test_a_private_call_rewritten_to_a_tf2_name_gets_tf2s_keywords(tmp_path):
    new = _fixed(
        tmp_path,
        "import tensorflow as tf\n"
        "from tensorflow.python.ops import math_ops\n"
        "s = math_ops.reduce_sum(x, reduction_indices=[1], keep_dims=True)\n",
    )
    assert "s = tf.math.reduce_sum(x, axis=[1], keepdims=True)\n" in new


def test_a_compat_v1_successor_keeps_tf1s_keywords(tmp_path):
    new = _fixed(
        tmp_path,
        "import tensorflow as tf\n"
        "from tensorflow.python.ops import nn_ops\n"
        "c = nn_ops.conv2d(x, filter=w, strides=[1, 1, 1, 1], padding='SAME')\n",
    )
    assert "c = tf.compat.v1.nn.conv2d(x, filter=w," in new


def test_the_renamed_call_runs_on_tf2():
    import tensorflow as tf

    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    assert tf.math.reduce_sum(x, axis=[1], keepdims=True).numpy().tolist() == [
        [3.0],
        [7.0],
    ]
    assert _api_changes.successor_renames("tf.math.reduce_sum") == {
        "keep_dims": "keepdims",
        "reduction_indices": "axis",
    }
    assert _api_changes.successor_renames("tf.compat.v1.nn.conv2d") == {}
