"""emg.diagnose.check / check_input_fn: calling conventions, errors, report forms."""

import json

import pytest
import tensorflow as tf

import estimator_multigpu as emg
from estimator_multigpu import _tf_internals as internals
from estimator_multigpu import diagnose
from estimator_multigpu.diagnose._discovery import pipeline_feeding
from estimator_multigpu.diagnose._reading import read_dataset
from tests.conftest import ALL_DEVICES

pytestmark = pytest.mark.tf_compat

AUTOTUNE = tf.data.AUTOTUNE


def _ordered_parallel():
    """Warns nothing; one info (deterministic order) in training only."""
    return tf.data.Dataset.range(50).map(tf.strings.as_string, AUTOTUNE).prefetch(1)


def _rules(findings):
    return {f.rule for f in findings}


def test_internals_variant_and_inputs_eager_and_graph():
    dataset = tf.data.Dataset.range(4).map(lambda x: x + 1).batch(2)
    assert internals.variant_tensor(dataset).dtype == tf.variant
    (mapped,) = internals.input_datasets(dataset)
    (source,) = internals.input_datasets(mapped)
    assert internals.input_datasets(source) == []
    with tf.Graph().as_default():
        graph_dataset = tf.data.Dataset.range(4).batch(2)
        assert internals.variant_tensor(graph_dataset).op.type == "BatchDatasetV2"


def test_internals_kernel_op_names_unserializable_stages():
    copy = tf.data.Dataset.range(4).apply(
        tf.data.experimental.prefetch_to_device("/cpu:0")
    )
    (generator,) = internals.input_datasets(copy)
    assert internals.kernel_op(copy) == "PrefetchDataset"
    assert internals.kernel_op(generator) == "GeneratorDataset"
    stages = read_dataset(copy).stages
    assert [(s.op, s.kind) for s in stages] == [
        ("RangeDataset", ""),
        ("GeneratorDataset", "device_copy"),
        ("PrefetchDataset", ""),
    ]


@pytest.mark.parametrize("value", [True, False, None], ids=["true", "false", "unset"])
def test_internals_options_deterministic(value):
    options = tf.data.Options()
    if value is not None:
        options.deterministic = value
    stage = read_dataset(tf.data.Dataset.range(3).with_options(options)).stages[-1]
    serialized = stage.node.attr["serialized_options"].s
    assert internals.options_deterministic(serialized) is value


def test_input_fn_is_called_like_an_estimator_does():
    calls = []

    def input_fn(params, config, mode):
        calls.append((params, config, mode))
        return _ordered_parallel()

    found = diagnose.check_input_fn(input_fn, mode="eval", params={"n": 1})
    assert calls == [({"n": 1}, None, "eval")]
    assert found == []  # Evaluation: the order trade-off does not apply.
    assert _rules(diagnose.check_input_fn(lambda: _ordered_parallel())) == {
        "deterministic-order"
    }


def test_one_shot_iterator_input_fn_is_checked():
    def input_fn():
        dataset = tf.data.Dataset.range(10).shuffle(5).shard(2, 0).batch(2)
        return tf.compat.v1.data.make_one_shot_iterator(dataset).get_next()

    found = diagnose.check_input_fn(input_fn)
    assert {"shard-after-unseeded-shuffle", "no-final-prefetch"} <= _rules(found)


def test_pipelines_found_in_an_input_fn_count_as_input_pipelines(tmp_path):
    names = [str(tmp_path / f"{i}.tfrecord") for i in range(4)]

    def dataset_fn(ctx):  # Promises to shard (user_shards) but does not.
        files = tf.data.Dataset.from_tensor_slices(names)
        return files.interleave(tf.data.TFRecordDataset, num_parallel_calls=AUTOTUNE)

    input_fn = emg.inputs.sharded_input_fn(
        dataset_fn, ALL_DEVICES[:2], global_batch_size=4, user_shards=True
    )
    assert "files-not-sharded" in _rules(diagnose.check_input_fn(input_fn))
    one = diagnose.check_input_fn(input_fn, num_input_pipelines=1)
    assert "files-not-sharded" not in _rules(one)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (
            lambda: diagnose.check([1, 2]),
            TypeError,
            r"`dataset` must be a tf.data.Dataset; received list",
        ),
        (
            lambda: diagnose.check(_ordered_parallel(), num_devices=0),
            ValueError,
            r"`num_devices` must be an int >= 1; received 0",
        ),
        (
            lambda: diagnose.check(_ordered_parallel(), training="yes"),
            TypeError,
            r"`training` must be True or False; received 'yes'",
        ),
        (
            lambda: diagnose.check_input_fn(3),
            TypeError,
            r"`input_fn` must be a function .* received 3",
        ),
        (
            lambda: diagnose.check_input_fn(lambda batch_size: None),
            ValueError,
            r"requires \['batch_size'\].*functools.partial",
        ),
        (
            lambda: diagnose.check_input_fn(_ordered_parallel, mode="training"),
            ValueError,
            r"`mode` must be one of .*'train'.*received 'training'",
        ),
        (
            lambda: diagnose.check_input_fn(lambda: tf.constant(1.0)),
            ValueError,
            r"no tf.data iterator produces",
        ),
    ],
    ids=[
        "not-a-dataset",
        "devices",
        "training",
        "not-callable",
        "extra-arg",
        "mode",
        "no-dataset",
    ],
)
def test_bad_arguments_are_named(call, error, match):
    with pytest.raises(error, match=match):
        call()


def _mixed_findings():
    dataset = tf.data.Dataset.range(100).shuffle(10).shard(2, 0)
    return diagnose.check(dataset.map(tf.strings.as_string, AUTOTUNE))


def test_format_findings_is_a_table_errors_first():
    text = diagnose.format_findings(_mixed_findings())
    lines = text.splitlines()
    assert lines[0].split() == ["SEVERITY", "RULE", "TRANSFORMATION"]
    assert lines[1].startswith("ERROR    shard-after-unseeded-shuffle")
    assert "fix: dataset = dataset.shard(num_shards, index)" in text
    assert lines[-1] == "3 finding(s): 1 error, 1 warning, 1 info."


def test_format_findings_without_findings():
    assert diagnose.format_findings([]).startswith("No findings")


def test_findings_as_json_round_trips():
    findings = _mixed_findings()
    document = json.loads(diagnose.findings_as_json(findings))
    assert document["summary"] == {"error": 1, "warning": 1, "info": 1}
    first = document["findings"][0]
    assert set(first) == {
        "rule",
        "severity",
        "transformation",
        "message",
        "fix",
        "stage",
        "node",
    }
    assert [diagnose.Finding(**f) for f in document["findings"]] == sorted(
        findings, key=lambda f: ["error", "warning", "info"].index(f.severity)
    )


def test_multi_device_iterator_is_read_as_one_host_pipeline():
    input_fn = emg.inputs.multi_device_input_fn(
        lambda ctx: tf.data.Dataset.range(8), ALL_DEVICES[:2], global_batch_size=4
    )
    with tf.Graph().as_default():
        pipeline = pipeline_feeding(input_fn())
    dealers = [s for s in pipeline.stages if s.kind == "multi_device"]
    assert len(pipeline.roots) == 2 and len(dealers) == 2
    assert all(len(s.inputs) == 1 for s in dealers)
    assert dealers[0].inputs[0] is dealers[1].inputs[0]  # The one host pipeline.


def _maps(depth):
    dataset = tf.data.Dataset.range(10)
    for _ in range(depth):
        dataset = dataset.map(lambda x: x + 1)
    return dataset


@pytest.mark.parametrize(
    "depth, graph_mode",
    [
        (500, True),
        pytest.param(2000, True, marks=pytest.mark.slow),
        pytest.param(500, False, marks=pytest.mark.slow),
    ],
    ids=["graph_500", "graph_2000", "eager_500"],
)
def test_thousands_of_chained_maps_are_checked(depth, graph_mode):
    """The graph is walked and counted without recursion: no RecursionError
    however deep, and each map (of 10 elements, one at a time) is found."""
    if graph_mode:
        found = diagnose.check_input_fn(lambda: _maps(depth))
    else:
        found = diagnose.check(_maps(depth))
    assert [f.rule for f in found].count("sequential-map") == depth
