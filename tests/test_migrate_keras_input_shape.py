"""A serving placeholder the model's declared Keras `input_shape` refuses (official/mnist)."""

import ast
import pathlib
import re
import textwrap

import numpy as np
import pytest
import tensorflow as tf

from estimator_multigpu.migrate import (
    _keras_input_shape,
    _runner,
)
from tests.migrate_helpers import CORPUS
from tests.test_migrate_compat_v1 import _marked

SCRIPT = CORPUS / "keras_serving_shape.py"


def _found(source: str) -> list:
    return list(_keras_input_shape.find(ast.parse(textwrap.dedent(source))))


def _source(placeholder_shape: str, input_shape: str = "(28 * 28,)") -> str:
    return f"""
    import tensorflow as tf
    model = tf.keras.Sequential([tf.keras.layers.Reshape([28, 28, 1], input_shape={input_shape})])
    image = tf.placeholder(tf.float32, {placeholder_shape})
    fn = tf.estimator.export.build_raw_serving_input_receiver_fn({{"image": image}})
    """


def test_the_corpus_script_gets_the_finding_and_nothing_else():
    findings = _runner.process(str(SCRIPT)).findings
    assert sorted((f.line, f.rule.rule_id) for f in findings) == _marked(SCRIPT)


def test_the_finding_names_both_shapes_and_the_exact_receiver():
    (hit,) = _found(_source("[None, 28, 28]"))
    text = hit[3].replacement
    assert "`image` is [None, 28, 28]" in text
    assert "declares input_shape=(784,)" in text
    assert text.endswith(
        "replace the receiver fn with `serving_input_receiver_fn`, which builds "
        "its placeholder in the export's graph: def serving_input_receiver_fn(): "
        "image = tf.placeholder(tf.float32, [None, 28, 28]); "
        "return emg.estimator.export.ServingInputReceiver("
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


def _suggested(source: str) -> str:
    (hit,) = _found(source)
    return hit[3].replacement.split("in the export's graph: ", 1)[1]


def test_every_feature_gets_a_placeholder_of_the_receiver_fn_itself():
    source = _source("[None, 28, 28]").replace(
        '{"image": image}', '{"image": image, "key": key, "scale": scale}'
    )
    source = source.replace(
        "    fn =",
        "    key = tf.placeholder(tf.string, [None], name='key')\n"
        "    scale = tf.ones([1])\n    fn =",
    )
    code = _suggested(source)
    assert "key = tf.placeholder(tf.string, [None], name='key')" in code
    assert "scale_input = tf.placeholder(scale.dtype, scale.shape)" in code
    assert code.endswith(
        "{'image': tf.reshape(image, [-1, 784]), 'key': key, 'scale': scale_input}, "
        "{'image': image, 'key': key, 'scale': scale_input})"
    )


GUIDE = (pathlib.Path(__file__).resolve().parents[1] / "migration_guide.md").read_text(
    encoding="utf-8"
)


def _guide_receiver() -> str:
    """The receiver fn of migration_guide.md's keras-input-shape section."""
    section = GUIDE.split('<a id="keras-input-shape"></a>', 1)[1]
    block = re.search(r"```python\n(.*?)```", section, re.S)[1]
    return textwrap.dedent(block)


def test_the_guide_gives_the_receiver_the_finding_gives():
    code = _suggested(_source("[None, 28, 28]"))
    assert ast.dump(ast.parse(_guide_receiver())) == ast.dump(ast.parse(code))


def _model_fn(features, labels, mode):
    """Softmax regression on the declared flat `[batch_size, 784]` input."""
    from estimator_multigpu import estimator as est

    v1 = tf.compat.v1
    kernel = v1.get_variable("kernel", [784, 10], initializer=v1.zeros_initializer())
    logits = tf.matmul(features["image"], kernel)
    if mode == est.ModeKeys.PREDICT:
        return est.EstimatorSpec(mode, predictions={"logits": logits})
    loss = v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    step = v1.train.get_or_create_global_step()
    train_op = v1.train.GradientDescentOptimizer(0.1).minimize(loss, step)
    return est.EstimatorSpec(mode, loss=loss, train_op=train_op)


@pytest.mark.parametrize("where", ["finding", "guide"])
def test_the_suggested_receiver_exports_and_serves_the_old_shape(tmp_path, where):
    import estimator_multigpu as emg

    code = _suggested(_source("[None, 28, 28]")) if where == "finding" else None
    with tf.Graph().as_default():  # the program's own placeholder, as the module has it
        image = tf.compat.v1.placeholder(tf.float32, [None, 28, 28])
    namespace = {"emg": emg, "tf": tf.compat.v1, "image": image}
    exec(code or _guide_receiver(), namespace)  # noqa: S102 - the suggested text
    estimator = emg.estimator.Estimator(_model_fn, model_dir=str(tmp_path / "m"))
    data = {"image": np.zeros([2, 784], np.float32)}, np.zeros([2], np.int32)
    estimator.train(lambda: tf.data.Dataset.from_tensors(data), steps=1)
    receiver_fn = namespace["serving_input_receiver_fn"]
    path = estimator.export_saved_model(str(tmp_path / "e"), receiver_fn)
    served = tf.saved_model.load(path.decode()).signatures["serving_default"]
    (spec,) = served.structured_input_signature[1].values()
    assert spec.shape.as_list() == [None, 28, 28]
    logits = served(image=tf.zeros([3, 28, 28]))["logits"]
    assert logits.shape == (3, 10)
