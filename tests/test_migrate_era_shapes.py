"""Shapes from TF 1.x code of the era: summaries, GPU probes, Coordinators, reader classes."""

import pytest

from estimator_multigpu.migrate import _runner


def _process(tmp_path, source):
    path = tmp_path / "a.py"
    path.write_text(source)
    return _runner.process(str(path))


def _found(tmp_path, source):
    return [(f.line, f.rule.rule_id) for f in _process(tmp_path, source).findings]


V1 = "import tensorflow.compat.v1 as tf\n"
BARE = "import tensorflow as tf\n"


@pytest.mark.parametrize(
    "call", ["scalar('loss', x)", "image('img', x)", "histogram('w', x)", "merge_all()"]
)
def test_bare_graph_summary_is_fixed_to_compat_v1(tmp_path, call):
    source = BARE + "x = tf.zeros([])\ns = tf.summary." + call + "\n"
    result = _process(tmp_path, source)
    assert [(f.line, f.rule.rule_id, f.fixed) for f in result.findings] == [
        (3, "summary-v1", True)
    ]
    # Nothing else is TF1-only here, so the port is the compat.v1 import.
    assert result.rewritten.startswith("import tensorflow.compat.v1 as tf\n")


def test_summary_is_renamed_where_the_import_cannot_switch(tmp_path):
    source = BARE + "f = tf.autodiff.ForwardAccumulator\ntf.summary.scalar('a', 1.0)\n"
    result = _process(tmp_path, source)
    assert result.rewritten == source.replace(
        "tf.summary.scalar", "tf.compat.v1.summary.scalar"
    )


@pytest.mark.parametrize(
    "source",
    [
        BARE + "tf.summary.scalar('loss', 1.0, step=1)\n",
        BARE + "tf.summary.scalar('loss', 1.0, 1)\n",
        V1 + "tf.summary.scalar('loss', 1.0)\n",
        BARE + "tf.compat.v1.summary.scalar('loss', 1.0)\n",
    ],
    ids=["v2_step_kw", "v2_step_arg", "compat_import", "compat_name"],
)
def test_summaries_that_work_are_not_findings(tmp_path, source):
    assert _found(tmp_path, source) == []


@pytest.mark.parametrize(
    "source",
    [
        BARE + "ok = tf.test.is_gpu_available()\n",
        V1 + "ok = tf.test.is_gpu_available(True)\n",
    ],
)
def test_gpu_probe_is_reported_like_device_lib(tmp_path, source):
    result = _process(tmp_path, source)
    [finding] = result.findings
    assert (finding.line, finding.rule.rule_id, finding.fixed) == (
        2,
        "device-lib",
        False,
    )
    assert "tf.config.list_physical_devices('GPU')" in finding.rule.replacement


THREADS = V1 + "import threading\ncoord = tf.train.Coordinator()\ncoord.join([])\n"


def test_coordinator_of_python_threads_is_not_a_finding(tmp_path):
    assert _found(tmp_path, THREADS) == []


def test_coordinator_of_queue_runners_is_a_finding(tmp_path):
    source = THREADS + "threads = tf.train.start_queue_runners(coord=coord)\n"
    assert _found(tmp_path, source) == [(3, "queue-runner"), (5, "queue-runner")]


def test_reader_class_handed_over_gets_the_tf_data_advice(tmp_path):
    result = _process(tmp_path, V1 + "spec = dict(reader=tf.TFRecordReader)\n")
    [finding] = result.findings
    assert finding.rule.rule_id == "queue-reader"
    assert "emg.inputs.record_dataset_fn" in finding.rule.replacement
    assert "queues.read" not in finding.rule.replacement


def test_called_reader_keeps_the_queue_read_advice(tmp_path):
    result = _process(
        tmp_path, V1 + "def f(q):\n    return tf.TFRecordReader().read(q)\n"
    )
    [finding] = result.findings
    assert "emg.inputs.queues.read" in finding.rule.replacement


def test_an_imported_summary_module_gets_a_per_use_finding(tmp_path):
    source = (
        BARE
        + "from tensorflow import summary\nm = summary.merge_all()\ns = tf.Session()\n"
    )
    result = _process(tmp_path, source)
    found = [(f.line, f.rule.rule_id, f.fixed) for f in result.findings]
    assert found == [(1, "compat-v1", True), (3, "compat-v1", False)]
    assert result.findings[1].rule.replacement.startswith(
        "tf.compat.v1.summary.merge_all"
    )
    assert "m = summary.merge_all()\n" in result.rewritten


@pytest.mark.parametrize(
    "call",
    [
        "name_scope(scope, 'pad2d', [x])",
        "name_scope(None, 'pad2d')",
        "name_scope(scope, default_name='pad2d')",
        "name_scope('a', values=[x])",
    ],
    ids=["three", "two", "default_name", "values"],
)
def test_a_tf1_signature_name_scope_is_fixed_to_compat_v1(tmp_path, call):
    source = BARE + "x = tf.zeros([])\nscope = None\nwith tf." + call + ":\n    y = x\n"
    result = _process(tmp_path, source)
    assert [(f.line, f.rule.rule_id, f.fixed) for f in result.findings] == [
        (4, "name-scope-v1", True)
    ]
    assert result.rewritten.startswith("import tensorflow.compat.v1 as tf\n")


def test_a_tf1_name_scope_is_renamed_where_the_import_cannot_switch(tmp_path):
    source = (
        BARE
        + "f = tf.autodiff.ForwardAccumulator\nwith tf.name_scope(None, 'a'):\n    pass\n"
    )
    result = _process(tmp_path, source)
    assert result.rewritten == source.replace(
        "tf.name_scope", "tf.compat.v1.name_scope"
    )


@pytest.mark.parametrize(
    "source",
    [
        BARE + "with tf.name_scope('a'):\n    pass\n",
        BARE + "with tf.name_scope(name='a'):\n    pass\n",
        V1 + "with tf.name_scope(None, 'a', []):\n    pass\n",
    ],
    ids=["v2_name", "v2_keyword", "compat_import"],
)
def test_name_scopes_that_work_are_not_findings(tmp_path, source):
    assert _found(tmp_path, source) == []


def test_the_tf1_name_scope_runs_after_the_fix(tmp_path):
    import tensorflow as tf

    source = (
        BARE + "def scoped(x, scope=None):\n"
        "    with tf.name_scope(scope, 'pad2d', [x]) as name:\n"
        "        return name\n"
    )
    text = _process(tmp_path, source).rewritten
    with tf.Graph().as_default():
        scope = {}
        exec(text.replace("tf.disable_v2_behavior()\n", ""), scope)
        assert scope["scoped"](tf.zeros([])) == "pad2d/"
