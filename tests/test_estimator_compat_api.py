"""emg.estimator as a one-import swap for tf.estimator: names, arguments, inputs.

Each scenario runs on emg here and, where tf.estimator exists (TF 2.15), is
compared with the real one.
"""

import inspect
import json
import os
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf
from conftest import ALL_DEVICES
from estimator_models import dataset_input_fn, make_data, model_fn

from estimator_multigpu import devices as devices_lib
from estimator_multigpu import estimator as emg_estimator

pytestmark = pytest.mark.tf_compat

X, Y = make_data(16)
TRAIN_FN = dataset_input_fn(X, Y, 8, repeat=True)
EVAL_FN = dataset_input_fn(X, Y, 8)
HAS_REAL = emg_estimator.HAS_TF_ESTIMATOR
needs_real = pytest.mark.skipif(
    not HAS_REAL, reason="tf.estimator (the reference) exists on TF <= 2.15 only"
)


def _estimator(tmp_path, **config):
    config.setdefault("save_checkpoints_steps", 100)
    run_config = emg_estimator.RunConfig(model_dir=str(tmp_path / "model"), **config)
    return emg_estimator.Estimator(model_fn, config=run_config, params={})


def _step(estimator):
    return int(estimator.get_variable_value("global_step"))


# Hooks and helpers.


@pytest.mark.parametrize("name", emg_estimator.HOOK_NAMES)
def test_hooks_are_tf_compat_v1_train_classes(name):
    assert getattr(emg_estimator, name) is getattr(tf.compat.v1.train, name)
    if HAS_REAL:
        assert getattr(emg_estimator, name) is getattr(tf.estimator, name)


@pytest.mark.parametrize(
    "name",
    [
        "stop_if_higher_hook",
        "stop_if_lower_hook",
        "stop_if_no_increase_hook",
        "stop_if_no_decrease_hook",
        "make_early_stopping_hook",
        "make_stop_at_checkpoint_step_hook",
        "InMemoryEvaluatorHook",
        "build_raw_supervised_input_receiver_fn",
    ],
)
def test_experimental_names_take_tf_estimator_arguments(name):
    ours = inspect.signature(getattr(emg_estimator.experimental, name))
    if HAS_REAL:
        real = inspect.signature(getattr(tf.estimator.experimental, name))
        assert list(ours.parameters) == list(real.parameters)
        defaults = [p.default for p in real.parameters.values()]
        assert [p.default for p in ours.parameters.values()] == defaults


@pytest.mark.parametrize(
    "legacy, fixed",
    [
        ("tf.estimator.LoggingTensorHook", "emg.estimator.LoggingTensorHook"),
        ("tf.estimator.SessionRunHook", "emg.estimator.SessionRunHook"),
        ("tf.estimator.add_metrics", "emg.estimator.add_metrics"),
        (
            "tf.estimator.experimental.stop_if_no_decrease_hook",
            "emg.estimator.experimental.stop_if_no_decrease_hook",
        ),
    ],
    ids=["logging_hook", "session_run_hook", "add_metrics", "stop_if"],
)
def test_migrate_fix_rewrites_to_emg_estimator(tmp_path, legacy, fixed):
    path = tmp_path / "legacy.py"
    path.write_text(f"import tensorflow as tf\nx = {legacy}\n")
    subprocess.run(
        [sys.executable, "-m", "estimator_multigpu.migrate", "--fix", str(path)],
        capture_output=True,
        check=False,
        timeout=120,
    )
    assert f"x = {fixed}\n" in path.read_text()


def test_add_metrics_adds_to_evaluation(tmp_path):
    def metric_fn(labels, predictions):
        return {"mean_class": tf.compat.v1.metrics.mean(predictions["class"])}

    estimator = _estimator(tmp_path)
    estimator.train(TRAIN_FN, steps=1)
    results = emg_estimator.add_metrics(estimator, metric_fn).evaluate(EVAL_FN)
    assert {"accuracy", "loss", "mean_class", "global_step"} <= set(results)


def test_add_metrics_rejects_unknown_arguments(tmp_path):
    with pytest.raises(ValueError, match=r"has following not expected args: \['x'\]"):
        emg_estimator.add_metrics(_estimator(tmp_path), lambda x: {})


# RunConfig.


@needs_real
def test_run_config_arguments_in_tf_estimator_order():
    real = list(inspect.signature(tf.estimator.RunConfig).parameters)
    ours = list(inspect.signature(emg_estimator.RunConfig).parameters)
    assert ours[: len(real)] == real


def test_tenth_positional_argument_is_train_distribute():
    strategy = tf.distribute.OneDeviceStrategy(ALL_DEVICES[1])
    config = emg_estimator.RunConfig(
        None, None, 100, None, 600, None, 5, 1, 100, strategy
    )
    assert config.train_distribute is strategy


@pytest.mark.parametrize(
    "kwargs",
    [
        {"train_distribute": None, "eval_distribute": None},
        {"experimental_distribute": None},
        {"experimental_max_worker_delay_secs": 5},
        {"protocol": "grpc"},
    ],
    ids=["distribute_none", "experimental_distribute", "worker_delay", "protocol"],
)
def test_tf_estimator_only_arguments_accepted(kwargs):
    config = emg_estimator.RunConfig(**kwargs)
    for key, value in kwargs.items():
        assert getattr(config, key) == value


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"protocol": "http"}, r"^protocol should be grpc or grpc\+verbs \("),
        (
            {"experimental_max_worker_delay_secs": 1.5},
            r"^experimental_max_worker_delay_secs must be an integer if set\.",
        ),
        ({"save_summary_steps": -1}, r"^save_summary_steps should be >= 0 \("),
        ({"device_fn": lambda x, y: None}, r"^device_fn must be callable with"),
    ],
    ids=["protocol", "worker_delay", "summary_steps", "device_fn_args"],
)
def test_run_config_errors_start_with_tf_estimator_text(kwargs, match):
    with pytest.raises(ValueError, match=match):
        emg_estimator.RunConfig(**kwargs)
    if HAS_REAL:
        with pytest.raises(ValueError, match=match.split(r" \(")[0]):
            tf.estimator.RunConfig(**kwargs)


# Distribution strategies as our towers' devices.


@pytest.mark.parametrize(
    "make, expected",
    [
        (lambda: tf.distribute.MirroredStrategy(ALL_DEVICES[:2]), ALL_DEVICES[:2]),
        (lambda: tf.distribute.OneDeviceStrategy(ALL_DEVICES[1]), ALL_DEVICES[1:2]),
    ],
    ids=["mirrored", "one_device"],
)
def test_strategy_devices_become_compute_devices(make, expected):
    config = emg_estimator.RunConfig(train_distribute=make())
    assert config.compute_devices == devices_lib.resolve(devices=expected)


def test_mirrored_strategy_trains_like_devices(tmp_path):
    strategy = tf.distribute.MirroredStrategy(ALL_DEVICES[:2])
    losses = []
    for name, extra in (
        ("strategy", {"train_distribute": strategy}),
        ("devices", {"devices": ALL_DEVICES[:2]}),
    ):
        estimator = _estimator(tmp_path / name, tf_random_seed=1, **extra)
        losses.append(estimator.train(TRAIN_FN, steps=2).evaluate(EVAL_FN)["loss"])
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-6)


def test_unsupported_strategy_names_what_to_use():
    with pytest.raises(ValueError, match=r"MirroredStrategy or OneDeviceStrategy"):
        emg_estimator.RunConfig(train_distribute=tf.distribute.get_strategy())


def test_strategy_and_devices_together_refused():
    strategy = tf.distribute.OneDeviceStrategy(ALL_DEVICES[0])
    with pytest.raises(ValueError, match="pass only one of them"):
        emg_estimator.RunConfig(train_distribute=strategy, devices=ALL_DEVICES[:1])


# TF_CONFIG.

CLUSTER = {"chief": ["host0:2222"], "worker": ["host1:2222", "host2:2222"]}
TF_CONFIGS = {
    "local": {},
    "chief_alone": {
        "cluster": {"chief": ["host0:2222"]},
        "task": {"type": "chief", "index": 0},
    },
    "chief": {"cluster": CLUSTER, "task": {"type": "chief", "index": 0}},
    "worker": {"cluster": CLUSTER, "task": {"type": "worker", "index": 1}},
    "evaluator": {"cluster": CLUSTER, "task": {"type": "evaluator", "index": 0}},
    "ps": {
        "cluster": dict(CLUSTER, ps=["host3:2222"]),
        "task": {"type": "ps", "index": 0},
    },
    "master": {
        "cluster": {"master": ["host0:2222"], "worker": ["host1:2222"]},
        "task": {"type": "worker", "index": 0},
    },
}
PROPERTIES = (
    "is_chief",
    "master",
    "evaluation_master",
    "num_ps_replicas",
    "num_worker_replicas",
    "task_type",
    "task_id",
    "global_id_in_cluster",
)


def _properties(config):
    values = {name: getattr(config, name) for name in PROPERTIES}
    return dict(values, cluster_spec=config.cluster_spec.as_dict())


@pytest.mark.parametrize("name", list(TF_CONFIGS))
def test_tf_config_read_into_properties(monkeypatch, name):
    monkeypatch.setenv("TF_CONFIG", json.dumps(TF_CONFIGS[name]))
    ours = _properties(emg_estimator.RunConfig())
    assert ours["num_worker_replicas"] == {"local": 1, "chief_alone": 1}.get(
        name, ours["num_worker_replicas"]
    )
    if HAS_REAL:
        assert ours == _properties(tf.estimator.RunConfig())


def test_tf_config_worker_values(monkeypatch):
    monkeypatch.setenv("TF_CONFIG", json.dumps(TF_CONFIGS["worker"]))
    config = emg_estimator.RunConfig()
    assert not config.is_chief
    assert config.master == "grpc://host2:2222"
    assert (config.num_worker_replicas, config.global_id_in_cluster) == (3, 2)


def test_tf_config_model_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("TF_CONFIG", json.dumps({"model_dir": str(tmp_path)}))
    assert emg_estimator.RunConfig().model_dir == str(tmp_path)
    with pytest.raises(ValueError, match="must have the same value as the model_dir"):
        emg_estimator.RunConfig(model_dir=str(tmp_path / "other"))


@pytest.mark.parametrize(
    "name, match",
    [
        ("worker", "task_type='worker', task_id=1: not the chief"),
        ("evaluator", "(?s)^Train has been called wrong configuration.*'evaluator'"),
        ("ps", "(?s)^Train has been called wrong configuration.*task_type 'ps'"),
        ("chief", r"a cluster with 3 worker\(s\) and 0 parameter server"),
    ],
    ids=["worker", "evaluator", "ps", "chief_with_workers"],
)
def test_train_refuses_a_cluster_it_cannot_serve(monkeypatch, tmp_path, name, match):
    monkeypatch.setenv("TF_CONFIG", json.dumps(TF_CONFIGS[name]))
    estimator = _estimator(tmp_path)
    with pytest.raises(ValueError, match=match):
        estimator.train(TRAIN_FN, steps=1)
    assert not os.path.exists(os.path.join(estimator.model_dir, "checkpoint"))


def test_train_as_the_only_chief(monkeypatch, tmp_path):
    monkeypatch.setenv("TF_CONFIG", json.dumps(TF_CONFIGS["chief_alone"]))
    assert _step(_estimator(tmp_path).train(TRAIN_FN, steps=1)) == 1


# Steps, predict_keys, exports.


@pytest.mark.parametrize(
    "steps", [np.int64(2), np.int32(2), 2.0], ids=["int64", "int32", "float"]
)
def test_integral_steps_accepted(tmp_path, steps):
    estimator = _estimator(tmp_path).train(TRAIN_FN, steps=steps)
    assert _step(estimator) == 2
    estimator.train(TRAIN_FN, max_steps=steps + 1)
    assert _step(estimator) == 3
    assert estimator.evaluate(EVAL_FN, steps=steps)["global_step"] == 3


def test_predict_keys_as_a_string(tmp_path):
    estimator = _estimator(tmp_path).train(TRAIN_FN, steps=1)
    first = next(estimator.predict(dataset_input_fn(X), predict_keys="class"))
    assert set(first) == {"class"}


def _tags(export_dir):
    from tensorflow.core.protobuf import saved_model_pb2

    proto = saved_model_pb2.SavedModel()
    with open(os.path.join(os.fsdecode(export_dir), "saved_model.pb"), "rb") as f:
        proto.ParseFromString(f.read())
    return sorted(sorted(m.meta_info_def.tags) for m in proto.meta_graphs)


def _receivers():
    features = {"x": tf.constant(X)}
    labels = tf.constant(Y)
    supervised = emg_estimator.experimental.build_raw_supervised_input_receiver_fn(
        features, labels
    )
    serving = emg_estimator.export.build_raw_serving_input_receiver_fn(features)
    keys = emg_estimator.ModeKeys
    return {keys.TRAIN: supervised, keys.EVAL: supervised, keys.PREDICT: serving}


def test_export_all_saved_models_has_a_graph_per_mode(tmp_path):
    estimator = _estimator(tmp_path).train(TRAIN_FN, steps=1)
    export_dir = estimator.experimental_export_all_saved_models(
        str(tmp_path / "export"), _receivers()
    )
    assert _tags(export_dir) == [["eval"], ["serve"], ["train"]]
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        meta = tf.compat.v1.saved_model.load(session, ["eval"], export_dir)
        assert "eval" in meta.signature_def


def _signatures(export_dir):
    from tensorflow.core.protobuf import saved_model_pb2

    proto = saved_model_pb2.SavedModel()
    with open(os.path.join(os.fsdecode(export_dir), "saved_model.pb"), "rb") as f:
        proto.ParseFromString(f.read())
    return {
        ",".join(sorted(m.meta_info_def.tags)): sorted(m.signature_def)
        for m in proto.meta_graphs
    }


@needs_real
def test_export_all_saved_models_matches_tf_estimator(tmp_path):
    exports = []
    for module in (emg_estimator, tf.estimator):
        config = module.RunConfig(model_dir=str(tmp_path / module.__name__))
        estimator = module.Estimator(model_fn, config=config, params={})
        estimator.train(TRAIN_FN, steps=1)
        exports.append(
            estimator.experimental_export_all_saved_models(
                str(tmp_path / module.__name__ / "export"), _receivers()
            )
        )
    assert _signatures(exports[0]) == _signatures(exports[1])


def test_export_savedmodel_is_the_predict_export(tmp_path):
    estimator = _estimator(tmp_path).train(TRAIN_FN, steps=1)
    receiver = _receivers()[emg_estimator.ModeKeys.PREDICT]
    export_dir = estimator.export_savedmodel(str(tmp_path / "export"), receiver)
    assert _tags(export_dir) == [["serve"]]


def _matmul_attrs(export_dir) -> set:
    """The attributes of the served graph's MatMul (transpose_a=False is its default)."""
    from tensorflow.core.protobuf import saved_model_pb2

    proto = saved_model_pb2.SavedModel()
    with open(os.path.join(os.fsdecode(export_dir), "saved_model.pb"), "rb") as f:
        proto.ParseFromString(f.read())
    nodes = proto.meta_graphs[0].graph_def.node
    return {key for node in nodes if node.op == "MatMul" for key in node.attr}


@pytest.mark.parametrize("strip", [False, True], ids=["kept", "stripped"])
def test_export_savedmodel_honours_strip_default_attrs(tmp_path, strip):
    classes = [emg_estimator.Estimator]
    if HAS_REAL:  # tf.estimator's v2 Estimator hides export_savedmodel.
        classes.append(tf.compat.v1.estimator.Estimator)
    attrs = []
    for index, estimator_class in enumerate(classes):
        model_dir = str(tmp_path / f"model{index}")
        estimator = estimator_class(model_fn, model_dir=model_dir, params={})
        estimator.train(TRAIN_FN, steps=1)
        receiver = _receivers()[emg_estimator.ModeKeys.PREDICT]
        export_dir = estimator.export_savedmodel(
            os.path.join(model_dir, "export"), receiver, strip_default_attrs=strip
        )
        attrs.append(_matmul_attrs(export_dir))
    assert ("transpose_a" in attrs[0]) is not strip
    assert all(found == attrs[0] for found in attrs)  # As tf.estimator's export.


# Real tf.estimator objects (TF 2.15) and tf.estimator's exception types.


@needs_real
def test_real_tf_estimator_objects_are_converted(tmp_path):
    config = tf.estimator.RunConfig(
        model_dir=str(tmp_path / "model"), save_checkpoints_steps=2
    )
    estimator = emg_estimator.Estimator(model_fn, config=config, params={})
    assert isinstance(estimator.config, emg_estimator.RunConfig)
    assert estimator.config.save_checkpoints_steps == 2
    train_spec = tf.estimator.TrainSpec(TRAIN_FN, max_steps=2)
    eval_spec = tf.estimator.EvalSpec(EVAL_FN, steps=1, throttle_secs=0)
    metrics, _ = emg_estimator.train_and_evaluate(estimator, train_spec, eval_spec)
    assert metrics["global_step"] == 2
    warm = tf.estimator.WarmStartSettings(estimator.model_dir)
    other = emg_estimator.Estimator(
        model_fn, model_dir=str(tmp_path / "b"), params={}, warm_start_from=warm
    )
    assert other.train(TRAIN_FN, steps=1).latest_checkpoint()


def test_train_and_evaluate_with_a_non_estimator_is_a_type_error():
    train_spec = emg_estimator.TrainSpec(TRAIN_FN)
    eval_spec = emg_estimator.EvalSpec(EVAL_FN)
    with pytest.raises(TypeError, match="`estimator` must have type"):
        emg_estimator.train_and_evaluate(object(), train_spec, eval_spec)


def test_tensor_serving_receiver_with_a_dict_is_a_value_error():
    with pytest.raises(ValueError, match="^feature must be a Tensor"):
        emg_estimator.export.TensorServingInputReceiver(
            {"x": tf.constant([1.0])}, {"x": tf.constant([1.0])}
        )


@pytest.mark.parametrize(
    "name, filters",
    [
        ("chief", ["/job:ps", "/job:chief"]),
        ("worker", ["/job:ps", "/job:worker/task:1"]),
        ("ps", ["/job:ps", "/job:worker", "/job:chief", "/job:master"]),
        ("evaluator", None),
    ],
    ids=["chief", "worker", "ps", "evaluator"],
)
def test_tf_config_session_device_filters(monkeypatch, name, filters):
    monkeypatch.setenv("TF_CONFIG", json.dumps(TF_CONFIGS[name]))
    configs = [emg_estimator.RunConfig()]
    if HAS_REAL:
        configs.append(tf.estimator.RunConfig())
    for config in configs:
        session = config.session_config
        assert (None if session is None else list(session.device_filters)) == filters


def test_model_fn_none_is_a_value_error():
    with pytest.raises(ValueError, match="^model_fn must be provided to Estimator"):
        emg_estimator.Estimator(model_fn=None)


def test_config_checked_before_model_fn():
    with pytest.raises(ValueError, match="an instance of `RunConfig`"):
        emg_estimator.Estimator(model_fn=None, config="NotARunConfig")


def test_subclass_may_not_override_public_methods():
    class Custom(emg_estimator.Estimator):
        def predict(self, input_fn, predict_keys=None, hooks=None):
            return None

    with pytest.raises(ValueError, match=r"cannot override members.*\['predict'\]"):
        Custom(model_fn=model_fn)


@pytest.mark.parametrize(
    "exporters, error, match",
    [
        (object(), TypeError, "^`exporters` must be an Exporter, an iterable of"),
        (
            [emg_estimator.LatestExporter("", lambda: None)],
            ValueError,
            "^An Exporter cannot have a name that is `None` or empty",
        ),
    ],
    ids=["not_an_exporter", "empty_name"],
)
def test_exporter_errors_are_tf_estimators(exporters, error, match):
    with pytest.raises(error, match=match):
        emg_estimator.EvalSpec(EVAL_FN, exporters=exporters)


@pytest.mark.parametrize(
    "check, match",
    [
        (
            lambda: emg_estimator.TrainSpec(TRAIN_FN, hooks=[object()]),
            "^All hooks must be `SessionRunHook` instances, given: ",
        ),
        (
            lambda: emg_estimator.TrainSpec(TRAIN_FN, saving_listeners=[object()]),
            "^All saving_listeners must be `CheckpointSaverListener` instances",
        ),
    ],
    ids=["spec_hooks", "spec_listeners"],
)
def test_spec_hook_errors_are_tf_estimators(check, match):
    with pytest.raises(TypeError, match=match):
        check()


def test_unsupervised_receiver_is_the_serving_receiver():
    features = {"x": tf.constant([1.0])}
    receiver = emg_estimator.export.UnsupervisedInputReceiver(features, features)
    assert isinstance(receiver, emg_estimator.export.ServingInputReceiver)


@pytest.mark.parametrize(
    "key, match",
    [(1.5, "^feature keys must be strings or ints: 1.5")],
    ids=["float_key"],
)
def test_receiver_key_errors(key, match):
    with pytest.raises(ValueError, match=match):
        emg_estimator.export.ServingInputReceiver(
            {key: tf.constant([1.0])}, tf.constant([1.0])
        )
