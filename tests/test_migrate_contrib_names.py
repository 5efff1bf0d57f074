"""tf.contrib names of the era get their exact replacement, and each replacement exists."""

import re
import sys

import numpy as np
import pytest
from migrate_helpers import run

from estimator_multigpu.migrate import (
    _contrib_names,
    _runner,
)

NAMES = sorted(_contrib_names.REPLACEMENTS)
# tf.compat.v1.layers exists on TF 2.16+ only with tf-keras and TF_USE_LEGACY_KERAS=1.
LEGACY = "tf.compat.v1.layers."


def _tf_names(text):
    return [n.rstrip(".") for n in re.findall(r"\btf\.[\w.]+", text) if "*" not in n]


def _exists(tf, dotted):
    *parents, last = dotted.split(".")[1:]
    module = tf
    for name in parents:
        module = getattr(module, name)
    return last in dir(module)


@pytest.mark.parametrize("name", NAMES)
def test_every_named_replacement_exists_in_tensorflow(name):
    import tensorflow as tf

    names = _tf_names(_contrib_names.REPLACEMENTS[name])
    assert [n for n in names if not n.startswith(LEGACY) and not _exists(tf, n)] == []


@pytest.mark.slow
def test_the_legacy_layer_names_migrate_writes_exist_with_tf_keras():
    # Every tf.compat.v1.layers name any rule writes (the contrib layers
    # with a tf_slim copy write tf_slim's instead).
    import pathlib

    package = pathlib.Path(_contrib_names.__file__).parent
    names = sorted(
        {
            m.group(0)
            for path in package.rglob("*.py")
            for m in re.finditer(
                r"tf\.compat\.v1\.layers\.[A-Za-z_]\w*", path.read_text()
            )
        }
    )
    assert len(names) >= 10, names
    code = (
        "import os, sys; os.environ['TF_USE_LEGACY_KERAS'] = '1'\n"
        "import tensorflow as tf\n"
        "missing = [n for n in sys.argv[1:] if n.rsplit('.', 1)[1] not in "
        "dir(tf.compat.v1.layers)]\n"
        "print(missing)\n"
    )
    proc = run([sys.executable, "-c", code, *names], timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().splitlines()[-1] == "[]"


@pytest.mark.parametrize(
    "use, replacement",
    [
        (
            "tf.contrib.framework.get_or_create_global_step()",
            # the surface table's exact successor, written by --fix
            "tf.compat.v1.train.get_or_create_global_step (the same arguments",
        ),
        ("tf.contrib.rnn.LSTMCell(4)", "tf.compat.v1.nn.rnn_cell.LSTMCell ("),
        ("tf.contrib.data.AUTOTUNE", "tf.data.AUTOTUNE"),
    ],
)
def test_a_known_contrib_name_gets_its_exact_replacement(tmp_path, use, replacement):
    path = tmp_path / "a.py"
    path.write_text(f"import tensorflow.compat.v1 as tf\nx = {use}\n")
    [finding] = _runner.process(str(path)).findings
    assert finding.rule.rule_id == "contrib"
    assert finding.rule.replacement.startswith(replacement)


def test_an_unknown_contrib_name_keeps_the_general_advice(tmp_path):
    path = tmp_path / "a.py"
    path.write_text("import tensorflow.compat.v1 as tf\nx = tf.contrib.foo.bar\n")
    [finding] = _runner.process(str(path)).findings
    assert "the core API named in the guide" in finding.rule.replacement


def test_l2_regularizer_replacements_give_contribs_value():
    import tensorflow as tf

    scale, w = 0.3, tf.constant([[1.0, -2.0], [0.5, 3.0]])
    contrib_value = scale * 0.5 * float(np.sum(w.numpy() ** 2))  # scale * l2_loss(w)
    assert float(scale * tf.nn.l2_loss(w)) == pytest.approx(contrib_value)
    assert float(tf.keras.regularizers.l2(scale / 2)(w)) == pytest.approx(contrib_value)
