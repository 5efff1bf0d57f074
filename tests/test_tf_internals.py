"""estimator_multigpu._tf_internals: each private TensorFlow entry, used for real.

A TensorFlow release that moves or drops one of these internals fails the
test named after the entry, not a user's training run. Also checks that the
public replacements of former internals build exactly what the internals did.
"""

import importlib.util
import os

import numpy as np
import pytest
import tensorflow as tf

from estimator_multigpu import _dataset_graph
from estimator_multigpu import _tf_internals as internals
from estimator_multigpu._tf_internals import _access
from estimator_multigpu.estimator import (
    _checkpoints,
    _run_config,
)
from tests.conftest import ALL_DEVICES

pytestmark = pytest.mark.tf_compat

_LOCAL = tf.compat.v1.GraphKeys.LOCAL_VARIABLES


def _mean_over(values):
    """`(update op, mean)` of a tf.compat.v1 metric fed one value per run."""
    dataset = tf.compat.v1.data.make_one_shot_iterator(
        tf.data.Dataset.from_tensor_slices(values)
    )
    return tf.compat.v1.metrics.mean(dataset.get_next())


def test_evaluate_once_runs_until_stop_after_n_evals_hook():
    with tf.Graph().as_default():
        tf.compat.v1.train.create_global_step()
        value, update = _mean_over([1.0, 3.0, 8.0, 100.0])
        results = internals.evaluate_once(
            checkpoint_path=None,
            eval_ops=update,
            final_ops={"mean": value},
            hooks=[internals.stop_after_n_evals_hook(3)],
        )
    assert results["mean"] == pytest.approx(4.0)


def test_get_or_create_eval_step_is_one_local_counter():
    with tf.Graph().as_default():
        step = internals.get_or_create_eval_step()
        assert internals.get_or_create_eval_step() is step
        assert step in tf.compat.v1.get_collection(_LOCAL)
        assert step.dtype.base_dtype == tf.int64


def test_get_or_create_global_step_read_caches_a_read_of_the_step():
    with tf.Graph().as_default():
        assert internals.get_or_create_global_step_read() is None
        global_step = tf.compat.v1.train.create_global_step()
        read = internals.get_or_create_global_step_read()
        assert internals.get_or_create_global_step_read() is read
        with tf.compat.v1.Session() as session:
            session.run(global_step.assign(7))
            assert session.run(read) == 7


class _Listener(tf.compat.v1.train.CheckpointSaverListener):
    def __init__(self):
        self.begins = 0

    def begin(self):
        self.begins += 1


def test_add_saving_listener_adds_once_and_the_hook_calls_it(tmp_path):
    listener = _Listener()
    with tf.Graph().as_default():
        tf.compat.v1.train.create_global_step()
        hook = tf.compat.v1.train.CheckpointSaverHook(str(tmp_path), save_steps=1)
        internals.add_saving_listener(hook, listener)
        internals.add_saving_listener(hook, listener)
        hook.begin()
    assert listener.begins == 1


class _Reports(internals.StepCounterHook):
    def __init__(self, output_dir):
        super().__init__(every_n_steps=1, output_dir=output_dir)
        self.reports = []

    def report(self, elapsed_steps, elapsed_time, global_step):
        self.reports.append((elapsed_steps, int(global_step)))


def test_step_counter_hook_reports_through_its_public_names(tmp_path):
    with tf.Graph().as_default():
        global_step = tf.compat.v1.train.create_global_step()
        step = tf.compat.v1.assign_add(global_step, 1)
        hook = _Reports(str(tmp_path))
        with tf.compat.v1.train.SingularMonitoredSession(hooks=[hook]) as session:
            for _ in range(3):
                session.run(step)
            assert session.run(hook.global_step_tensor) == 3
        assert hook.summary_writer is tf.compat.v1.summary.FileWriterCache.get(
            str(tmp_path)
        )
    assert hook.reports == [(1, 2), (1, 3)]


def test_cached_file_writer_is_the_writer_the_cache_hands_out(tmp_path):
    logdir = str(tmp_path)
    made = []

    def make():
        made.append(tf.compat.v1.summary.FileWriter(logdir, filename_suffix=".x"))
        return made[-1]

    with tf.Graph().as_default():
        writer = internals.cached_file_writer(logdir, make)
        assert internals.cached_file_writer(logdir, make) is writer
        assert tf.compat.v1.summary.FileWriterCache.get(logdir) is writer
    assert made == [writer]
    tf.compat.v1.summary.FileWriterCache.clear()
    assert [n for n in os.listdir(logdir) if n.endswith(".x")]


def test_add_control_input_makes_an_op_wait():
    with tf.Graph().as_default():
        first = tf.no_op(name="first")
        second = tf.no_op(name="second")
        internals.add_control_input(second, first)
        assert first in second.control_inputs


def test_update_input_rewires_an_op():
    with tf.Graph().as_default():
        kept = tf.identity(tf.constant(1.0))
        internals.update_input(kept.op, 0, tf.constant(5.0))
        with tf.compat.v1.Session() as session:
            assert session.run(kept) == 5.0


def test_graph_collections_is_the_store_get_collection_reads():
    with tf.Graph().as_default() as graph:
        tf.compat.v1.add_to_collection("emg_test", 1)
        store = internals.graph_collections(graph)
        assert store["emg_test"] == [1]
        store["emg_test"] = [2]
        assert tf.compat.v1.get_collection("emg_test") == [2]


def test_variant_tensor_eager_and_graph():
    dataset = tf.data.Dataset.range(4).batch(2)
    assert internals.variant_tensor(dataset).dtype == tf.variant
    with tf.Graph().as_default():
        graph_dataset = tf.data.Dataset.range(4).batch(2)
        assert internals.variant_tensor(graph_dataset).op.type == "BatchDatasetV2"


def test_input_datasets_walks_to_the_source():
    dataset = tf.data.Dataset.range(4).map(lambda x: x + 1).batch(2)
    (mapped,) = internals.input_datasets(dataset)
    (source,) = internals.input_datasets(mapped)
    assert internals.input_datasets(source) == []
    assert list(source.as_numpy_iterator()) == [0, 1, 2, 3]


def test_unary_input_is_the_one_input_or_none():
    source = tf.data.Dataset.range(4)
    found = internals.unary_input(source.batch(2))
    assert list(found.as_numpy_iterator()) == [0, 1, 2, 3]
    assert internals.unary_input(source) is None


def test_kernel_op_names_an_unserializable_stage():
    copy = tf.data.Dataset.range(4).apply(
        tf.data.experimental.prefetch_to_device(ALL_DEVICES[0])
    )
    assert internals.kernel_op(copy) == "PrefetchDataset"


@pytest.mark.parametrize("value", [True, False, None], ids=["true", "false", "unset"])
def test_options_deterministic_decodes_serialized_options(value):
    options = tf.data.Options()
    if value is not None:
        options.deterministic = value
    dataset = tf.data.Dataset.range(3).with_options(options)
    nodes = _dataset_graph.graph_nodes(dataset)
    (node,) = [n for n in nodes if n.op == "OptionsDataset"]
    serialized = node.attr["serialized_options"].s
    assert internals.options_deterministic(serialized) is value


def test_multi_device_iterator_deals_elements_to_devices():
    iterator_class = internals.multi_device_iterator()
    dataset = tf.data.Dataset.range(4)
    iterator = iterator_class(dataset, ALL_DEVICES[:2], source_device="/cpu:0")
    first, second = iterator.get_next()
    assert (int(first), int(second)) == (0, 1)
    assert second.device.endswith("CPU:1")


def test_input_workers_maps_pipelines_to_devices(strategy):
    options = tf.distribute.InputOptions()
    workers = internals.input_workers(strategy.extended, options)
    assert len(workers.worker_devices) == 1
    devices = [tf.DeviceSpec.from_string(d) for d in ALL_DEVICES[:2]]
    found = [
        tf.DeviceSpec.from_string(d) for d in workers.compute_devices_for_worker(0)
    ]
    assert [(d.device_type, d.device_index) for d in found] == [
        (d.device_type, d.device_index) for d in devices
    ]
    assert internals.input_workers(object(), options) is None


def test_runtime_initialized_once_devices_exist():
    tf.constant(1.0)
    assert internals.runtime_initialized() is True


def test_eager_mode_runs_ops_eagerly_under_a_default_graph():
    with tf.Graph().as_default():
        assert not tf.executing_eagerly()
        with internals.eager_mode():
            assert tf.executing_eagerly()
            assert int(tf.constant(2) + 1) == 3
        assert not tf.executing_eagerly()


def test_eager_device_name_reads_the_device_scope():
    with tf.device(ALL_DEVICES[1]):
        assert internals.eager_device_name().endswith("CPU:1")
    assert internals.eager_device_name() == ""


def test_resource_variable_escapes_strategy_mirroring(strategy):
    with strategy.scope():
        mirrored = tf.Variable(np.arange(3))
        plain = internals.resource_variable(np.arange(3), trainable=False, name="p")
    assert type(mirrored).__name__ != type(plain).__name__
    assert type(plain).__name__ == "ResourceVariable"
    assert plain.numpy().tolist() == [0, 1, 2]


def test_export_output_classes_build_outputs():
    export_output = internals.export_output()
    with tf.Graph().as_default():
        output = export_output.PredictOutput({"y": tf.constant([1.0])})
        assert set(output.outputs) == {"y"}
        assert issubclass(
            export_output.ClassificationOutput, export_output.ExportOutput
        )


def test_export_utils_names_and_signatures(tmp_path):
    export_utils = internals.export_utils()
    export_dir = export_utils.get_timestamped_export_dir(str(tmp_path))
    assert os.path.basename(export_dir).isdigit()
    assert export_utils.EXPORT_TAG_MAP["infer"] == [tf.saved_model.SERVING]
    assert export_utils.SINGLE_FEATURE_DEFAULT_NAME == "feature"
    with tf.Graph().as_default():
        receiver = {"x": tf.compat.v1.placeholder(tf.float32, [None])}
        outputs = export_utils.export_outputs_for_mode(
            mode="infer", predictions={"y": receiver["x"] * 2}
        )
        signatures = export_utils.build_all_signature_defs(receiver, outputs)
    assert tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY in signatures


def test_estimator_spec_classes_exactly_where_tf_estimator_is_installed():
    if importlib.util.find_spec("tensorflow_estimator") is None:
        with pytest.raises(
            ImportError,
            match=rf"TensorFlow {tf.__version__} has no `tensorflow_estimator\.",
        ):
            internals.estimator_spec_classes()
        return
    mode_keys, estimator_spec = internals.estimator_spec_classes()
    assert mode_keys.PREDICT == "infer"
    with tf.Graph().as_default():
        spec = estimator_spec(mode_keys.PREDICT, predictions=tf.constant([1.0]))
    assert spec.mode == "infer"


def test_private_names_the_tensorflow_version_when_an_internal_is_gone():
    with pytest.raises(
        ImportError,
        match=rf"TensorFlow {tf.__version__} has no `tensorflow\.python\.gone`.*"
        r"Install a supported TensorFlow \(or use X\)",
    ):
        _access.private("tensorflow.python.gone", fix=" (or use X)")


def test_member_names_the_tensorflow_version_when_a_member_is_gone():
    with pytest.raises(
        AttributeError,
        match=rf"TensorFlow {tf.__version__}: Graph has no `_gone`",
    ):
        _access.member(tf.Graph(), "_gone")


# Public replacements of former internals build exactly what those did.


def test_default_session_config_equals_the_rewriter_config_proto():
    from tensorflow.core.protobuf import rewriter_config_pb2

    rewrite = rewriter_config_pb2.RewriterConfig(
        meta_optimizer_iterations=rewriter_config_pb2.RewriterConfig.ONE
    )
    expected = tf.compat.v1.ConfigProto(
        allow_soft_placement=True,
        graph_options=tf.compat.v1.GraphOptions(rewrite_options=rewrite),
    )
    assert _run_config.get_default_session_config() == expected


def test_public_summary_proto_is_the_core_one():
    from tensorflow.core.framework import summary_pb2

    assert tf.compat.v1.Summary is summary_pb2.Summary


def test_warm_start_from_saved_model_reads_path_helpers_variables(tmp_path):
    from tensorflow.python.saved_model import path_helpers

    variables = tmp_path / "variables"
    variables.mkdir()
    (variables / "variables.index").write_bytes(b"")
    settings = _checkpoints.warm_start_settings(str(tmp_path))
    expected = path_helpers.get_variables_path(str(tmp_path))
    assert settings.ckpt_to_initialize_from == expected


def test_restore_control_flow_aliases_puts_back_case_and_cond():
    from tensorflow.python.ops import control_flow_ops

    internals.restore_control_flow_aliases()
    assert control_flow_ops.case is tf.compat.v1.case
    assert control_flow_ops.cond is tf.compat.v1.cond
    assert internals.restore_control_flow_aliases() == []


def test_restore_tensor_alias_puts_back_ops_tensor():
    from tensorflow.python.framework import ops

    internals.restore_tensor_alias()
    assert ops.Tensor is tf.Tensor
    assert internals.restore_tensor_alias() == []


def test_restore_variable_alias_puts_back_variable_scope_variable():
    from tensorflow.python.ops import variable_scope

    internals.restore_variable_alias()
    assert variable_scope.variable is tf.compat.v1.Variable
    assert internals.restore_variable_alias() == []


def test_restore_legacy_batch_norm_gives_a_layer_that_builds():
    pytest.importorskip("tf_keras")
    from tensorflow.python.layers import normalization

    internals.restore_legacy_batch_norm()
    with tf.Graph().as_default():
        layer = normalization.BatchNormalization(momentum=0.9)
        outputs = layer.apply(tf.ones([2, 3]), training=True)
        assert outputs.shape == (2, 3)
        assert [v.op.name for v in layer.variables][:2] == [
            "batch_normalization/gamma",
            "batch_normalization/beta",
        ]
    assert internals.restore_legacy_batch_norm() == []


def test_lookup_ops_builds_tf1_vocabulary_tables(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("a\nb\n")
    ops = internals.lookup_ops()
    with tf.Graph().as_default():
        table = ops.index_table_from_file(str(vocab), num_oov_buckets=1)
        names = ops.index_to_string_table_from_tensor(vocabulary_list=["x", "y"])
        ids = table.lookup(tf.constant(["b", "zz"]))
        strings = names.lookup(tf.constant([1, 4], tf.int64))
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.tables_initializer())
            assert sess.run(ids).tolist() == [1, 2]
            assert sess.run(strings).tolist() == [b"y", b"UNK"]
    assert ops.FastHashSpec.hasher == "fasthash"
