"""emg.diagnose.check: one pipeline that breaks each rule and a fixed one that does not.

Every case runs on an eager dataset (the serialized dataset graph) and on a
graph-mode one (read from its tf.Graph).
"""

import numpy as np
import pytest
import tensorflow as tf

from estimator_multigpu import diagnose

AUTOTUNE = tf.data.AUTOTUNE
FILES = [
    "/nonexistent/a.tfrecord",
    "/nonexistent/b.tfrecord",
    "/nonexistent/c.tfrecord",
]
SPEC = {"x": tf.io.FixedLenFeature([], tf.int64)}


def _examples(n=8):
    example = tf.train.Example(
        features=tf.train.Features(
            feature={"x": tf.train.Feature(int64_list=tf.train.Int64List(value=[1]))}
        )
    )
    return [example.SerializeToString()] * n


def _records():
    return tf.data.Dataset.from_tensor_slices([b"abcd"] * 8)


def _files():
    return tf.data.Dataset.from_tensor_slices(FILES)


def _read(files, **kwargs):
    return files.interleave(tf.data.TFRecordDataset, **kwargs)


def _random(x):
    return x + tf.random.uniform([], maxval=2, dtype=tf.int64)


def _decode(r):
    return tf.io.decode_raw(r, tf.uint8)


def _as_string(x):
    return tf.strings.as_string(x)


def _py(x):
    return tf.py_function(lambda y: y, [x], tf.int64)


def _numpy(x):
    return tf.numpy_function(lambda y: y, [x], tf.int64)


def _captured_constant(x):
    return tf.constant(np.ones([300_000], np.float32))[x]


def _no_order():
    options = tf.data.Options()
    options.deterministic = False
    return tf.data.Dataset.range(100).map(_as_string, AUTOTUNE).with_options(options)


def _range():
    return tf.data.Dataset.range(100)


R = _range
MIB = dict(large_constant_bytes=1 << 20)

# rule, severity, bad pipeline, fixed pipeline, check() arguments.
CASES = [
    (
        "no-final-prefetch",
        "warning",
        lambda: R().batch(2),
        lambda: R().batch(2).prefetch(1),
        {},
    ),
    (
        "prefetch-to-device-not-last",
        "error",
        lambda: (
            R().apply(tf.data.experimental.prefetch_to_device("/cpu:0")).map(_as_string)
        ),
        lambda: (
            R()
            .map(_as_string, AUTOTUNE)
            .apply(tf.data.experimental.prefetch_to_device("/cpu:0"))
        ),
        {},
    ),
    (
        "shuffle-after-batch",
        "warning",
        lambda: R().batch(4).shuffle(10),
        lambda: R().shuffle(10).batch(4),
        {},
    ),
    (
        "shard-after-unseeded-shuffle",
        "error",
        lambda: R().shuffle(10).shard(2, 0),
        lambda: R().shard(2, 0).shuffle(10),
        {},
    ),
    (
        "shuffle-before-shard",
        "warning",
        lambda: R().shuffle(10, seed=1).shard(2, 0),
        lambda: R().shard(2, 0).shuffle(10, seed=1),
        {},
    ),
    (
        "shuffle-buffer-one",
        "warning",
        lambda: R().shuffle(1),
        lambda: R().shuffle(50),
        {},
    ),
    (
        "shuffle-buffer-exceeds-data",
        "info",
        lambda: R().shuffle(1000),
        lambda: R().shuffle(100),
        {},
    ),
    (
        "repeat-before-shuffle",
        "info",
        lambda: R().repeat().shuffle(10),
        lambda: R().shuffle(10),
        {},
    ),
    (
        "shuffle-before-repeat",
        "info",
        lambda: R().shuffle(10).repeat(),
        lambda: R().repeat().shuffle(10),
        {},
    ),
    (
        "cache-after-random",
        "warning",
        lambda: R().map(_random).cache(),
        lambda: R().cache().map(_random),
        {},
    ),
    (
        "cache-after-random",
        "warning",
        lambda: R().shuffle(10).cache(),
        lambda: R().cache().shuffle(10),
        {},
    ),
    (
        "cache-before-expensive-map",
        "info",
        lambda: _records().batch(4).cache().map(_decode),
        lambda: _records().batch(4).map(_decode).cache(),
        {},
    ),
    (
        "sequential-map",
        "warning",
        lambda: R().map(_as_string),
        lambda: R().map(_as_string, AUTOTUNE),
        {},
    ),
    (
        "sequential-interleave",
        "warning",
        lambda: _read(_files(), cycle_length=2),
        lambda: _read(_files(), cycle_length=2, num_parallel_calls=AUTOTUNE),
        {},
    ),
    (
        "sequential-interleave",
        "warning",
        lambda: _files().flat_map(tf.data.TFRecordDataset),
        lambda: _read(_files(), num_parallel_calls=AUTOTUNE),
        {},
    ),
    (
        "interleave-cycle-length-one",
        "warning",
        lambda: _read(_files(), cycle_length=1, num_parallel_calls=1),
        lambda: _read(_files(), cycle_length=2, num_parallel_calls=2),
        {},
    ),
    (
        "deterministic-order",
        "info",
        lambda: R().map(_as_string, AUTOTUNE),
        lambda: R().map(_as_string, AUTOTUNE, deterministic=False),
        {},
    ),
    (
        "deterministic-order",
        "info",
        lambda: R().map(_as_string, AUTOTUNE),
        _no_order,
        {},
    ),
    (
        "per-example-parse",
        "warning",
        lambda: tf.data.Dataset.from_tensor_slices(_examples()).map(
            lambda s: tf.io.parse_single_example(s, SPEC)
        ),
        lambda: (
            tf.data.Dataset.from_tensor_slices(_examples())
            .batch(4)
            .map(lambda s: tf.io.parse_example(s, SPEC))
        ),
        {},
    ),
    (
        "per-record-decode-raw",
        "warning",
        lambda: _records().map(_decode),
        lambda: _records().batch(4).map(_decode),
        {},
    ),
    (
        "py-function",
        "warning",
        lambda: R().map(_py),
        lambda: R().map(lambda x: x + 1),
        {},
    ),
    (
        "py-function",
        "warning",
        lambda: R().map(_numpy),
        lambda: R().map(lambda x: x + 1),
        {},
    ),
    (
        "large-constant",
        "warning",
        lambda: tf.data.Dataset.from_tensor_slices(np.zeros([1024, 256], np.float32)),
        lambda: tf.data.Dataset.range(1024),
        MIB,
    ),
    (
        "large-constant",
        "warning",
        lambda: R().map(_captured_constant),
        lambda: R().map(_as_string),
        MIB,
    ),
    (
        "batch-not-divisible",
        "error",
        lambda: R().batch(6, drop_remainder=True),
        lambda: R().batch(8, drop_remainder=True),
        dict(num_devices=4),
    ),
    (
        "batch-remainder-multi-device",
        "warning",
        lambda: R().batch(8),
        lambda: R().batch(8, drop_remainder=True),
        dict(num_devices=2),
    ),
    (
        "batch-remainder-multi-device",
        "warning",
        lambda: R().batch(8),
        lambda: R().repeat().batch(8),
        dict(num_devices=2),
    ),
    (
        "files-not-sharded",
        "warning",
        lambda: _read(_files(), num_parallel_calls=AUTOTUNE),
        lambda: _read(_files().shard(2, 0), num_parallel_calls=AUTOTUNE),
        dict(num_input_pipelines=2),
    ),
    (
        "records-sharded-not-files",
        "info",
        lambda: _read(_files(), num_parallel_calls=AUTOTUNE).shard(2, 0),
        lambda: _read(_files().shard(2, 0), num_parallel_calls=AUTOTUNE),
        dict(num_input_pipelines=2),
    ),
]
IDS = [f"{rule}-{i}" for i, (rule, *_) in enumerate(CASES)]


def _check(build, mode, **kwargs):
    if mode == "eager":
        return diagnose.check(build(), **kwargs)
    with tf.Graph().as_default():
        return diagnose.check(build(), **kwargs)


@pytest.fixture(params=["eager", "graph"])
def mode(request):
    return request.param


@pytest.mark.tf_compat
@pytest.mark.parametrize("rule, severity, bad, good, kwargs", CASES, ids=IDS)
def test_rule_fires_on_the_bad_pipeline(rule, severity, bad, good, kwargs, mode):
    found = [f for f in _check(bad, mode, **kwargs) if f.rule == rule]
    assert found, f"{rule} not reported"
    assert {f.severity for f in found} == {severity}
    assert all(f.message and f.fix and f.transformation for f in found)


@pytest.mark.tf_compat
@pytest.mark.parametrize("rule, severity, bad, good, kwargs", CASES, ids=IDS)
def test_rule_is_quiet_on_the_fixed_pipeline(rule, severity, bad, good, kwargs, mode):
    assert rule not in {f.rule for f in _check(good, mode, **kwargs)}


def test_every_rule_id_has_a_case():
    assert {rule for rule, *_ in CASES} == set(diagnose.RULE_IDS)


@pytest.mark.parametrize(
    "build",
    [
        lambda: R().map(lambda x: x),
        lambda: tf.data.Dataset.from_tensors(1).map(_as_string),
        lambda: tf.data.Dataset.range(1).map(_as_string),
    ],
    ids=["identity-map", "one-element", "range-of-one"],
)
def test_sequential_map_is_quiet_when_parallelism_cannot_help(build):
    assert "sequential-map" not in {f.rule for f in diagnose.check(build())}


def test_sequential_map_after_batch_is_info():
    found = diagnose.check(R().batch(4).map(_as_string).prefetch(1))
    assert [(f.rule, f.severity) for f in found] == [("sequential-map", "info")]


def test_deterministic_order_is_not_reported_for_evaluation():
    found = diagnose.check(R().map(_as_string, AUTOTUNE), training=False)
    assert "deterministic-order" not in {f.rule for f in found}


def test_findings_name_the_stage_from_the_source():
    dataset = R().map(_as_string, AUTOTUNE, deterministic=False).batch(4)
    (found,) = diagnose.check(dataset.shuffle(9).prefetch(1))
    assert (found.rule, found.stage) == ("shuffle-after-batch", 4)
    assert found.transformation.startswith("shuffle (ShuffleDataset")
    assert found.node
