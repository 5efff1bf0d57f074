"""keras-input-shape keeps the declared shape wherever the module reads the built model."""

import ast
import textwrap

import pytest

from estimator_multigpu.migrate import _fixer, _passes
from tests import migrate_helpers as helpers

RULE = "keras-input-shape"
LAYER = "l.Flatten(input_shape=(784,))"


_MODULE = """
import tensorflow as tf
{head}

def create_model():
    l = tf.keras.layers
    return tf.keras.Sequential([{layer}, l.Dense(10)])


def main():
    model = create_model()
{body}
    image = tf.placeholder(tf.float32, [None, 28, 28])
    fn = tf.estimator.export.build_raw_serving_input_receiver_fn({{"image": image}})
"""


def _program(extra: str, head: str = "") -> str:
    """A module whose Flatten first layer --fix may drop, `extra` in main()."""
    body = textwrap.indent(textwrap.dedent(extra).strip(), " " * 4)
    return _MODULE.format(head=head, layer=LAYER, body=body)


def _fix(source: str) -> tuple[str, object]:
    """The `--fix` text of `source` and its keras-input-shape finding."""
    tree = ast.parse(source)
    findings = _passes.scan_tree(tree, source, "m.py")
    new = _fixer.fix(source, tree, findings).source
    (finding,) = [f for f in findings if f.rule.rule_id == RULE]
    return new, finding


# (extra code in main(), extra module head, what the finding names)
KEPT = {
    "layers_kernel": ("k = model.layers[1].kernel", "", "`.kernel`"),
    "get_layer_bias": ("b = model.get_layer(index=1).bias", "", "`.bias`"),
    "alias_of_a_layer": ("layer = model.layers[-1]\nb = layer.bias", "", "`.bias`"),
    "loop_over_layers": (
        "for layer in model.layers:\n    print(layer.bias)",
        "",
        "`.bias`",
    ),
    "getattr_constant": (
        "w = getattr(model, 'weights')",
        "",
        "`getattr(model, 'weights')`",
    ),
    "getattr_variable": (
        "name = 'weights'\nw = getattr(model, name)",
        "",
        "`getattr(model, name)`",
    ),
    "hasattr": ("ok = hasattr(model.layers[1], 'kernel')", "", "`hasattr("),
    "vars": ("state = vars(model)", "", "`vars(model)`"),
    "dunder_dict": ("state = model.__dict__", "", "`.__dict__`"),
    "imported_function": (
        "describe(model)",
        "from mylib import describe",
        "`describe`",
    ),
    "keyword_argument": (
        "ckpt = tf.train.Checkpoint(model=model)",
        "",
        "`tf.train.Checkpoint`",
    ),
    "inside_a_list": (
        "blob = pickle.dumps([model])",
        "import pickle",
        "`pickle.dumps`",
    ),
    "plot_model": (
        "plot_model(model, 'm.png')",
        "from tensorflow.keras.utils import plot_model",
        "`plot_model`",
    ),
    "layer_get_weights": ("w = model.layers[0].get_weights()", "", "`.get_weights`"),
    "count_params": ("n = model.count_params()", "", "`.count_params`"),
    "variables": ("v = model.variables", "", "`.variables`"),
    "trainable_weights": ("v = model.trainable_weights", "", "`.trainable_weights`"),
    "output_shape": ("s = model.output_shape", "", "`.output_shape`"),
    "input": ("x = model.input", "", "`.input`"),
    "last_layer_output": ("y = model.layers[-1].output", "", "`.output`"),
    "to_json": ("text = model.to_json()", "", "`.to_json`"),
    "get_config": ("config = model.get_config()", "", "`.get_config`"),
    "built": ("ready = model.built", "", "`.built`"),
    "local_function_reads_its_argument": (
        "describe(model)",
        "def describe(m):\n    return m.output\n",
        "`.output`",
    ),
    "attribute_of_an_object": (
        "holder = Holder()\nholder.net = model\nprint(holder.net.output)",
        "class Holder:\n    pass\n",
        "`.output`",
    ),
}


@pytest.mark.parametrize("extra,head,why", KEPT.values(), ids=KEPT.keys())
def test_a_read_of_the_built_model_keeps_the_declared_shape(extra, head, why):
    new, finding = _fix(_program(extra, head))
    assert LAYER in new
    assert not finding.fixed
    assert "--fix leaves it" in finding.rule.replacement
    assert why in finding.rule.replacement


# What reads nothing of the built model: the fix still applies.
DROPPED = {
    "called": "logits = model(tf.zeros([1, 784]))",
    "methods_that_build": "model.compile('sgd', 'mse')\nmodel.predict(tf.zeros([1, 784]))",
    "tf_module_names": (
        "v = tf.trainable_variables()\n"
        "loss = tf.losses.mean_squared_error(tf.zeros([1]), tf.zeros([1]))\n"
        "s = tf.summary.scalar('a', 1.0)"
    ),
    "other_objects": "args = parse()\nprint(args.output, args.input)",
    "printed": "print(model)\nassert isinstance(model, tf.keras.Model)",
    "a_function_passed_not_the_model": "est = tf.estimator.Estimator(main)",
    "local_function_only_calls_it": "run(model, tf.zeros([1, 784]))",
    "saver": "saver = tf.train.Saver()\nsaver.save(None, 'x')",
}
_DROPPED_HEAD = "def run(m, x):\n    return m(x)\n"


@pytest.mark.parametrize("extra", DROPPED.values(), ids=DROPPED.keys())
def test_what_reads_no_built_state_still_gets_the_fix(extra):
    new, finding = _fix(_program(extra, _DROPPED_HEAD))
    assert finding.fixed, finding.rule.replacement
    assert LAYER not in new and "l.Flatten()" in new


_RUN = """
import tensorflow as tf

def create_model():
    l = tf.keras.layers
    return tf.keras.Sequential([l.Reshape([784], input_shape=(784,)), l.Dense(10)])

def export():
    image = tf.placeholder(tf.float32, [None, 28, 28])
    return tf.estimator.export.build_raw_serving_input_receiver_fn({"image": image})

model = create_model()
%s
print("OK")
"""
RUNS = {
    "layers_kernel": "k = model.layers[1].kernel",
    "getattr_weights": "assert getattr(model, 'weights')",
    "layer_get_weights": "assert model.layers[1].get_weights()",
    "count_params": "assert model.count_params() == 7850",
    "output_shape": "assert model.output_shape == (None, 10)",
    "to_json": "assert 'batch' in model.to_json()",
}


@pytest.mark.slow
def test_the_fixed_module_runs_where_the_original_ran(tmp_path):
    runs = []
    for name, extra in RUNS.items():
        path = tmp_path / f"{name}.py"
        path.write_text(_RUN % extra)
        fixed = helpers.run_cli("--fix", "--no-backup", path)
        assert "keras-input-shape" in fixed.stdout, fixed.stdout + fixed.stderr
        runs.append((name, path, []))
    out = helpers.run_scripts(
        runs, helpers.V1, helpers.RESET_GRAPH, TF_USE_LEGACY_KERAS="1"
    )
    assert {n: o["error"] for n, o in out.items()} == dict.fromkeys(RUNS)
    assert all(o["stdout"] == ["OK"] for o in out.values())


_CUSTOM_LAYER = """
class Scale(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.kernel = self.add_weight("kernel", [int(input_shape[-1])])

    def call(self, x):
        return x * self.kernel
"""


def test_a_custom_layers_own_weights_in_build_and_call_still_get_the_fix():
    new, finding = _fix(
        _program("y = Scale()(model(tf.zeros([1, 784])))", _CUSTOM_LAYER)
    )
    assert finding.fixed, finding.rule.replacement
    assert LAYER not in new
