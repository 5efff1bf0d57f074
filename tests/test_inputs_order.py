"""Input order, batched datasets and `drop_remainder` in both input builders.

Predictions come back in input order from every builder; a `dataset_fn`
that batches is refused; `drop_remainder` drops the short *global* batch.
"""

import numpy as np
import pytest
import tensorflow as tf
from conftest import ALL_DEVICES

import estimator_multigpu as emg
from estimator_multigpu import estimator as emg_estimator

pytestmark = pytest.mark.tf_compat

BUILDERS = {
    "multi_device": emg.inputs.multi_device_input_fn,
    "sharded": emg.inputs.sharded_input_fn,
}
NUM_EXAMPLES = 17  # Leaves a short final global batch for every batch below.


def _ids_model_fn(features, labels, mode):
    """Predicts each example's id (plus 0 * a variable, so there is a graph)."""
    del labels
    w = tf.compat.v1.get_variable("w", [], initializer=tf.compat.v1.zeros_initializer())
    ids = features["id"] + tf.cast(w, tf.int64)
    return emg_estimator.EstimatorSpec(mode, predictions={"id": ids})


def _ids_dataset_fn(ctx):
    del ctx
    return tf.data.Dataset.range(NUM_EXAMPLES).map(lambda i: {"id": i})


@pytest.mark.parametrize("builder", sorted(BUILDERS))
@pytest.mark.parametrize("num_devices", [1, 2, 3], ids=["1dev", "2dev", "3dev"])
@pytest.mark.parametrize("batch", ["even", "uneven"])
def test_predictions_in_input_order(tmp_path, builder, num_devices, batch):
    devices = ALL_DEVICES[:num_devices]
    global_batch_size = 6 if batch == "even" else 7
    remainder = "uneven" if global_batch_size % num_devices else "error"
    input_fn = BUILDERS[builder](
        _ids_dataset_fn,
        devices,
        global_batch_size=global_batch_size,
        remainder=remainder,
    )
    config = emg_estimator.RunConfig(model_dir=str(tmp_path), devices=devices)
    estimator = emg_estimator.Estimator(_ids_model_fn, config=config)
    predicted = [p["id"] for p in estimator.predict(input_fn)]
    assert predicted == list(range(NUM_EXAMPLES))


@pytest.mark.parametrize("flag", ["user_shards", "user_batches"])
def test_predict_refuses_shards_chosen_by_dataset_fn(flag):
    def dataset_fn(ctx):
        dataset = tf.data.Dataset.range(8).shard(ctx.num_shards, ctx.shard_index)
        return (
            dataset.batch(ctx.per_device_batch_size)
            if flag == "user_batches"
            else dataset
        )

    input_fn = emg.inputs.sharded_input_fn(
        dataset_fn, ALL_DEVICES[:2], global_batch_size=4, **{flag: True}
    )
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=f"{flag}=True.*cannot keep predictions"):
            input_fn(mode=emg_estimator.ModeKeys.PREDICT)
        input_fn(mode=emg_estimator.ModeKeys.TRAIN)  # Order does not matter there.


def _steps(input_fn):
    """`[counts of step 0, counts of step 1, ...]` and the shards' static shapes."""
    steps = []
    with tf.Graph().as_default():
        features, _ = input_fn()
        shapes = [v.shape.as_list() for v in features.values]
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.tables_initializer())
            with pytest.raises(tf.errors.OutOfRangeError):
                while len(steps) < 1000:
                    steps.append(session.run(list(features.counts)))
    return steps, shapes


@pytest.mark.parametrize("builder", sorted(BUILDERS))
@pytest.mark.parametrize("num_epochs", [1, 2], ids=["1epoch", "2epochs"])
def test_drop_remainder_drops_the_short_global_batch(builder, num_epochs):
    """1000 examples, global batch 64 over 3 devices (22, 21, 21)."""
    input_fn = BUILDERS[builder](
        lambda ctx: tf.data.Dataset.range(1000).map(lambda i: (i, i)),
        ALL_DEVICES[:3],
        global_batch_size=64,
        remainder="uneven",
        drop_remainder=True,
        num_epochs=num_epochs,
    )
    steps, _ = _steps(input_fn)
    assert all(counts == [22, 21, 21] for counts in steps)
    if num_epochs == 1:
        assert len(steps) == 1000 // 64


def test_sharded_drop_remainder_keeps_static_batch_sizes():
    input_fn = emg.inputs.sharded_input_fn(
        lambda ctx: tf.data.Dataset.range(100).map(lambda i: (i, i)),
        ALL_DEVICES[:3],
        global_batch_size=10,
        remainder="uneven",
        drop_remainder=True,
    )
    steps, shapes = _steps(input_fn)
    assert shapes == [[4], [3], [3]]
    assert len(steps) == 10


def test_without_drop_remainder_the_short_batch_is_kept():
    steps, _ = _steps(
        emg.inputs.sharded_input_fn(
            lambda ctx: tf.data.Dataset.range(1000).map(lambda i: (i, i)),
            ALL_DEVICES[:3],
            global_batch_size=64,
            remainder="uneven",
        )
    )
    assert len(steps) == 16
    assert steps[-1] == [22, 18, 0]
    assert sum(sum(counts) for counts in steps) == 1000


BATCHED = {
    "batch": lambda d: d.batch(4),
    "batch_prefetch": lambda d: d.batch(4).prefetch(1),
    "padded_batch": lambda d: d.padded_batch(4),
    "batch_then_map": lambda d: d.batch(4).map(lambda x, y: (x * 2, y)),
    "batch_drop_remainder": lambda d: d.batch(4, drop_remainder=True),
}
UNBATCHED = {
    "plain": lambda d: d,
    "batch_unbatch": lambda d: d.batch(4).unbatch(),
    "map_prefetch": lambda d: d.map(lambda x, y: (x, y)).prefetch(2),
}


def _pairs():
    return tf.data.Dataset.range(40).map(lambda i: (tf.fill([3], i), i))


@pytest.mark.parametrize("builder", sorted(BUILDERS))
@pytest.mark.parametrize("shape", sorted(BATCHED))
def test_batched_dataset_fn_is_refused(builder, shape):
    input_fn = BUILDERS[builder](
        lambda ctx: BATCHED[shape](_pairs()), ALL_DEVICES[:2], global_batch_size=8
    )
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="returned a batched dataset.*drop the"):
            input_fn()


@pytest.mark.parametrize("builder", sorted(BUILDERS))
@pytest.mark.parametrize("shape", sorted(UNBATCHED))
def test_unbatched_dataset_fn_is_accepted(builder, shape):
    input_fn = BUILDERS[builder](
        lambda ctx: UNBATCHED[shape](_pairs()), ALL_DEVICES[:2], global_batch_size=8
    )
    steps, shapes = _steps(input_fn)
    assert shapes == [[None, 3], [None, 3]]
    assert sum(sum(counts) for counts in steps) == 40


def test_batched_dataset_fn_may_batch_with_user_batches():
    def dataset_fn(ctx):
        shard = _pairs().shard(ctx.num_shards, ctx.shard_index)
        return shard.batch(ctx.per_device_batch_size)

    input_fn = emg.inputs.sharded_input_fn(
        dataset_fn, ALL_DEVICES[:2], global_batch_size=8, user_batches=True
    )
    steps, _ = _steps(input_fn)
    assert sum(sum(counts) for counts in steps) == 40


def _listed_model_fn(features, labels, mode):
    w = tf.compat.v1.get_variable("w", [], initializer=tf.compat.v1.ones_initializer())
    return emg_estimator.EstimatorSpec(mode, predictions=features * w)


@pytest.mark.parametrize("name", ["features", "labels"])
def test_a_list_of_per_device_values_is_refused(name):
    model_fn = emg.replicate_model_fn(_listed_model_fn, devices=ALL_DEVICES[:2])
    with tf.Graph().as_default():
        x = [tf.ones([4, 2]), tf.ones([4, 2])]
        features, labels = (x, None) if name == "features" else (x[0], x)
        with pytest.raises(
            TypeError, match=f"`{name}` is a list of 2 values.*PerDevice"
        ):
            model_fn(features, labels, emg_estimator.ModeKeys.PREDICT)


def test_a_tuple_of_model_inputs_is_split():
    def model_fn(features, labels, mode):
        del labels
        w = tf.compat.v1.get_variable(
            "w", [], initializer=tf.compat.v1.ones_initializer()
        )
        return emg_estimator.EstimatorSpec(
            mode, predictions=features[0] * w + features[1]
        )

    replicated = emg.replicate_model_fn(model_fn, devices=ALL_DEVICES[:2])
    with tf.Graph().as_default():
        a = np.arange(6, dtype=np.float32).reshape(3, 2)
        b = np.ones([3, 2], np.float32)
        spec = replicated((tf.constant(a), tf.constant(b)), None, "infer")
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            np.testing.assert_array_equal(session.run(spec.predictions), a + b)
