"""Tests for the migrate scanner: aliases, rules, tower loops, the corpus."""

import ast
import re
import textwrap

import pytest
from migrate_helpers import CORPUS, CORPUS_FILES, expected_findings

from estimator_multigpu.migrate import (
    _aliases,
    _rules,
    _scanner,
)


def scan(source):
    source = textwrap.dedent(source)
    return _scanner.scan_rules(ast.parse(source), source, "snippet.py")


@pytest.mark.parametrize(
    "dotted, expected",
    [
        ("tensorflow", "tf"),
        ("tensorflow.train.batch", "tf.train.batch"),
        ("tensorflow.compat.v1.train.batch", "tf.train.batch"),
        ("tensorflow.compat.v1", "tf"),
        ("tensorflow.compat.v2.data", "tf.data"),
        ("tensorflow.compat.v1.compat.v1.layers", "tf.layers"),
        ("tensorflowx.train", None),
        ("numpy.random", None),
        (None, None),
    ],
    ids=[
        "root",
        "plain",
        "compat_v1",
        "compat_root",
        "compat_v2",
        "double_compat",
        "lookalike",
        "other_package",
        "none",
    ],
)
def test_canonical(dotted, expected):
    assert _aliases.canonical(dotted) == expected


@pytest.mark.parametrize(
    "path, prefix, rule_id",
    [
        ("tf.train.shuffle_batch", "tf.train.shuffle_batch", "queue-batcher"),
        ("tf.estimator.ModeKeys.TRAIN", "tf.estimator.ModeKeys", "estimator"),
        ("tf.estimator.SomethingNew.attribute", "tf.estimator", "estimator"),
        ("tf.contrib.slim.nets.resnet_v1", "tf.contrib.slim", "contrib-slim"),
        ("tf.contrib.data.map_and_batch", "tf.contrib", "contrib"),
        ("tf.layers.dense", "tf.layers", "layers"),
    ],
    ids=["exact", "attribute_of_class", "family", "slim_family", "contrib", "layers"],
)
def test_lookup_takes_the_longest_prefix(path, prefix, rule_id):
    found_prefix, rule = _rules.lookup(path)
    assert (found_prefix, rule.rule_id) == (prefix, rule_id)
    assert rule.guide.startswith("migration_guide.md#")


@pytest.mark.parametrize(
    "path",
    ["tf.train.Saver", "tf.data.Dataset", "tf.keras.layers.Dense", "tf.trainable"],
    ids=["saver", "data", "keras_layers", "lookalike"],
)
def test_lookup_leaves_current_apis_alone(path):
    assert _rules.lookup(path) is None


@pytest.mark.parametrize(
    "source, api",
    [
        ("import tensorflow as tf\ntf.train.batch", "tf.train.batch"),
        ("import tensorflow.compat.v1 as tf\ntf.train.batch", "tf.train.batch"),
        ("import tensorflow as tf\ntf.compat.v1.train.batch", "tf.train.batch"),
        (
            "import tensorflow as tf\ntf = tf.compat.v1\ntf.train.batch",
            "tf.train.batch",
        ),
        ("import tensorflow\ntensorflow.train.batch", "tf.train.batch"),
        (
            "import tensorflow.compat.v1\ntensorflow.compat.v1.train.batch",
            "tf.train.batch",
        ),
        ("from tensorflow.train import batch\nbatch", "tf.train.batch"),
        ("from tensorflow.compat.v1 import train\ntrain.batch", "tf.train.batch"),
        ("from tensorflow.compat import v1\nv1.train.batch", "tf.train.batch"),
        ("from tensorflow.compat.v1.train import batch as b\nb", "tf.train.batch"),
        (
            "def f():\n    import tensorflow as tf\n    return tf.train.batch",
            "tf.train.batch",
        ),
    ],
    ids=[
        "tf",
        "compat_alias",
        "compat_attr",
        "reassigned",
        "no_alias",
        "dotted_import",
        "from_train",
        "from_compat_train",
        "from_compat_v1",
        "from_as",
        "local_import",
    ],
)
def test_aliases_resolve(source, api):
    assert [f.api for f in scan(source)] == [api]


@pytest.mark.parametrize(
    "source",
    [
        "import numpy as tf\ntf.train.batch",
        "train = object()\ntrain.batch",
        "def f(tf):\n    return tf.Session",
        "import tensorflow as tf\ntf.data.Dataset.range(3).batch(2)",
        "import tensorflow as tf\ntf.train = 1",
    ],
    ids=["numpy_named_tf", "unbound", "parameter", "data_batch", "store"],
)
def test_no_false_positives(source):
    assert scan(source) == []


def test_finding_position_is_one_based_in_characters():
    (finding,) = scan("import tensorflow as tf\nx = 'é' ; tf.train.batch")
    assert (finding.line, finding.col, finding.text) == (2, 11, "tf.train.batch")


@pytest.mark.parametrize(
    "loop, is_tower",
    [
        (
            "for i in range(n):\n  with tf.device('/gpu:%d' % i):\n    g = opt.compute_gradients(l)",
            True,
        ),
        (
            "for d in devs:\n  with tf.device(d):\n    tf.get_variable_scope().reuse_variables()",
            True,
        ),
        (
            "for i, d in enumerate(devs):\n  with tf.device(d), tf.variable_scope('m', reuse=i > 0):\n    f()",
            True,
        ),
        (
            "for i in range(n):\n  with tf.device('/gpu:%d' % i), tf.name_scope('tower_%d' % i):\n    f()",
            True,
        ),
        (
            "for step in range(n):\n  with tf.device('/cpu:0'):\n    g = opt.compute_gradients(l)",
            False,
        ),
        ("for i in range(n):\n  with tf.device('/gpu:%d' % i):\n    x = f(i)", False),
        (
            "for i in range(n):\n  with other.device(i):\n    g = opt.compute_gradients(l)",
            False,
        ),
    ],
    ids=[
        "gradients",
        "reuse_variables",
        "reuse_kwarg",
        "tower_scope",
        "device_not_from_loop",
        "no_tower_evidence",
        "not_tf_device",
    ],
)
def test_tower_loops(loop, is_tower):
    findings = scan("import tensorflow as tf\n" + loop)
    assert [f.rule.rule_id for f in findings] == (["tower-loop"] if is_tower else [])


def test_averaging_helper_is_reported():
    source = """
    def average_gradients(tower_grads):
        return [sum(g for g, _ in gv) for gv in zip(*tower_grads)]
    """
    assert [f.api for f in scan(source)] == ["gradient averaging"]


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_corpus_every_expected_finding_and_nothing_else(name):
    path = CORPUS / name
    source = path.read_text()
    found = _scanner.scan_rules(ast.parse(source), source, str(path))
    assert sorted((f.line, f.rule.rule_id) for f in found) == expected_findings(path)


def test_every_topic_has_a_guide_anchor():
    topics = {r.topic for r in _rules.TABLE.values()} | {_rules.TOWER_RULE.topic}
    assert topics <= set(_rules.ANCHORS)


def test_every_guide_link_names_a_section_of_the_guide():
    guide = (CORPUS.parents[1] / "migration_guide.md").read_text()
    anchors = set(re.findall(r'id="([^"]+)"', guide))
    links = {r.guide for r in _rules.TABLE.values()} | {_rules.TOWER_RULE.guide}
    missing = sorted(link for link in links if link.split("#")[1] not in anchors)
    assert missing == []


@pytest.mark.parametrize(
    "source, api",
    [
        ("from tensorflow.contrib import slim\n", "tf.contrib.slim"),
        ("from tensorflow.contrib.slim import *\n", "tf.contrib.slim"),
        ("import tensorflow.contrib.slim as slim\n", "tf.contrib.slim"),
        ("from tensorflow.train import shuffle_batch\n", "tf.train.shuffle_batch"),
    ],
    ids=["from_import", "star", "import_as", "queue_api"],
)
def test_unused_legacy_imports_are_reported(source, api):
    (finding,) = scan(source)
    assert (finding.line, finding.col, finding.api) == (1, 1, api)
    assert finding.rule.rename is None


def test_used_legacy_imports_are_reported_where_used():
    findings = scan("from tensorflow.contrib import slim\nnet = slim.conv2d(x)\n")
    assert [(f.line, f.api) for f in findings] == [(2, "tf.contrib.slim.conv2d")]
