"""`--fix` drops a shape-agnostic first layer's declared `input_shape` (keras-input-shape)."""

import ast
import textwrap

import numpy as np
import pytest
import tensorflow as tf

from estimator_multigpu.migrate import _fixer, _passes
from tests import migrate_helpers as helpers

RULE = "keras-input-shape"


def _fix(source: str) -> tuple[str, list]:
    """The `--fix` text of `source` and its keras-input-shape findings."""
    source = textwrap.dedent(source)
    tree = ast.parse(source)
    findings = _passes.scan_tree(tree, source, "m.py")
    new = _fixer.fix(source, tree, findings).source
    return new, [f for f in findings if f.rule.rule_id == RULE]


def _program(first_layer: str, extra: str = "") -> str:
    return f"""
    import tensorflow as tf
    def create_model():
        l = tf.keras.layers
        return tf.keras.Sequential([
            {first_layer},
            l.Dense(10)])
    model = create_model()
    {extra}
    image = tf.placeholder(tf.float32, [None, 28, 28])
    fn = tf.estimator.export.build_raw_serving_input_receiver_fn({{"image": image}})
    """


@pytest.mark.parametrize(
    "layer,fixed",
    [
        (
            "l.Reshape(target_shape=[28, 28, 1], input_shape=(28 * 28,))",
            "l.Reshape(target_shape=[28, 28, 1])",
        ),
        ("l.Reshape([784], input_shape=(28 * 28,))", "l.Reshape([784])"),
        (
            "l.Reshape(input_shape=(784,), target_shape=[784])",
            "l.Reshape(target_shape=[784])",
        ),
        ("l.Flatten(input_shape=(784,))", "l.Flatten()"),
        ("l.Flatten(input_dim=784)", "l.Flatten()"),
    ],
    ids=[
        "reshape_last_kw",
        "reshape_positional",
        "reshape_first_kw",
        "flatten",
        "input_dim",
    ],
)
def test_the_declared_shape_is_dropped_and_the_finding_fixed(layer, fixed):
    new, (finding,) = _fix(_program(layer))
    assert fixed in new and layer not in new
    assert "tf.placeholder(tf.float32, [None, 28, 28])" in new  # the signature stays
    assert finding.fixed
    assert "--fix drops that argument" in finding.rule.replacement
    assert "sequential/conv2d/kernel" in finding.rule.replacement


@pytest.mark.parametrize(
    "layer,extra,why",
    [
        (
            "l.Reshape([784], input_shape=(784,))",
            "model.summary()",
            "`.summary()` at line 9",
        ),
        (
            "l.Reshape([784], input_shape=(784,))",
            "print(model.input_shape)",
            "`.input_shape`",
        ),
        (
            "l.Reshape([784], input_shape=(784,))",
            "n = len(model.weights)",
            "`.weights`",
        ),
        ("l.Reshape([784], input_shape=(784,))", "model.save('m.h5')", "`.save`"),
        ("l.Dense(784, input_shape=(784,))", "", "`Dense` is not shape-agnostic"),
    ],
    ids=["summary", "input_shape_read", "weights_read", "save", "dense"],
)
def test_the_declared_shape_stays_where_the_model_needs_it(layer, extra, why):
    source = _program(layer, extra)
    new, (finding,) = _fix(source)
    assert layer in new
    assert not finding.fixed
    assert (
        "--fix leaves it" in finding.rule.replacement
        and why in finding.rule.replacement
    )
    assert finding.rule.replacement.endswith("{'image': image})")


def test_a_layer_not_first_in_a_sequential_list_stays():
    source = """
    import tensorflow as tf
    l = tf.keras.layers
    first = l.Reshape([784], input_shape=(784,))
    model = tf.keras.Sequential([first, l.Dense(10)])
    image = tf.placeholder(tf.float32, [None, 28, 28])
    fn = tf.estimator.export.build_raw_serving_input_receiver_fn({"image": image})
    """
    new, (finding,) = _fix(source)
    assert "input_shape=(784,)" in new and not finding.fixed
    assert "not the literal first layer" in finding.rule.replacement


def test_a_saver_save_and_tf_summary_do_not_keep_it():
    extra = (
        "saver = tf.train.Saver(); saver.save(None, 'x'); tf.summary.scalar('a', 1.0)"
    )
    new, (finding,) = _fix(_program("l.Reshape([784], input_shape=(784,))", extra))
    assert finding.fixed and "input_shape" not in new.split("image =")[0]


PROGRAM = """
import sys

import numpy as np
import tensorflow as tf


def create_model():
    layers = tf.keras.layers
    return tf.keras.Sequential([
        layers.Reshape(target_shape=[28, 28, 1], input_shape=(28 * 28,)),
        layers.Conv2D(2, 3, padding="same"),
        layers.Flatten(),
        layers.Dense(10),
    ])


def model_fn(features, labels, mode):
    model = create_model()
    image = features["image"] if isinstance(features, dict) else features
    logits = model(image, training=mode == tf.estimator.ModeKeys.TRAIN)
    if mode == tf.estimator.ModeKeys.PREDICT:
        predictions = {"logits": logits}
        return tf.estimator.EstimatorSpec(
            mode, predictions=predictions,
            export_outputs={"classify": tf.estimator.export.PredictOutput(predictions)})
    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    step = tf.train.get_or_create_global_step()
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, step)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def images():
    return np.random.RandomState(0).rand(8, 784).astype(np.float32)


def train_input_fn():
    labels = np.arange(8, dtype=np.int32) % 10
    return tf.data.Dataset.from_tensor_slices((images(), labels)).batch(4)


def main(model_dir, export_dir):
    classifier = tf.estimator.Estimator(model_fn, model_dir=model_dir)
    classifier.train(train_input_fn, steps=2)
    flat = lambda: tf.data.Dataset.from_tensors({"image": images()[:1]})
    print("FLAT", next(iter(classifier.predict(flat)))["logits"].tolist())
    image = tf.placeholder(tf.float32, [None, 28, 28])
    input_fn = tf.estimator.export.build_raw_serving_input_receiver_fn({"image": image})
    print("EXPORTED", classifier.export_savedmodel(export_dir, input_fn).decode())


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
"""


def _serve(export_dir: str, image: np.ndarray) -> tuple[list, list]:
    """The served input's shape and the logits the SavedModel gives `image`."""
    with tf.Graph().as_default(), tf.compat.v1.Session() as sess:
        meta = tf.compat.v1.saved_model.loader.load(sess, ["serve"], export_dir)
        signature = meta.signature_def["classify"]
        x = signature.inputs["image"]
        shape = [d.size for d in x.tensor_shape.dim]
        y = signature.outputs["logits"].name
        return shape, sess.run(y, {x.name: image})[0].tolist()


@pytest.mark.slow
def test_after_fix_it_trains_exports_and_serves_28x28_as_the_flat_input(tmp_path):
    source = tmp_path / "program.py"
    source.write_text(PROGRAM)
    fixed = helpers.run_cli("--fix", "--no-backup", source)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    text = source.read_text()
    assert "input_shape=(28 * 28,)" not in text
    kept = tmp_path / "kept.py"  # the same fix with the declared shape put back
    kept.write_text(
        text.replace(
            "target_shape=[28, 28, 1]", "target_shape=[28, 28, 1], input_shape=(784,)"
        )
    )
    runs = [
        ("fixed", source, [tmp_path / "m", tmp_path / "e"]),
        ("kept", kept, [tmp_path / "m2", tmp_path / "e2"]),
    ]
    out = helpers.run_scripts(
        runs, helpers.V1, helpers.RESET_GRAPH, TF_USE_LEGACY_KERAS="1"
    )
    assert "is incompatible" in out["kept"]["error"]  # what the drop removes
    assert out["fixed"]["error"] is None, out["fixed"]
    lines = dict(line.split(" ", 1) for line in out["fixed"]["stdout"])
    flat = [float(v) for v in lines["FLAT"].strip("[]").split(",")]
    image = np.random.RandomState(0).rand(8, 784).astype(np.float32)[:1]
    shape, served = _serve(lines["EXPORTED"], image.reshape(1, 28, 28))
    assert shape == [-1, 28, 28]
    np.testing.assert_allclose(served, flat, rtol=1e-5, atol=1e-6)
    names = [n for n, _ in tf.train.list_variables(str(tmp_path / "m"))]
    assert "sequential/conv2d/kernel" in names  # as the fixed finding says


def test_another_file_reading_the_built_model_keeps_the_shape(tmp_path):
    from estimator_multigpu.migrate import _queue_program

    model = tmp_path / "model_def.py"
    model.write_text(textwrap.dedent(_program("l.Flatten(input_shape=(784,))")))
    other = tmp_path / "report.py"
    other.write_text("import model_def\nmodel_def.create_model().summary()\n")
    (alone,) = _queue_program.process_all([str(model)])
    assert "input_shape" not in alone.rewritten.split("image =")[0]
    both = _queue_program.process_all([str(model), str(other)])
    (finding,) = [f for f in both[0].findings if f.rule.rule_id == RULE]
    assert not finding.fixed
    assert "input_shape=(784,)" in (both[0].rewritten or both[0].original)
    assert f"{other} imports this module and reads `.summary()` at line 2" in (
        finding.rule.replacement
    )
    assert finding.rule.replacement.endswith("{'image': image})")
