"""`RunConfig`'s properties are declared one per line, typed, read-only, as before."""

import ast
import inspect
import json
import textwrap
import typing

import pytest
import tensorflow as tf

from estimator_multigpu.estimator import (
    RunConfig,
    _run_config_properties,
)
from estimator_multigpu.estimator import _run_config as run_config_lib

CLUSTER = (
    "cluster_spec",
    "task_type",
    "task_id",
    "global_id_in_cluster",
    "master",
    "evaluation_master",
    "is_chief",
    "num_ps_replicas",
    "num_worker_replicas",
    "service",
)
FIELDS = run_config_lib.TF_FIELDS + ("devices", "num_gpus", "log_examples_per_sec")


def _declared_fields(cls: type) -> set[str]:
    """Names declared as `name = Field[T]("doc")` in the bodies of `cls`'s classes."""
    names = set()
    for klass in cls.__mro__[:-1]:
        tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        for node in tree.body[0].body:
            value = getattr(node, "value", None)
            func = getattr(value, "func", None)
            if isinstance(node, ast.Assign) and isinstance(func, ast.Subscript):
                name = getattr(func.value, "id", "")
                declared = getattr(_run_config_properties, name, None)
                if isinstance(declared, type) and issubclass(
                    declared, _run_config_properties.Field
                ):
                    names.update(t.id for t in node.targets)
    return names


@pytest.mark.parametrize("name", FIELDS + CLUSTER)
def test_property_is_declared_with_its_type_and_doc(name):
    field = inspect.getattr_static(RunConfig, name)
    assert isinstance(field, _run_config_properties.Field)
    assert name in _declared_fields(RunConfig)
    assert getattr(RunConfig, name).__doc__.strip()  # the docstring IDEs show
    assert typing.get_args(field.__orig_class__)  # its type: Field[T]


def test_every_field_is_declared_once():
    assert set(FIELDS + CLUSTER) == _declared_fields(RunConfig)


@pytest.mark.parametrize("name", ["model_dir", "is_chief"])
def test_properties_are_read_only(name):
    config = RunConfig()
    with pytest.raises(AttributeError, match="no setter; use RunConfig.replace"):
        setattr(config, name, None)
    with pytest.raises(AttributeError):
        delattr(config, name)


def test_fields_read_back_what_was_given(tmp_path):
    given = {
        "model_dir": str(tmp_path),
        "tf_random_seed": 7,
        "save_summary_steps": 3,
        "save_checkpoints_steps": 11,
        "keep_checkpoint_max": 2,
        "log_step_count_steps": 5,
        "protocol": "grpc",
        "devices": ["/cpu:0"],
        "log_examples_per_sec": True,
    }
    config = RunConfig(**given)
    assert {name: getattr(config, name) for name in given} == given
    assert config.save_checkpoints_secs is None


def test_cluster_properties_come_from_tf_config(monkeypatch):
    cluster = {"chief": ["host0:1"], "worker": ["host1:1", "host2:1"]}
    tf_config = {"cluster": cluster, "task": {"type": "worker", "index": 1}}
    monkeypatch.setenv("TF_CONFIG", json.dumps(tf_config))
    config = RunConfig()
    assert (config.task_type, config.task_id, config.is_chief) == ("worker", 1, False)
    assert config.num_worker_replicas == 3 and config.num_ps_replicas == 0
    assert config.master == "grpc://host2:1"
    assert config.cluster_spec == tf.train.ClusterSpec(cluster)
    assert config.service is None


def _given_session_config():
    return tf.compat.v1.ConfigProto(allow_soft_placement=True)


@pytest.mark.tf_compat
def test_session_config_reads_are_one_object_a_change_to_it_stays():
    """As tf.estimator's RunConfig: `config.session_config.x = v` is kept."""
    config = RunConfig(session_config=_given_session_config())
    assert config.session_config is config.session_config
    config.session_config.gpu_options.allow_growth = True
    assert config.session_config.gpu_options.allow_growth
    copied = config.replace(save_summary_steps=7)
    assert copied.session_config.gpu_options.allow_growth
    assert copied.session_config is not config.session_config


@pytest.mark.tf_compat
def test_session_config_follows_a_change_to_the_given_config():
    given = _given_session_config()
    config = RunConfig(session_config=given)
    assert not config.session_config.log_device_placement
    given.log_device_placement = True
    assert config.session_config.log_device_placement
    replaced = config.replace(session_config=tf.compat.v1.ConfigProto())
    assert not replaced.session_config.allow_soft_placement


@pytest.mark.tf_compat
@pytest.mark.skipif(not hasattr(tf, "estimator"), reason="tf.estimator is gone")
def test_session_config_changes_stay_as_in_tf_estimator():
    """Golden: the same reads and changes on tf.estimator's RunConfig."""
    seen = {}
    for name, cls in {"ours": RunConfig, "tf": tf.estimator.RunConfig}.items():
        config = cls(session_config=_given_session_config())
        config.session_config.gpu_options.allow_growth = True
        seen[name] = (
            config.session_config is config.session_config,
            config.session_config.gpu_options.allow_growth,
            config.session_config.allow_soft_placement,
        )
    assert seen["ours"] == seen["tf"]
