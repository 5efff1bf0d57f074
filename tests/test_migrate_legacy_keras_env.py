"""TF_USE_LEGACY_KERAS=1 written by --fix where tf.compat.v1.layers or
tf.compat.v1.nn.rnn_cell are used.

TensorFlow 2.21 reads the variable at `import tensorflow` (the import path of
`tensorflow.keras` submodules) and again when each lazily loaded module
(`tf.keras`, `tf.compat.v1.layers`, `tf.compat.v1.nn.rnn_cell`) has its first
attribute read; the setting goes before the module's TensorFlow import, with
`setdefault` so a value the user set wins.
"""

import os
import sys
import textwrap

import pytest
from migrate_helpers import CORPUS, ported_findings, run, run_script

from estimator_multigpu.migrate import _legacy_keras_env, _runner

SCRIPT = CORPUS / "legacy_layers_env.py"
SETTING = 'os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")'


def _fixed(tmp_path, source, name="a.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return _runner.process(str(path))


def _lines(text):
    return [line for line in text.splitlines() if line and not line.startswith("#")]


LAYERS = """\
    \"\"\"Doc.\"\"\"
    from __future__ import print_function

    import numpy as np
    import tensorflow as tf

    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.layers.dense(x, 2)
"""


_BODY = textwrap.dedent(LAYERS).split("\n", 2)[2]  # no docstring, no __future__


def test_the_setting_goes_before_the_tensorflow_import_after_the_preamble(tmp_path):
    text = _fixed(tmp_path, LAYERS).rewritten
    lines = _lines(text)
    assert lines[:6] == [
        '"""Doc."""',
        "from __future__ import print_function",
        "import numpy as np",
        "import os",
        SETTING,
        "import tensorflow.compat.v1 as tf",
    ]
    assert "come from tf-keras on" in text  # the comment says why


def test_an_os_import_before_it_is_used_and_not_repeated(tmp_path):
    text = _fixed(tmp_path, "import os\n" + _BODY).rewritten
    assert text.count("import os") == 1
    assert text.index("import os") < text.index(SETTING)
    assert text.index(SETTING) < text.index("import tensorflow")


def test_an_os_import_after_the_tensorflow_import_gets_one_before(tmp_path):
    source = LAYERS.replace(
        "    import tensorflow as tf\n", "    import tensorflow as tf\n    import os\n"
    )
    text = _fixed(tmp_path, source).rewritten
    assert (
        text.index("import os") < text.index(SETTING) < text.index("import tensorflow")
    )


@pytest.mark.parametrize(
    "own",
    [
        'os.environ["TF_USE_LEGACY_KERAS"] = "1"',
        'os.environ.setdefault("TF_USE_LEGACY_KERAS", "true")',
        'os.putenv("TF_USE_LEGACY_KERAS", "0")',
    ],
)
def test_a_module_that_sets_the_variable_itself_is_left_as_it_is(tmp_path, own):
    source = "import os\n" + own + "\n" + _BODY
    text = _fixed(tmp_path, source).rewritten
    assert text.count("TF_USE_LEGACY_KERAS") == 1
    assert own in text


def test_a_second_fix_changes_nothing(tmp_path):
    once = _fixed(tmp_path, LAYERS).rewritten
    assert SETTING in once
    assert _legacy_keras_env.setting(once) == once
    again = _fixed(tmp_path, once, name="b.py")
    assert again.rewritten in (None, once)


@pytest.mark.parametrize(
    "use",
    [
        "cell = tf.nn.rnn_cell.BasicLSTMCell(4)",
        "cell = tf.compat.v1.nn.rnn_cell.GRUCell(4)",
        "cell = tf.contrib.rnn.BasicLSTMCell(4)",
        "y = tf.compat.v1.layers.conv2d(x, 2, 3)",
    ],
)
def test_rnn_cells_and_every_spelling_of_the_layers_get_it(tmp_path, use):
    source = f"import tensorflow as tf\nx = tf.placeholder(tf.float32, [1, 4, 4, 1])\n{use}\n"
    text = _fixed(tmp_path, source).rewritten
    assert SETTING in text


def test_a_module_without_those_names_gets_nothing(tmp_path):
    source = (
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None, 3])\n"
        "y = tf.keras.layers.Dense(2)(x)\n"
    )
    assert "TF_USE_LEGACY_KERAS" not in _fixed(tmp_path, source).rewritten


def test_the_finding_says_fix_writes_it(tmp_path):
    result = _fixed(tmp_path, LAYERS)
    (layers,) = [f for f in result.findings if f.rule.rule_id == "layers"]
    assert layers.fixed
    assert "TF_USE_LEGACY_KERAS" in layers.rule.replacement
    assert "--fix writes both" in layers.rule.replacement


def test_without_tf_keras_the_note_and_the_finding_say_pip_install(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(_legacy_keras_env, "tf_keras_installed", lambda: False)
    result = _fixed(tmp_path, LAYERS)
    assert any("pip install tf-keras" in why for _, why in result.notes)
    assert "pip install tf-keras" in _legacy_keras_env.install_advice()
    monkeypatch.setattr(_legacy_keras_env, "tf_keras_installed", lambda: True)
    assert "pip install" not in _legacy_keras_env.install_advice()


def test_the_corpus_script_reports_exactly_its_marked_findings():
    found = _runner.process(str(SCRIPT)).findings
    assert sorted((f.line, f.rule.rule_id) for f in found) == ported_findings(SCRIPT)


def _without_variable():
    return {k: v for k, v in os.environ.items() if k != "TF_USE_LEGACY_KERAS"}


@pytest.mark.slow
def test_the_fixed_corpus_script_runs_without_the_variable_in_the_environment(
    tmp_path, monkeypatch
):
    monkeypatch.delenv("TF_USE_LEGACY_KERAS", raising=False)
    fixed = tmp_path / SCRIPT.name
    fixed.write_text(_runner.process(str(SCRIPT)).rewritten)
    proc = run_script(fixed, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    losses = [float(line.split()[-1]) for line in proc.stdout.splitlines()]
    assert len(losses) == 3 and losses[-1] < losses[0]
    # and the unfixed script's layers fail without it (what the fix is for)
    proc = run([sys.executable, "-c", _UNSET_USE], timeout=300)
    assert "not available with Keras 3" in proc.stdout + proc.stderr


_UNSET_USE = "import tensorflow as tf\ntf.compat.v1.layers.dense\n"

# TensorFlow reads the variable when tf.compat.v1.layers is first used, not
# only at its import: set after `import tensorflow` it still takes effect.
_LAZY = (
    "import os\n"
    "import tensorflow as tf\n"
    "os.environ.setdefault('TF_USE_LEGACY_KERAS', '1')\n"
    "print(tf.compat.v1.nn.rnn_cell.BasicLSTMCell(2).__class__.__module__)\n"
)


@pytest.mark.slow
def test_tensorflow_reads_the_variable_at_the_first_use_of_the_layers(monkeypatch):
    monkeypatch.delenv("TF_USE_LEGACY_KERAS", raising=False)
    proc = run([sys.executable, "-c", _LAZY], timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().startswith("tf_keras")
