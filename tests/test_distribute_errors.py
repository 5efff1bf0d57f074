"""Error messages of emg.distribute: InputOptions, global batch, arguments."""

import pytest
import tensorflow as tf

import estimator_multigpu.distribute as ed

pytestmark = pytest.mark.tf_compat


PER_REPLICA = tf.distribute.InputReplicationMode.PER_REPLICA
PER_WORKER = tf.distribute.InputReplicationMode.PER_WORKER


def _range(ctx):
    return tf.data.Dataset.range(8)


@pytest.mark.parametrize(
    "global_batch_size,replicas,match",
    [
        (
            9,
            2,
            r"`global_batch_size` \(9\) must be divisible by "
            r"`num_replicas_in_sync` \(2\).*Pass 8 or 10",
        ),
        (3, 4, r"`global_batch_size` \(3\).*\(4\).*Pass 4,"),
        (0, 2, r"`global_batch_size` must be >= 1; received 0"),
    ],
    ids=["odd", "smaller_than_replicas", "zero"],
)
def test_per_replica_batch_size_errors(global_batch_size, replicas, match):
    with pytest.raises(ValueError, match=match):
        ed.per_replica_batch_size(global_batch_size, replicas)


@pytest.mark.parametrize(
    "global_batch_size,replicas,expected", [(8, 2, 4), (12, 4, 3), (5, 1, 5)]
)
def test_per_replica_batch_size(global_batch_size, replicas, expected):
    assert ed.per_replica_batch_size(global_batch_size, replicas) == expected


def test_global_batch_size_type_error():
    with pytest.raises(
        TypeError, match=r"`global_batch_size` must be an int; received 8.0"
    ):
        ed.per_replica_batch_size(8.0, 2)


def test_dataset_fn_builder_checks_global_batch_first(strategy):
    with pytest.raises(ValueError, match=r"`global_batch_size` \(7\).*Pass 6 or 8"):
        ed.per_replica_dataset_fn(_range, strategy, global_batch_size=7)


def test_check_global_batch_size_needs_a_strategy():
    with pytest.raises(TypeError, match=r"`strategy` must be a tf.distribute.Strategy"):
        ed.check_global_batch_size("mirrored", 8)


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        (
            {"place_dataset_on_device": True},
            ValueError,
            r"`place_dataset_on_device=True` needs `replication_mode='per_replica'`",
        ),
        (
            {
                "replication_mode": "per_replica",
                "place_dataset_on_device": True,
                "fetch_to_device": True,
            },
            ValueError,
            r"with `fetch_to_device=True`.*Pass fetch_to_device=False",
        ),
        (
            {"replication_mode": "per_replica", "from_function": False},
            ValueError,
            r"only with strategy.distribute_datasets_from_function",
        ),
        (
            {"per_replica_buffer_size": -1},
            ValueError,
            r"`per_replica_buffer_size` must be an int >= 0.*received -1",
        ),
        (
            {"replication_mode": "per_device"},
            ValueError,
            r"`replication_mode` must be 'per_worker', 'per_replica'.*'per_device'",
        ),
        (
            {"fetch_to_device": "yes"},
            TypeError,
            r"`fetch_to_device` must be True or False; received 'yes'",
        ),
        (
            {"place_dataset_on_device": 1},
            TypeError,
            r"`place_dataset_on_device` must be True or False; received 1",
        ),
    ],
    ids=[
        "place_needs_per_replica",
        "place_and_fetch",
        "per_replica_dataset",
        "negative_buffer",
        "bad_mode",
        "fetch_not_bool",
        "place_not_bool",
    ],
)
def test_input_options_errors(strategy, kwargs, error, match):
    with pytest.raises(error, match=match):
        ed.input_options(strategy, **kwargs)


def test_per_replica_needs_a_mirrored_strategy():
    one = tf.distribute.OneDeviceStrategy("/cpu:0")
    with pytest.raises(
        ValueError,
        match=r"works only with .*MirroredStrategy; "
        r"received a OneDeviceStrategy",
    ):
        ed.input_options(one, replication_mode="per_replica")


def test_check_input_options_rejects_other_types():
    with pytest.raises(
        TypeError, match=r"`options` must be a tf.distribute.InputOptions"
    ):
        ed.check_input_options({"experimental_fetch_to_device": False})


@pytest.mark.parametrize(
    "kwargs,expected",
    [
        ({}, (True, PER_WORKER, False, 1)),
        (
            {"replication_mode": "per_replica", "place_dataset_on_device": True},
            (False, PER_REPLICA, True, 1),
        ),
        (
            {"replication_mode": PER_REPLICA, "per_replica_buffer_size": 0},
            (True, PER_REPLICA, False, 0),
        ),
    ],
    ids=["defaults", "on_device_fetches_nothing", "enum_mode"],
)
def test_input_options_values(strategy, kwargs, expected):
    assert tuple(ed.input_options(strategy, **kwargs)) == expected


# Each combination below is one TensorFlow itself rejects, but only when the
# dataset is distributed; input_options rejects it when the options are made.
TF_REJECTS = {
    "place_needs_per_replica": (dict(experimental_place_dataset_on_device=True), True),
    "place_and_fetch": (
        dict(
            experimental_replication_mode=PER_REPLICA,
            experimental_place_dataset_on_device=True,
        ),
        True,
    ),
    "per_replica_dataset": (dict(experimental_replication_mode=PER_REPLICA), False),
}


@pytest.mark.parametrize("name", sorted(TF_REJECTS), ids=sorted(TF_REJECTS))
def test_tensorflow_rejects_what_check_input_options_rejects(strategy, name):
    raw, from_function = TF_REJECTS[name]
    options = tf.distribute.InputOptions(**raw)
    with pytest.raises((ValueError, NotImplementedError)):
        if from_function:
            strategy.distribute_datasets_from_function(_range, options)
        else:
            strategy.experimental_distribute_dataset(_range(None), options)
    with pytest.raises(ValueError):
        ed.check_input_options(options, strategy, from_function)


def test_options_given_to_tf_must_match_the_builder(strategy):
    options = ed.input_options(strategy, replication_mode="per_replica")
    fn = ed.per_replica_dataset_fn(
        _range, strategy, global_batch_size=4, options=options
    )
    with pytest.raises(
        ValueError,
        match=r"built for 2 input pipeline\(s\) but "
        r"TensorFlow runs 1: pass the same `options`",
    ):
        strategy.distribute_datasets_from_function(fn)


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        (
            {"shuffle_buffer_size": 0},
            ValueError,
            r"`shuffle_buffer_size` must be an int >= 1 or None.*received 0",
        ),
        ({"num_epochs": 0}, ValueError, r"`num_epochs` must be an int >= 1 or None"),
        (
            {"user_batches": True, "shuffle_buffer_size": 8},
            ValueError,
            r"With `user_batches=True` the dataset_fn shuffles",
        ),
    ],
    ids=["shuffle_zero", "epochs_zero", "user_batches_and_shuffle"],
)
def test_dataset_fn_builder_argument_errors(strategy, kwargs, error, match):
    with pytest.raises(error, match=match):
        ed.per_replica_dataset_fn(_range, strategy, global_batch_size=4, **kwargs)


def test_dataset_fn_must_be_callable(strategy):
    with pytest.raises(TypeError, match=r"`dataset_fn` must be a callable"):
        ed.per_replica_dataset_fn(_range(None), strategy, global_batch_size=4)


def test_dataset_fn_must_return_a_dataset(strategy):
    with pytest.raises(
        TypeError,
        match=r"must return a tf.data.Dataset; pipeline 0 "
        r"returned list",
    ):
        ed.distribute_dataset_fn(lambda ctx: [1, 2], strategy, global_batch_size=4)


def test_user_batches_of_the_wrong_size(strategy):
    with pytest.raises(
        ValueError,
        match=r"returned batches of 8 examples, but each "
        r"replica takes 4 \(global batch 8 / 2 replicas\)",
    ):
        ed.distribute_dataset_fn(
            lambda ctx: tf.data.Dataset.range(16).batch(8, drop_remainder=True),
            strategy,
            global_batch_size=8,
            user_batches=True,
        )
