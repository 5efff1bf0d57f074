"""emg.estimator.inputs: numpy_input_fn and pandas_input_fn, and the real ones on TF 2.15.

Batches are read in a graph session, as tf.estimator read them, so the same
helper reads ours (a tf.data.Dataset) and the real ones (queue tensors, with
their queue runners). The order is checked against a numpy replay of the
feeding queue (epochs end to end, then batches), and against the real
functions where tf.estimator exists.
"""

import logging

import numpy as np
import pytest
import tensorflow as tf
from estimator_models import (
    LossRecorder,
    batches,
    initial_weights,
    make_data,
    model_fn,
    numpy_train,
    write_checkpoint,
)

from estimator_multigpu import estimator as emg_estimator
from estimator_multigpu.estimator import inputs

pd = pytest.importorskip("pandas")

ORDERS = {
    "one_epoch_short_last": (10, 4, 1),
    "epochs_run_across": (10, 4, 2),
    "epochs_divide": (10, 5, 2),
    "batch_larger_than_data": (3, 8, 1),
    "single_rows": (7, 1, 1),
    "three_epochs": (5, 3, 3),
}


def read_all(input_fn, limit=None):
    """Every batch `input_fn` gives (at most `limit`), read in a graph session."""
    with tf.Graph().as_default():
        result = input_fn()
        if isinstance(result, tf.data.Dataset):
            result = tf.compat.v1.data.make_one_shot_iterator(result).get_next()
        out = []
        with tf.compat.v1.train.MonitoredSession() as session:
            while limit is None or len(out) < limit:
                try:
                    out.append(session.run(result))
                except tf.errors.OutOfRangeError:
                    break
    return out


def static_shapes(input_fn):
    """The static shapes of what `input_fn` gives, as lists."""
    with tf.Graph().as_default():
        result = input_fn()
        if isinstance(result, tf.data.Dataset):
            result = tf.compat.v1.data.make_one_shot_iterator(result).get_next()
        return tf.nest.map_structure(lambda t: t.shape.as_list(), result)


def queue_order(num_rows, batch_size, num_epochs):
    """The rows tf.estimator's queue gave: epochs end to end, then batches."""
    rows = np.concatenate([np.arange(num_rows)] * num_epochs)
    return [rows[i : i + batch_size] for i in range(0, len(rows), batch_size)]


def _arrays(num_rows):
    x = {
        "age": np.arange(num_rows, dtype=np.float32),
        "pixels": np.arange(num_rows * 6).reshape(num_rows, 2, 3),
        "name": np.array([f"row{i}" for i in range(num_rows)]),
    }
    return x, np.arange(num_rows) * 10


def _frame(num_rows):
    x = pd.DataFrame(
        {
            "age": np.arange(num_rows, dtype=np.float64),
            "name": [f"row{i}" for i in range(num_rows)],
        },
        index=np.arange(num_rows) + 100,
    )
    return x, pd.Series(np.arange(num_rows) * 10, index=x.index)


def _real():
    if not emg_estimator.HAS_TF_ESTIMATOR:
        pytest.skip("tf.estimator (the reference) exists on TF <= 2.15 only")
    return tf.compat.v1.estimator.inputs


@pytest.mark.parametrize("case", sorted(ORDERS), ids=sorted(ORDERS))
def test_numpy_batches_come_in_the_queue_order(case):
    num_rows, batch_size, num_epochs = ORDERS[case]
    x, y = _arrays(num_rows)
    fn = inputs.numpy_input_fn(
        x, y, batch_size=batch_size, num_epochs=num_epochs, shuffle=False
    )
    got = read_all(fn)
    expected = queue_order(num_rows, batch_size, num_epochs)
    assert [list(t) for _, t in got] == [list(r * 10) for r in expected]
    for (features, _), rows in zip(got, expected):
        np.testing.assert_array_equal(features["pixels"], x["pixels"][rows])
        assert list(features["name"]) == [f"row{i}".encode() for i in rows]


@pytest.mark.parametrize("case", sorted(ORDERS), ids=sorted(ORDERS))
def test_pandas_batches_come_in_the_queue_order(case):
    num_rows, batch_size, num_epochs = ORDERS[case]
    x, y = _frame(num_rows)
    fn = inputs.pandas_input_fn(
        x, y, batch_size=batch_size, num_epochs=num_epochs, shuffle=False
    )
    got = read_all(fn)
    expected = queue_order(num_rows, batch_size, num_epochs)
    assert [list(t) for _, t in got] == [list(r * 10) for r in expected]
    assert [list(f["age"]) for f, _ in got] == [list(r) for r in expected]


@pytest.mark.tf_compat
@pytest.mark.parametrize("case", sorted(ORDERS), ids=sorted(ORDERS))
def test_numpy_batches_equal_the_real_ones(case):
    real = _real()
    num_rows, batch_size, num_epochs = ORDERS[case]
    x, y = _arrays(num_rows)
    args = dict(batch_size=batch_size, num_epochs=num_epochs, shuffle=False)
    ours = read_all(inputs.numpy_input_fn(x, y, **args))
    theirs = read_all(real.numpy_input_fn(x, y, **args))
    assert len(ours) == len(theirs)
    for (our_x, our_y), (their_x, their_y) in zip(ours, theirs):
        np.testing.assert_array_equal(our_y, their_y)
        assert our_y.dtype == their_y.dtype
        assert sorted(our_x) == sorted(their_x)
        for key in their_x:
            np.testing.assert_array_equal(our_x[key], their_x[key])
            assert our_x[key].dtype == their_x[key].dtype


@pytest.mark.tf_compat
@pytest.mark.parametrize("case", sorted(ORDERS), ids=sorted(ORDERS))
def test_pandas_batches_equal_the_real_ones(case):
    real = _real()
    num_rows, batch_size, num_epochs = ORDERS[case]
    x, y = _frame(num_rows)
    args = dict(batch_size=batch_size, num_epochs=num_epochs, shuffle=False)
    ours = read_all(inputs.pandas_input_fn(x, y, **args))
    theirs = read_all(real.pandas_input_fn(x, y, **args))
    assert len(ours) == len(theirs)
    for (our_x, our_y), (their_x, their_y) in zip(ours, theirs):
        np.testing.assert_array_equal(our_y, their_y)
        assert sorted(our_x) == sorted(their_x)
        for key in their_x:
            np.testing.assert_array_equal(our_x[key], their_x[key])


@pytest.mark.tf_compat
@pytest.mark.parametrize(
    "kind, num_epochs",
    [("array", None), ("dict", None), ("array", 1), ("dict", 2)],
    ids=["array_forever", "dict_forever", "array_one_epoch", "dict_two_epochs"],
)
def test_static_shapes_equal_the_real_ones(kind, num_epochs):
    real = _real()
    x = np.ones([6, 3], np.float32) if kind == "array" else {"a": np.ones([6, 2])}
    y = {"t": np.ones([6])} if kind == "dict" else None
    args = dict(batch_size=4, num_epochs=num_epochs, shuffle=True)
    ours = static_shapes(inputs.numpy_input_fn(x, y, **args))
    assert ours == static_shapes(real.numpy_input_fn(x, y, **args))


def test_forever_gives_full_batches_past_the_end():
    x, y = _arrays(5)
    fn = inputs.numpy_input_fn(x, y, batch_size=4, num_epochs=None, shuffle=False)
    got = read_all(fn, limit=6)
    assert [list(t // 10) for _, t in got] == [
        list(r) for r in queue_order(5, 4, 6)[:6]
    ]


def _shuffled_rows(fn):
    return np.concatenate([target for _, target in read_all(fn)]) // 10


@pytest.mark.parametrize(
    "num_rows, batch_size, num_epochs, capacity",
    [(50, 8, 1, 1000), (50, 8, 3, 1000), (50, 7, 2, 10)],
    ids=["one_epoch", "three_epochs", "small_queue"],
)
def test_shuffled_numpy_gives_every_example_once_per_epoch(
    num_rows, batch_size, num_epochs, capacity
):
    x, y = _arrays(num_rows)
    fn = inputs.numpy_input_fn(
        x,
        y,
        batch_size=batch_size,
        num_epochs=num_epochs,
        shuffle=True,
        queue_capacity=capacity,
    )
    rows = _shuffled_rows(fn)
    for epoch in np.split(rows, num_epochs):
        assert sorted(epoch) == list(range(num_rows))
    assert list(rows) != list(np.tile(np.arange(num_rows), num_epochs))


def test_shuffled_pandas_gives_every_row_once():
    x, y = _frame(40)
    rows = _shuffled_rows(inputs.pandas_input_fn(x, y, batch_size=6, shuffle=True))
    assert sorted(rows) == list(range(40))
    assert list(rows) != list(range(40))


@pytest.mark.tf_compat
@pytest.mark.parametrize("function", ["numpy_input_fn", "pandas_input_fn"])
def test_shuffled_examples_equal_the_real_ones_as_a_multiset(function):
    real = _real()
    x, y = _frame(30) if function == "pandas_input_fn" else _arrays(30)
    args = dict(batch_size=4, num_epochs=2, shuffle=True)
    ours = _shuffled_rows(getattr(inputs, function)(x, y, **args))
    theirs = _shuffled_rows(getattr(real, function)(x, y, **args))
    assert sorted(ours) == sorted(theirs) == sorted(list(range(30)) * 2)


class _Records(logging.Handler):
    def __init__(self):
        super().__init__()
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


@pytest.fixture
def tf_log():
    records = _Records()
    tf.get_logger().addHandler(records)
    yield records.messages
    tf.get_logger().removeHandler(records)


@pytest.mark.parametrize("shuffle", [False, True], ids=["ordered", "shuffled"])
def test_each_thread_reads_every_example_and_says_so(shuffle, tf_log):
    x, y = _arrays(9)
    fn = inputs.numpy_input_fn(
        x, y, batch_size=4, num_epochs=1, shuffle=shuffle, num_threads=3
    )
    rows = _shuffled_rows(fn)
    assert sorted(rows) == sorted(list(range(9)) * 3)
    assert any("num_epochs is applied per thread" in m for m in tf_log)
    shuffled = "shuffle=True, num_threads > 1" in " ".join(tf_log)
    ordered = "shuffle=False and num_threads > 1" in " ".join(tf_log)
    assert (shuffled, ordered) == (shuffle, not shuffle)


def test_one_thread_logs_no_warning(tf_log):
    x, y = _arrays(4)
    read_all(inputs.numpy_input_fn(x, y, batch_size=2, shuffle=False))
    assert not [m for m in tf_log if "enqueue_data" in m]


def test_an_array_x_is_one_tensor_and_no_y_gives_features_only():
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    got = read_all(inputs.numpy_input_fn(x, batch_size=4, shuffle=False))
    np.testing.assert_array_equal(got[0], x[:4])
    np.testing.assert_array_equal(got[1], x[4:])


def test_a_dict_y_gives_a_dict_target():
    x = np.arange(3.0)
    y = {"t1": np.arange(3) + 1, "t2": np.arange(3) + 2}
    ((features, target),) = read_all(
        inputs.numpy_input_fn(x, y, batch_size=3, shuffle=False)
    )
    np.testing.assert_array_equal(features, x)
    assert sorted(target) == ["t1", "t2"]
    np.testing.assert_array_equal(target["t2"], y["t2"])


def test_pandas_dataframe_y_gives_a_dict_target_even_beside_a_same_named_x():
    x, _ = _frame(4)
    y = pd.DataFrame({"age": np.arange(4) * 2, "score": np.arange(4) * 3}, x.index)
    ((features, target),) = read_all(
        inputs.pandas_input_fn(x, y, batch_size=4, shuffle=False)
    )
    assert sorted(features) == ["age", "name"]
    np.testing.assert_array_equal(features["age"], x["age"])
    np.testing.assert_array_equal(target["age"], y["age"])
    np.testing.assert_array_equal(target["score"], y["score"])


def test_pandas_without_y_and_a_computed_queue_capacity():
    x, _ = _frame(5)
    fn = inputs.pandas_input_fn(x, batch_size=2, shuffle=True, queue_capacity=None)
    got = read_all(fn)
    assert sorted(np.concatenate([f["age"] for f in got])) == list(range(5))


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(shuffle=None), ValueError, r"shuffle must be provided .*got None"),
        (dict(shuffle=1), ValueError, r"got 1\. Pass shuffle=True"),
        (dict(x=[1, 2]), TypeError, r"x must be a dict or array; got list"),
        (dict(x={}), ValueError, r"x cannot be an empty dict"),
        (dict(x=np.zeros([0, 2])), ValueError, r"x cannot be an empty array"),
        (dict(x={"a": [1, 2]}), TypeError, r"x\['a'\] must be a numpy array.*list"),
        (dict(x={"a": np.array(1.0)}), TypeError, r"x\['a'\] must .*got \(\)"),
        (dict(y={}), ValueError, r"y cannot be an empty dict.*Pass None"),
        (
            dict(y={"a": np.zeros(3)}),
            ValueError,
            r"1 duplicate keys are found in both x and y: \{'a'\}",
        ),
        (
            dict(y=np.zeros(4)),
            ValueError,
            r"(?s)Length of tensors in x and y is mismatched.*"
            r"Shapes in x: \{'a': \(3,\)\}.*Shapes in y: \(4,\)",
        ),
        (dict(batch_size=0), ValueError, r"`batch_size` must be at least 1; got 0"),
        (dict(batch_size=2.0), TypeError, r"`batch_size` must be an integer; got 2.0"),
        (dict(num_epochs=-1), ValueError, r"`num_epochs` must be at least 0; got -1"),
        (dict(num_epochs="1"), TypeError, r"`num_epochs` .* or None .*got '1'"),
        (dict(num_threads=0), ValueError, r"`num_threads` must be at least 1"),
        (dict(queue_capacity=None), TypeError, r"`queue_capacity` must be an"),
    ],
    ids=[
        "shuffle_missing",
        "shuffle_not_bool",
        "x_list",
        "x_empty_dict",
        "x_empty_array",
        "x_value_list",
        "x_value_scalar",
        "y_empty_dict",
        "duplicate_keys",
        "lengths",
        "batch_size_zero",
        "batch_size_float",
        "num_epochs_negative",
        "num_epochs_text",
        "num_threads_zero",
        "queue_capacity_none",
    ],
)
def test_numpy_input_fn_refuses_bad_arguments(kwargs, error, match):
    args = {"x": {"a": np.zeros(3)}, "y": None, "shuffle": False, **kwargs}
    with pytest.raises(error, match=match):
        inputs.numpy_input_fn(**args)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(shuffle=None), ValueError, r"shuffle must be provided"),
        (dict(target_column=3), TypeError, r"target_column must be a string.*got 3"),
        (dict(target_column="age"), ValueError, r"Cannot use name age for target"),
        (dict(y="index"), ValueError, r"Index for x and y are mismatched"),
        (dict(x=np.zeros(3)), TypeError, r"x must be a pandas DataFrame; got ndarray"),
        (dict(x="dates", y="dates_y"), TypeError, r"x\['when'\] has dtype datetime64"),
        (dict(x="empty", y=None), ValueError, r"x cannot be an empty DataFrame"),
    ],
    ids=[
        "shuffle_missing",
        "target_column_int",
        "target_column_taken",
        "index_mismatch",
        "x_array",
        "x_dates",
        "x_empty",
    ],
)
def test_pandas_input_fn_refuses_bad_arguments(kwargs, error, match):
    x, y = _frame(3)
    special = {
        "index": lambda: pd.Series(np.arange(3), index=np.arange(3)),
        "dates": lambda: pd.DataFrame({"when": pd.date_range("2020-01-01", periods=3)}),
        "empty": lambda: x.iloc[:0],
        "dates_y": lambda: pd.Series(np.arange(3)),
    }
    kwargs = {
        k: special[v]() if isinstance(v, str) and v in special else v
        for k, v in kwargs.items()
    }
    args = {"x": x, "y": y, "shuffle": False, **kwargs}
    with pytest.raises(error, match=match):
        inputs.pandas_input_fn(**args)


BATCH = 8
X, Y = make_data(20)


def _classes(impl):
    if impl == "emg":
        return emg_estimator.Estimator, emg_estimator.RunConfig, inputs
    feeding = _real()
    return tf.estimator.Estimator, tf.estimator.RunConfig, feeding


@pytest.fixture
def warm(tmp_path):
    return write_checkpoint(str(tmp_path / "init" / "init"), *initial_weights())


@pytest.mark.tf_compat
@pytest.mark.parametrize("impl", ["emg", "tf_estimator"])
def test_an_estimator_trains_on_numpy_input_as_numpy_replays_it(impl, warm, tmp_path):
    estimator_cls, config_cls, feeding = _classes(impl)
    config = config_cls(model_dir=str(tmp_path / impl))
    estimator = estimator_cls(model_fn, config=config, params={}, warm_start_from=warm)
    recorder = LossRecorder()
    fn = feeding.numpy_input_fn(
        {"x": X}, Y, batch_size=BATCH, num_epochs=2, shuffle=False
    )
    estimator.train(fn, hooks=[recorder])
    # 40 examples from 2 epochs: batches of 8 across the epoch end, 5 steps.
    expected = batches(X, Y, BATCH, 5, repeat_first=True)
    _, _, losses = numpy_train(*initial_weights(), expected)
    np.testing.assert_allclose(recorder.losses, losses, rtol=1e-5)


@pytest.mark.parametrize("num_devices", [1, 2], ids=["1dev", "2dev"])
def test_towers_take_numpy_input_and_predict_in_order(num_devices, warm, tmp_path):
    from conftest import ALL_DEVICES

    config = emg_estimator.RunConfig(
        model_dir=str(tmp_path / "model"), devices=ALL_DEVICES[:num_devices]
    )
    estimator = emg_estimator.Estimator(
        model_fn, config=config, params={"tower_optimizer": True}, warm_start_from=warm
    )
    recorder = LossRecorder()
    fn = inputs.numpy_input_fn(
        {"x": X}, Y, batch_size=BATCH, num_epochs=None, shuffle=False
    )
    estimator.train(fn, hooks=[recorder], steps=3)
    expected = batches(X, Y, BATCH, 3, repeat_first=True)
    kernel, bias, losses = numpy_train(*initial_weights(), expected)
    np.testing.assert_allclose(recorder.losses, losses, rtol=1e-5)
    predict_fn = inputs.numpy_input_fn({"x": X}, batch_size=BATCH, shuffle=False)
    classes = [p["class"] for p in estimator.predict(predict_fn)]
    assert classes == list(np.argmax(X @ kernel + bias, axis=1))
