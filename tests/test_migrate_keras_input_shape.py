"""A serving placeholder the model's declared Keras `input_shape` refuses (official/mnist)."""

import ast
import textwrap

import pytest
import tensorflow as tf

from estimator_multigpu.migrate import (
    _keras_input_shape as keras_input_shape,
)
from estimator_multigpu.migrate import (
    _runner as runner,
)
from tests.migrate_helpers import CORPUS
from tests.test_migrate_compat_v1 import _marked

SCRIPT = CORPUS / "keras_serving_shape.py"


def _found(source: str) -> list:
    return list(keras_input_shape.find(ast.parse(textwrap.dedent(source))))


def _source(placeholder_shape: str, input_shape: str = "(28 * 28,)") -> str:
    return f"""
    import tensorflow as tf
    model = tf.keras.Sequential([tf.keras.layers.Reshape([28, 28, 1], input_shape={input_shape})])
    image = tf.placeholder(tf.float32, {placeholder_shape})
    fn = tf.estimator.export.build_raw_serving_input_receiver_fn({{"image": image}})
    """


def test_the_corpus_script_gets_the_finding_and_nothing_else():
    findings = runner.process(str(SCRIPT)).findings
    assert sorted((f.line, f.rule.rule_id) for f in findings) == _marked(SCRIPT)


def test_the_finding_names_both_shapes_and_the_exact_receiver():
    (hit,) = _found(_source("[None, 28, 28]"))
    text = hit[3].replacement
    assert "`image` is [None, 28, 28]" in text
    assert "declares input_shape=(784,)" in text
    assert text.endswith(
        "lambda: emg.estimator.export.ServingInputReceiver("
        "{'image': tf.reshape(image, [-1, 784])}, {'image': image})"
    )


@pytest.mark.parametrize(
    "placeholder,input_shape",
    [
        ("[None, 784]", "(28 * 28,)"),  # already the declared shape
        ("[None, 28, 27]", "(28 * 28,)"),  # another number of values: not this
        ("[None, 28, 28]", "(n,)"),  # not a literal: cannot tell
        ("shape", "(784,)"),  # not a literal placeholder shape
    ],
    ids=["same_shape", "other_size", "symbolic_input_shape", "symbolic_placeholder"],
)
def test_no_finding_where_the_shapes_agree_or_cannot_be_read(placeholder, input_shape):
    assert _found(_source(placeholder, input_shape)) == []


def test_the_suggested_receiver_feeds_the_declared_shape_and_serves_the_old_one():
    from estimator_multigpu import estimator as est

    (hit,) = _found(_source("[None, 28, 28]"))
    suggested = hit[3].replacement.split("replace the receiver fn with: ", 1)[1]
    with tf.Graph().as_default():
        image = tf.compat.v1.placeholder(tf.float32, [None, 28, 28])
        namespace = {"emg": __import__("estimator_multigpu"), "tf": tf, "image": image}
        receiver = eval(suggested, namespace)()  # noqa: S307 - the finding's own text
        assert isinstance(receiver, est.export.ServingInputReceiver)
        assert receiver.features["image"].shape.as_list() == [None, 784]
        assert receiver.receiver_tensors["image"].shape.as_list() == [None, 28, 28]
