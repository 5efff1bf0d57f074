"""Private tensorflow.python symbols are found with their public name (or why none).

migrate/_private_names (tools/private_names.py writes it from TF 1.15's
tf_export decorators) gives each symbol's public name on TF 2.21 and
whether the private path is still there; these tests hold it to TF 2.21.
"""

import ast
import importlib
import pathlib

import pytest
from migrate_helpers import CORPUS, RuleCorpus, expected_findings

from estimator_multigpu.migrate import (
    _passes,
    _private_imports,
    _private_names,
    _runner,
)

GUIDE = pathlib.Path(__file__).parents[1] / "migration_guide.md"
_LEGACY = ("tf.compat.v1.layers.", "tf.compat.v1.nn.rnn_cell.", "tf.compat.v1.keras.")


def _findings(source):
    tree = ast.parse(source)
    return [
        f
        for f in _passes.scan_tree(tree, source, "a.py")
        if f.rule.rule_id == _private_imports.RULE_ID
    ]


def test_a_moved_private_symbol_names_its_public_one():
    [f] = _findings(
        "from tensorflow.python.framework import ops\n"
        "ops.register_tensor_conversion_function(int, convert)\n"
    )
    assert f.api == "tf.python.framework.ops.register_tensor_conversion_function"
    assert f.rule.summary == (
        "tf.python.framework.ops.register_tensor_conversion_function is a private "
        "TensorFlow path, gone from there on TF 2.21: it moved"
    )
    assert f.rule.replacement == (
        "tf.register_tensor_conversion_function (its public name, the same "
        "symbol; emg-migrate --fix writes it)"
    )


def test_fix_writes_the_public_name(tmp_path):
    path = tmp_path / "a.py"
    path.write_text(
        "import tensorflow as tf\nfrom tensorflow.python.framework import ops\n"
        "ops.register_tensor_conversion_function(int, convert)\n"
    )
    result = _runner.process(str(path))
    assert "\ntf.register_tensor_conversion_function(int, convert)\n" in (
        result.rewritten
    )
    assert all(f.fixed for f in result.findings)


def test_a_private_symbol_still_there_names_its_public_one():
    [f] = _findings(
        "from tensorflow.python.ops import data_flow_ops\n"
        "q = data_flow_ops.FIFOQueue(3, [tf.float32])\n"
    )
    assert "still there on TF 2.21, but a private path may move" in f.rule.summary
    # (not written by --fix: tf.queue.FIFOQueue has a finding of its own)
    assert f.rule.replacement == "tf.queue.FIFOQueue (its public name)"


def test_grappler_optimize_graph_has_no_successor_and_says_what_to_do():
    found = _findings(
        "from tensorflow.core.protobuf import rewriter_config_pb2\n"
        "from tensorflow.python.grappler import tf_optimizer\n"
        "config = rewriter_config_pb2.RewriterConfig()\n"
        "graph = tf_optimizer.OptimizeGraph(config, meta_graph)\n"
    )
    assert [f.api.rsplit(".", 1)[1] for f in found] == [
        "RewriterConfig",
        "OptimizeGraph",
    ]
    assert "no public successor" in found[1].rule.summary
    assert "tf.config.optimizer.set_experimental_options" in found[1].rule.replacement


@pytest.mark.parametrize(
    "source",
    [
        "from tensorflow.python.framework.ops import "
        "register_tensor_conversion_function as reg\nreg(int, f)\n",
        "import tensorflow.python.framework.ops as ops\n"
        "ops.register_tensor_conversion_function(int, f)\n",
        "import tensorflow as tf\n"
        "tf.python.framework.ops.register_tensor_conversion_function(int, f)\n",
    ],
    ids=["from_import_as", "import_module_as", "attribute_chain"],
)
def test_every_spelling_of_a_private_symbol_is_found(source):
    [f] = _findings(source)
    assert f.rule.replacement.startswith("tf.register_tensor_conversion_function")


def test_a_public_name_is_not_reported():
    assert (
        _findings("import tensorflow as tf\nq = tf.queue.FIFOQueue(3, [tf.float32])\n")
        == []
    )


def test_the_guide_has_the_section_the_findings_link_to():
    headings = [h.strip() for h in GUIDE.read_text().splitlines() if h.startswith("#")]
    assert "### Private tensorflow.python imports" in headings
    assert _private_imports.ANCHOR == "private-tensorflowpython-imports"


def _resolve(tf, dotted):
    obj = tf
    for part in dotted.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


@pytest.mark.parametrize("module", sorted(_private_names.NAMES))
def test_every_public_name_exists_on_this_tensorflow(module):
    import tensorflow as tf

    names = [p for p in _private_names.NAMES[module].values() if p]
    missing = []
    for dotted in names:
        if dotted.startswith(_LEGACY):
            continue  # tf-keras' (TF_USE_LEGACY_KERAS=1)
        try:
            _resolve(tf, dotted)
        except AttributeError:
            missing.append(dotted)
    assert missing == []


@pytest.mark.parametrize(
    "module, name, gone",
    [
        (
            "tensorflow.python.framework.ops",
            "register_tensor_conversion_function",
            True,
        ),
        ("tensorflow.python.ops.data_flow_ops", "FIFOQueue", False),
        ("tensorflow.python.ops.array_ops", "reshape", False),
    ],
)
def test_the_gone_flags_match_this_tensorflow(module, name, gone):
    spelled = "tf" + module[len("tensorflow") :]
    assert _private_imports._is_gone(spelled, name) == gone
    assert hasattr(importlib.import_module(module), name) != gone


def test_a_module_with_no_public_tensorflow_import_gets_one_for_the_public_names(
    tmp_path,
):
    # TensorFlow only through private paths: nothing binds `tf` to spell the
    # public name with, so the fix imports the package itself.
    path = tmp_path / "a.py"
    path.write_text(
        '"""Doc."""\nimport contextlib\n\n'
        "from tensorflow.python.framework import ops\n\n\n"
        "def f():\n    return ops.get_collection('k')\n"
    )
    result = _runner.process(str(path))
    assert result.rewritten == (
        '"""Doc."""\nimport contextlib\n\nimport tensorflow\n\n\n'
        "def f():\n    return tensorflow.compat.v1.get_collection('k')\n"
    )
    assert [f.fixed for f in result.findings] == [True]


def test_the_private_paths_only_corpus_script_runs_on_its_public_names(tmp_path):
    checks = RuleCorpus(
        _private_imports.RULE_ID,
        CORPUS / "private_paths_only.py",
        _private_imports.ANCHOR,
        marks=expected_findings,
    )
    found = checks.assert_marked_findings()
    assert found and all(f.rule.fixable for f in found)
    fixed = checks.assert_second_fix_changes_nothing(tmp_path)
    assert "\nfrom tensorflow.python" not in fixed and "\nimport tensorflow\n" in fixed
    assert checks.run_fixed(tmp_path, all_fixed=True).splitlines() == [
        "scaled [3.0, 6.0] [1.0, 2.0]"
    ]
