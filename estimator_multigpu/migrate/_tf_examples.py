"""Imports from `tensorflow.examples`, which no TensorFlow 2 package ships."""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import _astutil, _tutorial_imports
from estimator_multigpu.migrate._guide_rules import GuideRule, rule

RULE_ID = "tf-examples"
ANCHOR = "tf-examples"
_ROOT = "tensorflow.examples"
_SUMMARY = (
    "tensorflow.examples is not in any TensorFlow 2 package "
    "(ModuleNotFoundError on import)"
)
_INPUT_DATA = (
    "(x_train, y_train), (x_test, y_test) = tf.keras.datasets.mnist.load_data() "
    "(uint8 arrays of 28x28 images and class ids; read_data_sets(...).train."
    "next_batch(n) becomes tf.data.Dataset.from_tensor_slices((x_train.reshape("
    "-1, 784).astype('float32') / 255.0, {labels})).shuffle(60000).batch(n))"
)
_ONE_HOT = "tf.one_hot(y_train, 10)"


def _one_hot(tree: ast.AST | None, name: str) -> str | None:
    """The text of `one_hot=` in `<name>.read_data_sets(...)` calls, if any."""
    for node in _astutil.walk(tree) if tree is not None else ():
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        if node.func.attr != "read_data_sets":
            continue
        if getattr(node.func.value, "id", None) != name:
            continue
        values = [k.value for k in node.keywords if k.arg == "one_hot"]
        values += node.args[3:4]  # read_data_sets(train_dir, fake_data, one_hot)
        if values:
            return ast.unparse(values[0])
    return None


def _labels(flag: str | None) -> str:
    """The labels read_data_sets gave: one-hot rows with one_hot=True, else ids."""
    if flag in (None, "False"):
        return "y_train"
    if flag == "True":
        return _ONE_HOT
    return f"{_ONE_HOT} if {flag} else y_train"


def _source(module: str) -> str:
    return f"tensorflow/{module[len('tensorflow.') :].replace('.', '/')}.py"


def _vendor(module: str, name: str) -> str:
    stem = module.rsplit(".", 1)[-1]
    statement = f"import {stem}" if name == stem else f"import {stem} as {name}"
    return (
        f"copy {_source(module)} from the TF 1.x source tree (Apache-2.0) next "
        f"to this script, then write: {statement}"
    )


def _imported(node: ast.AST) -> list[tuple[str, str, bool]]:
    """(dotted module, local name, plain) for each `tensorflow.examples` module
    imported; `plain`: a bare `import a.b.c`, which binds `a`."""
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        if node.module == _ROOT or node.module.startswith(_ROOT + "."):
            return [
                (f"{node.module}.{a.name}", a.asname or a.name, False)
                for a in node.names
            ]
    if isinstance(node, ast.Import):
        return [
            (a.name, a.asname or a.name.rsplit(".", 1)[-1], not a.asname)
            for a in node.names
            if a.name.startswith(_ROOT + ".")
        ]
    return []


def _drop_in(module: str, name: str, plain: bool) -> str | None:
    """The import of `module`'s drop-in in `estimator_multigpu.tutorials`, if any."""
    new = _tutorial_imports.target(module)
    if new is None:
        return None
    parent, _, last = new.rpartition(".")
    statement = f"from {parent} import {last}" + ("" if last == name else f" as {name}")
    return (
        f"{f'import {new}' if plain else statement} ({new} mirrors TF 1.x's "
        "module; emg-migrate --fix writes this import)"
    )


def _replacement(module: str, name: str, tree: ast.AST | None, plain=False) -> str:
    drop_in = _drop_in(module, name, plain)
    if module.endswith("tutorials.mnist.input_data"):
        keras = _INPUT_DATA.format(labels=_labels(_one_hot(tree, name)))
        return f"{drop_in}; or, to leave the next_batch feed loop: {keras}"
    return drop_in or _vendor(module, name)


def example_rule(
    module: str, name: str, tree: ast.AST | None = None, plain: bool = False
) -> GuideRule:
    """The finding's rule for importing `module` as `name` (in `tree`)."""
    return rule(RULE_ID, _SUMMARY, _replacement(module, name, tree, plain), ANCHOR)


def find(tree: ast.Module):
    """Yields (node, api, text, rule) for each `tensorflow.examples` import."""
    for node in _astutil.walk(tree):
        for module, name, plain in _imported(node):
            found = example_rule(module, name, tree, plain)
            yield node, module, ast.unparse(node), found
