"""A tf.contrib name with no TF 2 successor that is all a contrib import is
left for: --fix writes `emg.migrate_gone(api, advice)` in its place and
drops the import, so the module imports on TF 2.x and only the code path
that reaches the name fails, with the finding's advice."""

import ast
import copy
import pickle

import pytest
from migrate_helpers import CORPUS, fix_source, rewrite, run_scripts

import estimator_multigpu as emg
from estimator_multigpu import gone
from estimator_multigpu.migrate import _contrib_gone, _runner

SCRIPT = CORPUS / "contrib_gone.py"
NAS = 'emg.migrate_gone("tf.contrib.rnn.NASCell", "no TF 2.x successor ('
MAIN = "def main():\n    return {cell}(4)\n\n\ndef nas():\n    return {gone}(4)\n"


def _fixed(tmp_path, source):
    return fix_source(tmp_path, "import tensorflow as tf\n" + source)


def _imports(source: str) -> list[str]:
    tree = ast.parse(source)
    return [
        ast.unparse(s) for s in tree.body if isinstance(s, ast.Import | ast.ImportFrom)
    ]


@pytest.mark.parametrize(
    "source",
    [
        "from tensorflow.contrib import rnn\n"
        + MAIN.format(cell="rnn.BasicLSTMCell", gone="rnn.NASCell"),
        MAIN.format(cell="tf.contrib.rnn.BasicLSTMCell", gone="tf.contrib.rnn.NASCell"),
        "from tensorflow.contrib.rnn import BasicLSTMCell, NASCell\n"
        + MAIN.format(cell="BasicLSTMCell", gone="NASCell"),
        "import tensorflow.contrib.rnn as crnn\n"
        + MAIN.format(cell="crnn.BasicLSTMCell", gone="crnn.NASCell"),
        "from tensorflow.contrib.rnn.python.ops import rnn_cell\n"
        + MAIN.format(cell="tf.nn.rnn_cell.BasicLSTMCell", gone="rnn_cell.NASCell"),
    ],
    ids=[
        "from_contrib_import",
        "attribute_chain",
        "from_module",
        "import_as",
        "module_path",
    ],
)
def test_a_name_with_no_successor_stands_in_and_the_import_goes(tmp_path, source):
    result = _fixed(tmp_path, source)
    assert result.rewritten is not None, result.notes
    assert all("contrib" not in line for line in _imports(result.rewritten))
    assert "import estimator_multigpu as emg" in result.rewritten
    assert NAS in result.rewritten
    assert "BasicLSTMCell(4)" in result.rewritten  # the main path: its successor
    (left,) = [f for f in result.findings if f.api.endswith(".NASCell")]
    assert not left.fixed
    assert left.rule.replacement.endswith(_contrib_gone.NOTE)
    assert left.rule.replacement.startswith("no TF 2.x successor (")


def test_a_module_with_no_other_fix_gets_the_stand_in(tmp_path):
    result = _fixed(
        tmp_path,
        "from tensorflow.contrib import nccl\n\n\ndef reduce(x):\n"
        "    return nccl.all_sum(x)\n",
    )
    assert 'emg.migrate_gone("tf.contrib.nccl.all_sum", ' in result.rewritten
    assert _imports(result.rewritten) == [
        "import tensorflow as tf",
        "import estimator_multigpu as emg",
    ]
    (left,) = result.findings
    assert not left.fixed and left.rule.replacement.endswith(_contrib_gone.NOTE)
    # what to do, in the stand-in and in the finding
    advice = "no public TF 2.x successor: all-reduce across GPUs with tf.distribute."
    assert left.rule.replacement.startswith(advice)
    assert f'", "{advice}' in result.rewritten


def test_a_submodule_import_keeps_its_package_binding(tmp_path):
    result = _fixed(
        tmp_path,
        "import tensorflow.contrib.nccl\n\n\ndef reduce(x):\n"
        "    return tensorflow.contrib.nccl.all_sum(tensorflow.add_n(x))\n",
    )
    assert "import tensorflow\n" in result.rewritten
    assert "contrib.nccl\n" not in result.rewritten
    assert 'emg.migrate_gone("tf.contrib.nccl.all_sum", ' in result.rewritten


def test_a_module_passed_on_keeps_its_import(tmp_path):
    source = "from tensorflow.contrib import rnn\ncells = rnn\nx = rnn.NASCell(4)\n"
    result = _fixed(tmp_path, source)
    text = result.rewritten or source
    assert "from tensorflow.contrib import rnn" in text
    assert "migrate_gone" not in text


def test_a_use_left_with_a_successor_keeps_its_own_import(tmp_path):
    # xavier_initializer(uniform=False) has a successor --fix does not write
    # for that argument: its import stays (the finding says what to write);
    # rnn's import, left only for NASCell, goes
    result = _fixed(
        tmp_path,
        "from tensorflow.contrib import rnn\nfrom tensorflow.contrib import layers\n"
        "x = rnn.NASCell(4)\ny = layers.xavier_initializer(uniform=False)\n",
    )
    assert _imports(result.rewritten) == [
        "import tensorflow as tf",
        "from tensorflow.contrib import layers",
        "import estimator_multigpu as emg",
    ]
    assert "y = layers.xavier_initializer(uniform=False)" in result.rewritten
    assert NAS in result.rewritten


def test_a_used_name_with_a_successor_is_not_a_stand_in():
    assert _contrib_gone.no_successor("tf.contrib.rnn.NASCell")
    assert _contrib_gone.no_successor("tf.contrib.nccl.all_sum")
    assert not _contrib_gone.no_successor("tf.contrib.rnn.BasicLSTMCell")
    assert not _contrib_gone.no_successor("tf.contrib.framework.nest")
    assert not _contrib_gone.no_successor("tf.train.Saver")


def _raises(how, call):
    with pytest.raises(gone.GoneError) as info:
        call()
    text = str(info.value)
    assert text == (
        "tf.contrib.rnn.NASCell has no TF 2 successor (tf.contrib is gone since "
        f"TF 2.0), and this code path {how} it. What to do: keep TF 1.15's cell"
    )
    assert isinstance(info.value, NotImplementedError)
    assert info.value.api == "tf.contrib.rnn.NASCell"
    assert info.value.advice == "keep TF 1.15's cell"


def test_the_stand_in_fails_on_call_attribute_subclass_and_isinstance():
    cell = emg.migrate_gone("tf.contrib.rnn.NASCell", "keep TF 1.15's cell")
    _raises("calls", lambda: cell(4, use_biases=True))
    _raises("reads .state_size of", lambda: cell.state_size)
    _raises("sets .x of", lambda: setattr(cell, "x", 1))
    _raises("tests an instance against", lambda: isinstance(1, cell))

    def subclass():
        class Mine(cell):
            pass

    _raises("subclasses", subclass)


def test_the_stand_in_is_an_ordinary_value_until_used():
    cell = emg.migrate_gone("tf.contrib.rnn.NASCell", "keep TF 1.15's cell")
    assert repr(cell) == "emg.migrate_gone('tf.contrib.rnn.NASCell', ...)"
    assert not hasattr(cell, "__wrapped__")
    for other in (
        copy.copy(cell),
        copy.deepcopy(cell),
        pickle.loads(pickle.dumps(cell)),
    ):
        _raises("calls", other)
    with pytest.raises(ValueError, match="api must be the legacy name"):
        emg.migrate_gone("", "advice")


def test_the_corpus_script_is_rewritten_and_a_rescan_reports_what_is_left(tmp_path):
    path = rewrite(SCRIPT.name, tmp_path)
    text = open(path).read()
    assert all("contrib" not in line for line in _imports(text))
    assert text.count("emg.migrate_gone(") == 2
    again = _runner.process(path)
    assert again.rewritten in (None, text)  # nothing more to write
    # a scan of the rewritten module still reports each name left, where
    # the stand-in is, with the same advice
    assert [(f.api, f.fixed, f.rule.kind) for f in again.findings] == [
        ("tf.contrib.rnn.NASCell", False, _contrib_gone.KIND),
        ("tf.contrib.nccl.all_sum", False, _contrib_gone.KIND),
    ]
    assert again.findings[0].rule.replacement.startswith("no TF 2.x successor (")
    assert not again.findings[0].rule.replacement.endswith(_contrib_gone.NOTE)


@pytest.mark.slow
def test_the_rewritten_corpus_script_runs_and_fails_only_where_reached(tmp_path):
    path = rewrite(SCRIPT.name, tmp_path)
    out = run_scripts(
        [
            ("main", path, []),
            ("nas", path, ["--model=nas"]),
            ("nccl", path, ["--reduce=nccl"]),
        ],
        timeout=300,
        TF_USE_LEGACY_KERAS="1",
    )
    assert out["main"]["error"] is None, out["main"]
    assert out["main"]["stdout"] == ["outputs [2, 3, 5] towers 2"]
    assert out["nas"]["error"].startswith(
        "GoneError: tf.contrib.rnn.NASCell has no TF 2 successor"
    )
    assert "What to do: no TF 2.x successor (" in out["nas"]["error"]
    assert out["nccl"]["error"].startswith(
        "GoneError: tf.contrib.nccl.all_sum has no TF 2 successor"
    )
