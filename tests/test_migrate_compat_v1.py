"""Step zero of `emg-migrate --fix`: bare TF 1.x names and the compat.v1 import."""

import os
import re

import pytest
from migrate_helpers import CORPUS, run_scripts

from estimator_multigpu.migrate import (
    _compat_v1,
    _runner,
    _v1_names,
)
from estimator_multigpu.migrate.__main__ import main
from estimator_multigpu.migrate._api_spec import SPEC

TRAINER = CORPUS / "bare_tf1_trainer.py"
# Corpus scripts whose `# port:` markers name every finding the tool reports.
PORT_CORPUS = (
    "bare_tf1_trainer.py",
    "reader_class_as_value.py",
    "slim_clones_input.py",
    "slim_model_train.py",
    "thread_coordinator.py",
)


def _process(tmp_path, source, name="a.py"):
    path = tmp_path / name
    path.write_text(source)
    return _runner.process(str(path))


def _names(result):
    return [(f.line, f.rule.rule_id, f.fixed) for f in result.findings]


def _has(module, dotted: str) -> bool:
    """True if `module.<dotted>` exists (the last name is looked up with dir())."""
    *parents, last = dotted.split(".")
    for name in parents:
        module = getattr(module, name, None)
        if module is None:
            return False
    return last in dir(module)


def test_name_tables_match_the_installed_tensorflow():
    import tensorflow as tf

    if not tf.__version__.startswith("2.21."):
        pytest.skip(f"the tables list TensorFlow 2.21, not {tf.__version__}")
    v1 = tf.compat.v1
    missing = [n for n in sorted(_v1_names.V1_ONLY) if not _has(v1, n[3:])]
    in_v2 = [n for n in sorted(_v1_names.V1_ONLY) if _has(tf, n[3:])]
    assert (missing, in_v2) == ([], [])
    assert [n for n in sorted(_v1_names.V2_ONLY) if _has(v1, n[3:])] == []


@pytest.mark.parametrize(
    "path, prefix",
    [
        ("tf.train.AdamOptimizer.minimize", "tf.train.AdamOptimizer"),
        ("tf.logging.info", "tf.logging"),
        ("tf.app.flags.DEFINE_integer", "tf.app"),
        ("tf.variable_scope", "tf.variable_scope"),
        ("tf.Session", "tf.Session"),
        ("tf.data.Dataset", None),
        ("tf.nn.relu", None),
    ],
)
def test_v1_only(path, prefix):
    assert SPEC.v1_prefix(path) == prefix


def test_bare_names_are_one_fixable_finding_at_the_import(tmp_path):
    result = _process(
        tmp_path,
        "import tensorflow as tf\n\n"
        "x = tf.placeholder(tf.float32)\n"
        "with tf.variable_scope('a'):\n"
        "    opt = tf.train.GradientDescentOptimizer(0.1)\n"
        "sess = tf.Session()\n",
    )
    [finding] = result.findings
    assert (finding.line, finding.rule.rule_id, finding.fixed) == (1, "compat-v1", True)
    assert finding.text == (
        "4 TF 1.x name(s): tf.placeholder (line 3); tf.variable_scope (line 4); "
        "tf.train.GradientDescentOptimizer (line 5); tf.Session (line 6)"
    )
    assert result.rewritten.startswith(
        "import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()\n\nx = tf.placeholder"
    )


def test_the_call_goes_after_every_opening_import(tmp_path):
    source = (
        '"""Doc."""\nimport os\nimport tensorflow as tf\nfrom os import path\n\n'
        "tf.logging.info(os.sep)\nimport sys\n"
    )
    new = _process(tmp_path, source).rewritten
    assert new == source.replace(
        "import tensorflow as tf\nfrom os import path\n",
        "import tensorflow.compat.v1 as tf\nfrom os import path\ntf.disable_v2_behavior()\n",
    )


def test_the_call_follows_a_tf_import_made_after_a_statement(tmp_path):
    # A module that sets an environment variable between its imports: the
    # opening run of imports ends before `import tensorflow`, so the call
    # goes after the run that holds it, never before `tf` exists.
    source = (
        "import os\nos.environ['TF_CPP_MIN_LOG_LEVEL'] = '2'\n\n"
        "import numpy as np\nimport tensorflow as tf\nimport time\n\n"
        "x = tf.placeholder(tf.float32)\n"
    )
    new = _process(tmp_path, source).rewritten
    assert new == source.replace(
        "import tensorflow as tf\nimport time\n",
        "import tensorflow.compat.v1 as tf\nimport time\ntf.disable_v2_behavior()\n",
    )


def test_graph_mode_follows_a_tf_import_made_after_a_statement():
    source = (
        "import os\nos.environ['A'] = '2'\nimport tensorflow as tf\n\n"
        "x = tf.compat.v1.placeholder(tf.float32)\n"
    )
    assert _compat_v1.graph_mode(source) == source.replace(
        "import tensorflow as tf\n",
        "import tensorflow as tf\ntf.compat.v1.disable_v2_behavior()\n",
    )


def test_the_call_follows_a_tensorflow_import_made_after_other_code(tmp_path):
    # A command-line script parses its flags before importing TensorFlow (to
    # answer --help fast): the call goes after that later run of imports.
    source = (
        "import argparse\nimport os\n\nparser = argparse.ArgumentParser()\n"
        "args = parser.parse_args()\n\nimport tensorflow as tf\nfrom model import M\n\n"
        "s = tf.Session()\n"
    )
    new = _process(tmp_path, source).rewritten
    assert new == source.replace(
        "import tensorflow as tf\nfrom model import M\n",
        "import tensorflow.compat.v1 as tf\nfrom model import M\ntf.disable_v2_behavior()\n",
    )


def test_graph_mode_follows_a_late_tensorflow_import():
    source = "import sys\nARGS = sys.argv[1:]\nimport tensorflow as tf\nx = tf.compat.v1.placeholder(tf.float32)\n"
    assert _compat_v1.graph_mode(source) == source.replace(
        "as tf\n", "as tf\ntf.compat.v1.disable_v2_behavior()\n"
    )


def test_an_existing_disable_call_is_not_repeated(tmp_path):
    source = "import tensorflow as tf\ntf.compat.v1.disable_v2_behavior()\ns = tf.Session()\n"
    new = _process(tmp_path, source).rewritten
    assert new == source.replace(
        "import tensorflow as", "import tensorflow.compat.v1 as"
    )


def test_the_queue_rewrites_see_through_the_compat_import(tmp_path):
    result = _process(
        tmp_path,
        "import tensorflow.compat.v1 as tf\n\n\n"
        "def inputs(files):\n"
        "    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)\n"
        "    reader = tf.TextLineReader()\n"
        "    _, line = reader.read(queue)\n"
        "    return tf.train.batch([line], batch_size=2)\n",
    )
    assert _names(result) == [
        (5, "queue-producer", True),
        (6, "queue-reader", True),
        (8, "queue-batcher", True),
    ]
    assert "emg.inputs.queues.batch" in result.rewritten


def test_a_name_compat_v1_lacks_blocks_the_switch(tmp_path):
    source = (
        "import tensorflow as tf\n"
        "s = tf.Session()\n"
        "g = tf.autodiff.ForwardAccumulator\n"
        "tf.summary.scalar('loss', 1.0)\n"
    )
    result = _process(tmp_path, source)
    assert _names(result) == [(1, "compat-v1", False), (4, "summary-v1", True)]
    assert (
        "--fix cannot here: line 3 uses tf.autodiff"
        in result.findings[0].rule.replacement
    )
    assert result.notes == [
        (
            1,
            "compat.v1 import not switched: line 3 uses tf.autodiff, which "
            "tf.compat.v1 lacks; write tf.compat.v1.<name> for each TF1 name "
            "instead of switching the import",
        )
    ]
    assert result.rewritten == source.replace(
        "tf.summary.scalar", "tf.compat.v1.summary.scalar"
    )


def test_without_a_module_import_the_file_is_left_byte_identical(tmp_path, capsys):
    source = "def f():\n    import tensorflow as tf\n    return tf.Session()\n"
    path = tmp_path / "a.py"
    path.write_text(source)
    assert main([str(path), "--fix"]) == 1
    out = capsys.readouterr().out
    assert "a.py:3:12: compat-v1 [manual] `tf.Session`" in out
    assert "Use: tf.compat.v1.Session" in out
    assert path.read_text() == source and not (tmp_path / "a.py.bak").exists()


def test_an_imported_bare_name_gets_its_exact_replacement(tmp_path):
    result = _process(tmp_path, "from tensorflow import logging\nlogging.info('x')\n")
    # `from tensorflow import logging` binds tensorflow.logging: each use is reported.
    assert [(f.line, f.rule.rule_id, f.fixed) for f in result.findings] == [
        (2, "compat-v1", False)
    ]
    assert result.findings[0].rule.replacement.startswith("tf.compat.v1.logging")


@pytest.mark.parametrize(
    "source",
    [
        "import tensorflow as tf\nw = tf.summary.create_file_writer('d')\n"
        "tf.summary.scalar('loss', 1.0, step=3)\n",
        "import tensorflow as tf\nx = tf.data.Dataset.range(3).map(tf.nn.relu)\n",
        "import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()\ns = tf.Session()\n",
    ],
    ids=["v2_summary", "v2_names", "already_ported"],
)
def test_no_finding(tmp_path, source):
    assert _process(tmp_path, source).findings == []


def test_the_port_is_a_reason_on_the_rule():
    assert _compat_v1.group_rule("tf", None).guide.endswith("#step-0-the-compatv1-port")


@pytest.mark.slow
def test_the_fixed_trainer_trains_on_this_tensorflow(tmp_path):
    result = _runner.process(str(TRAINER))
    assert all(f.fixed for f in result.findings)
    fixed = tmp_path / "fixed.py"
    fixed.write_text(result.rewritten)
    runs = [
        ("original", TRAINER, [tmp_path / "log_a"]),
        ("fixed", fixed, [tmp_path / "log_b"]),
    ]
    out = run_scripts(runs, TF_USE_LEGACY_KERAS="1")
    assert out["original"]["error"].startswith("AttributeError")  # bare tf.logging
    assert out["fixed"]["error"] is None
    assert "final loss 0.0" in out["fixed"]["stdout"]
    assert any(n.startswith("events.out.tfevents") for n in os.listdir(runs[1][2][0]))


def _marked(path):
    """(line, rule) pairs named by `# port:` (the findings after the passes)."""
    out = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        match = re.search(r"#\s*port:\s*([\w\-, ]+)", line)
        if match:
            out += [(number, r.strip()) for r in match.group(1).split(",")]
    return sorted(out)


@pytest.mark.parametrize("name", PORT_CORPUS)
def test_corpus_findings_with_the_passes(name):
    path = CORPUS / name
    found = _runner.process(str(path)).findings
    assert sorted((f.line, f.rule.rule_id) for f in found) == _marked(path)


def test_every_guide_rule_links_to_a_section_of_the_guide():
    from estimator_multigpu.migrate import (
        _era,
        _guide_rules,
        _slim,
    )

    guide = (CORPUS.parents[1] / "migration_guide.md").read_text()
    rules_ = [
        _compat_v1.group_rule("tf", None),
        _era.layers_rule(),
        _era.summary_rule("scalar"),
    ]
    rules_ += [
        _era.GPU_PROBE,
        _era.READER_VALUE,
        _slim.CLONES,
        _slim.group_rule(_slim.CORE),
    ]
    heading = "## Step 0: the compat.v1 port"  # its anchor: step-0-the-compatv1-port
    assert heading in guide and _guide_rules.COMPAT_ANCHOR == "step-0-the-compatv1-port"
    for rule in rules_:
        anchor = rule.guide.split("#", 1)[1]
        assert anchor == _guide_rules.COMPAT_ANCHOR or f'<a id="{anchor}">' in guide
