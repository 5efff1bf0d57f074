"""Names and call shapes with one exact TF 2 spelling are rewritten by --fix.

tf.estimator.export names, contrib's TFRecordDataset, contrib.layers' own
functions (tf_slim keeps them: flatten, fully_connected, conv2d, ...), the TF 0.x
argument order of the softmax loss, contrib.tfprof and device_lib GPU counts.
"""

import ast
import inspect
import sys

import pytest
from migrate_helpers import CORPUS, run

from estimator_multigpu.migrate import _runner


def _fix(tmp_path, body, name="train.py"):
    path = tmp_path / name
    path.write_text("import tensorflow as tf\n" + body)
    result = _runner.process(str(path))
    return result, result.rewritten or ""


EXPORT = [
    "PredictOutput",
    "ClassificationOutput",
    "RegressionOutput",
    "ExportOutput",
    "TensorServingInputReceiver",
    "build_raw_serving_input_receiver_fn",
    "build_parsing_serving_input_receiver_fn",
]


@pytest.mark.parametrize("name", EXPORT)
def test_estimator_export_names_become_emg_names(tmp_path, name):
    result, new = _fix(tmp_path, f"x = tf.estimator.export.{name}\n")
    assert f"x = emg.estimator.export.{name}\n" in new
    assert "import estimator_multigpu as emg" in new
    assert result.findings and all(f.fixed for f in result.findings)


def test_every_rewritten_export_name_exists_in_emg():
    import estimator_multigpu as emg

    assert [n for n in EXPORT if not hasattr(emg.estimator.export, n)] == []


@pytest.mark.parametrize(
    "use, expected",
    [
        ("tf.contrib.data.TFRecordDataset(files)", "tf.data.TFRecordDataset(files)"),
        ("tf.contrib.layers.flatten(x)", "tf_slim.flatten(x)"),
        ("tf.contrib.framework.arg_scope", "tf_slim.arg_scope"),
        ("tf.contrib.framework.add_arg_scope", "tf_slim.add_arg_scope"),
        (
            "tf.contrib.data.map_and_batch(f, 8, drop_remainder=True)",
            "tf.data.experimental.map_and_batch(f, 8, drop_remainder=True)",
        ),
        (
            "tf.contrib.data.parallel_interleave(f, 4, sloppy=True)",
            "tf.data.experimental.parallel_interleave(f, 4, sloppy=True)",
        ),
        (
            "tf.contrib.data.shuffle_and_repeat(100, count=2, seed=1)",
            "tf.data.experimental.shuffle_and_repeat(100, count=2, seed=1)",
        ),
        (
            "tf.contrib.data.prefetch_to_device('/gpu:0', None)",
            "tf.data.experimental.prefetch_to_device('/gpu:0', None)",
        ),
        (
            "tf.contrib.data.copy_to_device('/gpu:0')",
            "tf.data.experimental.copy_to_device('/gpu:0')",
        ),
        (
            "tf.contrib.layers.variance_scaling_initializer(factor=2.0, mode='FAN_IN')",
            "tf_slim.variance_scaling_initializer(factor=2.0, mode='FAN_IN')",
        ),
    ],
    ids=[
        "tfrecord_dataset",
        "flatten",
        "arg_scope",
        "add_arg_scope",
        "map_and_batch",
        "parallel_interleave",
        "shuffle_and_repeat",
        "prefetch_to_device",
        "copy_to_device",
        "variance_scaling_initializer",
    ],
)
def test_contrib_names_with_one_exact_replacement_are_renamed(tmp_path, use, expected):
    result, new = _fix(tmp_path, f"y = {use}\n")
    assert f"y = {expected}\n" in new
    assert all(f.fixed for f in result.findings if f.rule.rule_id == "contrib")


def test_flatten_adds_the_tf_slim_import_and_keeps_contribs_values(tmp_path):
    _, new = _fix(tmp_path, "y = tf.contrib.layers.flatten(x, scope='f')\n")
    assert "\nimport tf_slim\n" in new
    import numpy as np
    import tensorflow as tf
    import tf_slim

    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    with tf.Graph().as_default():
        out = tf_slim.flatten(tf.constant(x), scope="f")
        assert out.shape.as_list() == [2, 12]


@pytest.mark.parametrize(
    "call, expected",
    [
        (
            "tf.nn.softmax_cross_entropy_with_logits(logits, onehot)",
            "tf.nn.softmax_cross_entropy_with_logits(logits=logits, labels=onehot)",
        ),
        (
            "tf.nn.softmax_cross_entropy_with_logits(net(x), y, -1, 'xent')",
            "tf.nn.softmax_cross_entropy_with_logits(logits=net(x), labels=y, "
            "axis=-1, name='xent')",
        ),
        (
            "tf.nn.sparse_softmax_cross_entropy_with_logits(logits, labels)",
            "tf.nn.sparse_softmax_cross_entropy_with_logits(logits=logits, "
            "labels=labels)",
        ),
        (
            "tf.nn.sigmoid_cross_entropy_with_logits(logits, targets)",
            "tf.nn.sigmoid_cross_entropy_with_logits(logits=logits, labels=targets)",
        ),
    ],
    ids=["softmax", "softmax_dim_name", "sparse", "sigmoid"],
)
def test_tf0_positional_losses_get_keywords_in_their_order(tmp_path, call, expected):
    result, new = _fix(tmp_path, f"loss = {call}\n")
    assert f"loss = {expected}\n" in new
    hits = [f for f in result.findings if f.rule.rule_id == "tf0-loss-args"]
    assert hits and all(f.fixed for f in hits)


def test_keyword_losses_are_not_reported(tmp_path):
    result, _ = _fix(
        tmp_path,
        "loss = tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=z)\n",
    )
    assert [f for f in result.findings if f.rule.rule_id == "tf0-loss-args"] == []


def test_positional_losses_in_tf2_order_are_reported_not_flipped(tmp_path):
    call = "tf.nn.softmax_cross_entropy_with_logits(labels, logits)"
    result, new = _fix(tmp_path, f"loss = {call}\n")
    assert f"loss = {call}\n" in new
    (hit,) = [f for f in result.findings if f.rule.rule_id == "tf0-loss-args"]
    assert not hit.fixed and "TF 2's order" in hit.rule.summary


def test_the_keyword_form_gives_the_tf0_value():
    import numpy as np
    import tensorflow as tf

    logits = np.array([[2.0, 1.0, 0.1]], np.float32)
    labels = np.array([[0.0, 1.0, 0.0]], np.float32)
    got = tf.nn.softmax_cross_entropy_with_logits(logits=logits, labels=labels)
    want = -np.log(np.exp(1.0) / np.exp(logits).sum())
    np.testing.assert_allclose(got.numpy(), [want], rtol=1e-5)


GPU_COUNTS = [
    (
        "def gpus():\n"
        "    local_device_protos = device_lib.list_local_devices()\n"
        "    return len([x.name for x in local_device_protos if x.device_type == 'GPU'])\n",
        "def gpus():\n    return len(emg.devices.resolve())\n",
    ),
    (
        "n = len([x for x in device_lib.list_local_devices() "
        'if x.device_type == "GPU"])\n',
        "n = len(emg.devices.resolve())\n",
    ),
    (
        "n = sum(1 for d in device_lib.list_local_devices() if d.device_type == 'GPU')\n",
        "n = len(emg.devices.resolve())\n",
    ),
    (
        "def get_available_gpus():\n"
        "    local_device_protos = device_lib.list_local_devices()\n"
        "    return [x.name for x in local_device_protos if x.device_type == 'GPU']\n"
        "NUM_GPUS = len(get_available_gpus())\n",
        "def get_available_gpus():\n    return emg.devices.resolve()\n",
    ),
]


@pytest.mark.parametrize(
    "body, expected",
    GPU_COUNTS,
    ids=["helper", "inline_len", "inline_sum", "name_list"],
)
def test_device_lib_gpu_counts_become_resolve(tmp_path, body, expected):
    head = "from tensorflow.python.client import device_lib\n"
    result, new = _fix(tmp_path, head + body)
    assert expected in new
    assert "device_lib" not in new
    assert all(f.fixed for f in result.findings if f.rule.rule_id == "device-lib")
    ast.parse(new)


def test_other_device_lib_uses_stay_reported(tmp_path):
    head = "from tensorflow.python.client import device_lib\n"
    result, new = _fix(tmp_path, head + "print(device_lib.list_local_devices())\n")
    hits = [f for f in result.findings if f.rule.rule_id == "device-lib"]
    assert hits and not any(f.fixed for f in hits)


TFPROF = (
    "stats = tf.contrib.tfprof.model_analyzer.print_model_analysis(\n"
    "    tf.get_default_graph(),\n"
    "    tfprof_options=tf.contrib.tfprof.model_analyzer."
    "TRAINABLE_VARS_PARAMS_STAT_OPTIONS)\n"
    "flops = tf.contrib.tfprof.model_analyzer.print_model_analysis(\n"
    "    tf.get_default_graph(), run_meta=meta, tfprof_cmd='op',\n"
    "    tfprof_options=tf.contrib.tfprof.model_analyzer.FLOAT_OPS_OPTIONS)\n"
    "tf.contrib.tfprof.tfprof_logger.write_op_log(tf.get_default_graph(), log_dir)\n"
)


def test_tfprof_becomes_the_profiler(tmp_path):
    result, new = _fix(tmp_path, TFPROF)
    builder = "tf.compat.v1.profiler.ProfileOptionBuilder"
    assert (
        "stats = tf.compat.v1.profiler.profile(\n    tf.get_default_graph(),\n"
        f"    options={builder}.trainable_variables_parameter())\n"
    ) in new
    assert (
        "flops = tf.compat.v1.profiler.profile(\n    tf.get_default_graph(), "
        f"run_meta=meta, cmd='op',\n    options={builder}.float_operation())\n"
    ) in new
    assert "tf.compat.v1.profiler.write_op_log(tf.get_default_graph(), log_dir)" in new
    assert "contrib" not in new
    assert all(f.fixed for f in result.findings if "tfprof" in f.api)


def test_print_model_analysis_without_options_keeps_contribs_default(tmp_path):
    body = "s = tf.contrib.tfprof.model_analyzer.print_model_analysis(g)\n"
    _, new = _fix(tmp_path, body)
    assert (
        "s = tf.compat.v1.profiler.profile(g, options=tf.compat.v1.profiler."
        "ProfileOptionBuilder.trainable_variables_parameter())\n"
    ) in new


def test_the_profiler_counts_the_trainable_parameters():
    import tensorflow as tf

    with tf.Graph().as_default() as graph:
        tf.compat.v1.get_variable("w", [3, 4])
        opts = (
            tf.compat.v1.profiler.ProfileOptionBuilder.trainable_variables_parameter()
        )
        opts["output"] = "none"
        stats = tf.compat.v1.profiler.profile(graph, options=opts)
    assert stats.total_parameters == 12


def test_tfprof_through_an_import_alias_drops_the_contrib_import(tmp_path):
    body = (
        "from tensorflow.contrib import tfprof as contrib_tfprof\n"
        "stats = contrib_tfprof.model_analyzer.print_model_analysis(\n"
        "    tf.get_default_graph(),\n"
        "    tfprof_options=contrib_tfprof.model_analyzer.\n"
        "        TRAINABLE_VARS_PARAMS_STAT_OPTIONS)\n"
        "opts = contrib_tfprof.model_analyzer.PRINT_ALL_TIMING_MEMORY.copy()\n"
    )
    result, new = _fix(tmp_path, body)
    assert "contrib" not in new
    builder = "tf.compat.v1.profiler.ProfileOptionBuilder"
    assert f"opts = {builder}.time_and_memory().copy()\n" in new
    assert f"    options={builder}.trainable_variables_parameter())\n" in new
    assert all(f.fixed for f in result.findings)


@pytest.mark.parametrize(
    "call, expected",
    [
        (
            "tf.contrib.nn.deprecated_flipped_softmax_cross_entropy_with_logits(\n"
            "    logits, one_hot_labels, name='xentropy')",
            "tf.nn.softmax_cross_entropy_with_logits(\n"
            "    logits=logits, labels=one_hot_labels, name='xentropy')",
        ),
        (
            "tf.contrib.nn.deprecated_flipped_softmax_cross_entropy_with_logits("
            "z, y, dim=1)",
            "tf.nn.softmax_cross_entropy_with_logits(logits=z, labels=y, axis=1)",
        ),
        (
            "tf.contrib.nn.deprecated_flipped_sparse_softmax_cross_entropy_with_logits("
            "z, y)",
            "tf.nn.sparse_softmax_cross_entropy_with_logits(logits=z, labels=y)",
        ),
        (
            "tf.contrib.nn.deprecated_flipped_sigmoid_cross_entropy_with_logits("
            "z, targets=y)",
            "tf.nn.sigmoid_cross_entropy_with_logits(logits=z, labels=y)",
        ),
    ],
    ids=["inception_softmax", "softmax_dim", "sparse", "sigmoid_targets"],
)
def test_contrib_flipped_losses_become_the_core_losses(tmp_path, call, expected):
    result, new = _fix(tmp_path, f"loss = {call}\n")
    assert f"loss = {expected}\n" in new
    assert "contrib" not in new
    assert all(f.fixed for f in result.findings if "flipped" in f.api)


def test_contrib_layers_that_tf_slim_keeps_become_tf_slim(tmp_path):
    body = (
        "def net(x, prediction_fn=tf.contrib.layers.softmax):\n"
        "    y = tf.contrib.layers.conv2d_transpose(x, 4, 3)\n"
        "    return prediction_fn(tf.contrib.layers.layer_norm(y))\n"
    )
    result, new = _fix(tmp_path, body)
    assert "def net(x, prediction_fn=tf_slim.softmax):\n" in new
    assert "tf_slim.conv2d_transpose(x, 4, 3)" in new
    assert "tf_slim.layer_norm(y)" in new and "\nimport tf_slim\n" in new
    assert all(f.fixed for f in result.findings if f.api.startswith("tf.contrib"))
    (softmax,) = [f for f in result.findings if f.api == "tf.contrib.layers.softmax"]
    assert "tf_slim.softmax (contrib's own function" in softmax.rule.replacement


@pytest.mark.parametrize(
    "call",
    [
        "fully_connected(h[:, -1], 1, activation_fn=None)",
        "conv2d(x, 32, [5, 5], scope='conv1')",
        "max_pool2d(x, [2, 2])",
        "dropout(x, keep_prob=0.5, is_training=training)",
    ],
    ids=["fully_connected", "conv2d", "max_pool2d", "dropout"],
)
def test_contrib_core_layers_become_tf_slims_own(tmp_path, call):
    # contrib.layers' own functions, kept by tf_slim with the same arguments,
    # defaults (relu, stride 2, keep_prob) and variable names
    # (`fully_connected/weights`); tf.compat.v1.layers takes other ones.
    result, new = _fix(tmp_path, f"y = tf.contrib.layers.{call}\n")
    assert f"y = tf_slim.{call}\n" in new and "\nimport tf_slim\n" in new
    [finding] = [f for f in result.findings if f.api.startswith("tf.contrib")]
    assert finding.fixed


@pytest.mark.parametrize("name", ["flatten", "fully_connected", "conv2d"])
def test_the_advice_names_what_the_fix_writes(tmp_path, name):
    result, _ = _fix(tmp_path, f"y = tf.contrib.layers.{name}(x, 3)\n")
    [finding] = [f for f in result.findings if f.api.startswith("tf.contrib")]
    assert finding.rule.replacement.startswith(f"tf_slim.{name} ")
    assert "compat.v1.layers" not in finding.rule.replacement


def test_tf_slims_fully_connected_keeps_contribs_variables():
    tf_slim = pytest.importorskip("tf_slim")
    import tensorflow as tf

    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 3])
        tf_slim.fully_connected(x, 2)
        names = [v.name for v in tf.compat.v1.global_variables()]
    assert names == ["fully_connected/weights:0", "fully_connected/biases:0"]


def test_every_listed_contrib_layer_is_in_tf_slim():
    tf_slim = pytest.importorskip("tf_slim")
    from estimator_multigpu.migrate import (
        _contrib_names,
        _slim,
        _slim_layers,
    )

    assert [
        n for n in _slim_layers.NAMES if not callable(getattr(tf_slim, n, None))
    ] == []
    assert not set(_slim_layers.NAMES) & set(_slim.LACKS)
    keys = {k[len("layers.") :] for k in _contrib_names.REPLACEMENTS}
    assert not set(_slim_layers.NAMES) & keys


def test_the_tf_data_experimental_successors_give_contribs_batches():
    import tensorflow as tf

    ds = tf.data.Dataset.range(10).apply(
        tf.data.experimental.map_and_batch(lambda x: x * 2, 4, drop_remainder=True)
    )
    assert [b.tolist() for b in ds.as_numpy_iterator()] == [
        [0, 2, 4, 6],
        [8, 10, 12, 14],
    ]
    files = tf.data.Dataset.range(3)
    ds = files.apply(
        tf.data.experimental.parallel_interleave(
            lambda i: tf.data.Dataset.from_tensors(i).repeat(2), cycle_length=2
        )
    )
    assert sorted(ds.as_numpy_iterator()) == [0, 0, 1, 1, 2, 2]
    ds = tf.data.Dataset.range(4).apply(
        tf.data.experimental.shuffle_and_repeat(4, count=2, seed=1)
    )
    assert sorted(ds.as_numpy_iterator()) == [0, 0, 1, 1, 2, 2, 3, 3]
    ds = tf.data.Dataset.range(3).apply(
        tf.data.experimental.prefetch_to_device("/cpu:0", None)
    )
    assert list(ds.as_numpy_iterator()) == [0, 1, 2]


@pytest.mark.slow
def test_the_rewritten_core_layers_script_trains(tmp_path):
    script = CORPUS / "contrib_core_layers.py"
    result = _runner.process(str(script))
    assert all(f.fixed for f in result.findings), result.notes
    path = tmp_path / script.name
    path.write_text(result.rewritten)
    proc = run([sys.executable, str(path)], timeout=240)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.splitlines() == [
        "variables conv1/biases conv1/weights logits/biases logits/weights",
        "pooled [None, 64]",
        "final loss below 0.3 True",
    ]


def test_contrib_s_variance_scaling_is_tf_slim_s_not_tf_compat_v1_s():
    # contrib's truncated normal has stddev sqrt(1.3 * factor / n); TF's
    # variance_scaling_initializer divides by .8796 instead: tf_slim keeps
    # contrib's code, so its initializer is the exact successor.
    import tf_slim

    source = inspect.getsource(tf_slim.variance_scaling_initializer)
    assert "math.sqrt(1.3 * factor / n)" in source
