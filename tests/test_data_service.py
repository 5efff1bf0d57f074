"""emg.inputs.with_data_service and the tf.data service servers, in process."""

import re
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf

import estimator_multigpu as emg
from estimator_multigpu import _dataset_graph, data_service


@pytest.fixture(scope="module")
def service():
    """A dispatcher and two workers in this process; yields the dispatcher."""
    dispatcher = data_service.start_dispatcher()
    workers = [data_service.start_worker(dispatcher.target) for _ in range(2)]
    yield dispatcher.target
    del workers


def _values(dataset):
    return [int(x) for x in dataset]


def test_distributed_epoch_sees_each_example_once_across_consumers(service):
    source = tf.data.Dataset.range(200).map(lambda x: x * 3)
    consumers = [
        emg.inputs.with_data_service(source, service, job_name="once") for _ in range(2)
    ]
    iterators = [iter(c) for c in consumers]
    seen = []
    for iterator in iterators:  # Both consumers join the job before reading.
        seen.append(int(next(iterator)))
    for iterator in iterators:
        seen.extend(int(x) for x in iterator)
    assert sorted(seen) == list(range(0, 600, 3))


def test_parallel_epochs_gives_one_epoch_per_worker(service):
    source = tf.data.Dataset.range(50)
    dataset = emg.inputs.with_data_service(
        source, service, processing_mode="parallel_epochs", job_name="parallel"
    )
    counts = np.bincount(_values(dataset), minlength=50)
    assert counts.tolist() == [2] * 50


def test_unnamed_job_is_one_epoch_for_one_consumer(service):
    dataset = emg.inputs.with_data_service(tf.data.Dataset.range(30), service)
    assert sorted(_values(dataset)) == list(range(30))


def _py(x):
    return tf.py_function(lambda v: v, [x], tf.int64)


def _np(x):
    return tf.numpy_function(lambda v: v, [x], tf.int64)


def _generator():
    return tf.data.Dataset.from_generator(
        lambda: iter(range(3)), output_signature=tf.TensorSpec([], tf.int64)
    )


@pytest.mark.tf_compat
@pytest.mark.parametrize(
    "make, match",
    [
        (
            lambda: tf.data.Dataset.range(3).map(_py),
            r"uses `py_function` \(op EagerPyFunc",
        ),
        (
            lambda: tf.data.Dataset.range(3).map(_np),
            r"uses `numpy_function` \(op PyFunc",
        ),
        (_generator, r"uses `from_generator` \(op GeneratorDataset"),
        (
            lambda: tf.data.Dataset.range(3).interleave(
                lambda x: tf.data.Dataset.range(2).map(_py)
            ),
            r"uses `py_function`.*cannot run",
        ),
    ],
    ids=["py_function", "numpy_function", "from_generator", "nested_in_interleave"],
)
def test_refuses_python_ops_before_submitting(make, match):
    # No dispatcher listens at this address: the check runs before any contact.
    with pytest.raises(ValueError, match=match):
        emg.inputs.with_data_service(make(), "grpc://localhost:1")


@pytest.mark.tf_compat
def test_graph_mode_dataset_is_checked_too():
    with tf.Graph().as_default():
        clean = tf.data.Dataset.range(3).map(lambda x: x + 1)
        bad = tf.data.Dataset.range(3).map(_np)
        emg.inputs.check_service_ops(clean)  # The other pipeline's op is not its.
        with pytest.raises(ValueError, match=r"uses `numpy_function`"):
            emg.inputs.check_service_ops(bad)


def test_graph_nodes_reads_function_bodies():
    dataset = tf.data.Dataset.range(3).map(lambda x: tf.math.square(x))
    ops = {node.op for node in _dataset_graph.graph_nodes(dataset)}
    assert {"RangeDataset", "MapDataset", "Square"} <= ops


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (
            {"dataset": [1, 2]},
            TypeError,
            r"`dataset` must be a tf.data.Dataset, got list",
        ),
        ({"service": "localhost"}, ValueError, r"`service` must be .*got 'localhost'"),
        ({"service": 5050}, ValueError, r"`service` must be .*got 5050"),
        ({"service": ":5050"}, ValueError, r"`service` must be .*got ':5050'"),
        (
            {"service": "grpc://:5050"},
            ValueError,
            r"`service` .*got 'grpc://:5050': the host is empty",
        ),
        (
            {"service": "localhost:abc"},
            ValueError,
            r"`service` .*got 'localhost:abc': the port must be a number 1-65535",
        ),
        ({"service": "localhost:0"}, ValueError, r"the port must be a number 1-65535"),
        ({"service": "localhost:70000"}, ValueError, r"must be a number 1-65535"),
        (
            {"service": "http://h:5050"},
            ValueError,
            r"`service` must be the dispatcher's address, 'grpc://host:port' or "
            r"'host:port', got 'http://h:5050': the service speaks grpc://, not "
            r"http://: use 'grpc://h:5050' or 'h:5050'\.",
        ),
        (
            {"connect_timeout": 0},
            ValueError,
            r"`connect_timeout` must be a number of seconds > 0 \(or None .*got 0\.",
        ),
        (
            {"processing_mode": "dynamic"},
            ValueError,
            r"`processing_mode` must be one of \['distributed_epoch', 'parallel_epochs'\], got 'dynamic'",
        ),
        (
            {"job_name": ""},
            ValueError,
            r"`job_name` must be a non-empty string or None, got ''",
        ),
    ],
    ids=[
        "not_dataset",
        "no_port",
        "int_service",
        "empty_host",
        "grpc_empty_host",
        "port_not_number",
        "port_zero",
        "port_too_big",
        "http_scheme",
        "zero_timeout",
        "bad_mode",
        "empty_job",
    ],
)
def test_argument_errors(kwargs, error, match):
    args = {"dataset": tf.data.Dataset.range(3), "service": "grpc://localhost:1"}
    with pytest.raises(error, match=match):
        emg.inputs.with_data_service(**{**args, **kwargs})


@pytest.mark.parametrize(
    "flags, match",
    [
        ([], r"one of the arguments --dispatcher --worker is required"),
        (["--worker"], r"--worker needs --dispatcher_address=host:port"),
        (["--dispatcher", "--port=70000"], r"--port must be 0..65535, got 70000"),
        (
            ["--worker", "--dispatcher_address=a:1", "--work_dir=x"],
            r"--work_dir .* are for --dispatcher",
        ),
        (
            ["--dispatcher", "--dispatcher_address=a:1"],
            r"--dispatcher_address is for --worker",
        ),
        (
            ["--worker", "--dispatcher_address=:5050"],
            r"--dispatcher_address must be host:port .*got ':5050': the host is "
            r"empty",
        ),
        (
            ["--worker", "--dispatcher_address=nohost"],
            r"--dispatcher_address must be host:port .*got 'nohost': no :port",
        ),
        (
            ["--worker", "--dispatcher_address=localhost:abc"],
            r"got 'localhost:abc': the port must be a number 1-65535",
        ),
        (
            ["--dispatcher", f"--work_dir={__file__}"],
            r"--work_dir .*test_data_service.py' is a file, not a folder",
        ),
        (
            ["--worker", "--dispatcher_address=http://h:5050"],
            r"got 'http://h:5050': the service speaks grpc://, not http://: use "
            r"'grpc://h:5050' or 'h:5050'",
        ),
        (
            ["--worker", "--dispatcher_address=h:5050", "--connect_timeout=0"],
            r"--connect_timeout must be > 0 seconds, got 0",
        ),
    ],
    ids=[
        "no_role",
        "worker_no_dispatcher",
        "bad_port",
        "worker_work_dir",
        "dispatcher_address",
        "address_no_host",
        "address_no_port",
        "address_port_not_number",
        "work_dir_is_file",
        "address_http_scheme",
        "zero_connect_timeout",
    ],
)
@pytest.mark.slow
def test_cli_usage_errors(flags, match):
    argv = [sys.executable, "-m", "estimator_multigpu.data_service", *flags]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert re.search(match, result.stderr), result.stderr


def test_cifar_input_trains_through_the_service(service, tmp_path):
    """The CIFAR tf.data input runs on the service workers (parallel_epochs:
    each of the 2 workers produces a whole epoch) and trains a linear model.

    distributed_epoch is not used here: that input zips its batches with a
    repeated one-element store, and a worker whose dynamic split holds no
    store element repeats an empty dataset.
    """
    from cifar10 import data, generate
    from cifar10 import input as cifar_input

    generate.generate(str(tmp_path), train_examples=64, test_examples=16)
    files = data.filenames(str(tmp_path), "cifar10", "train")
    ctx = emg.inputs.InputContext(
        num_shards=1,
        shard_index=0,
        device="/cpu:0",
        per_device_batch_size=16,
        global_batch_size=16,
        num_devices=1,
        seed=1,
    )
    make = cifar_input.make_dataset_fn(files, num_epochs=1, augment_images=False)
    dataset = emg.inputs.with_data_service(
        make(ctx), service, processing_mode="parallel_epochs", job_name="cifar"
    )
    weights = tf.Variable(tf.zeros([32 * 32 * 3, 10]))
    optimizer = tf.keras.optimizers.SGD(0.01)
    labels, losses = [], []
    for images, batch_labels in dataset:
        with tf.GradientTape() as tape:
            logits = tf.reshape(images, [-1, 32 * 32 * 3]) @ weights
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(batch_labels, logits)
            )
        optimizer.apply_gradients([(tape.gradient(loss, weights), weights)])
        labels.extend(batch_labels.numpy().tolist())
        losses.append(float(loss))
    _, expected = data.read_numpy(files, "cifar10")
    assert sorted(labels) == sorted(expected.tolist() * 2)
    assert all(np.isfinite(losses)) and min(losses[1:]) < losses[0]


_R = tf.data.Dataset.range


@pytest.mark.parametrize(
    "make, match",
    [
        (
            lambda: tf.data.Dataset.zip((_R(100), _R(100))),
            r"zips 2 datasets.*each source is split among the workers on its own, so "
            r"pairs would mismatch.*Dataset.from_tensor_slices\(\(x, y\)\).*"
            r"'parallel_epochs'",
        ),
        (lambda: _R(100).enumerate(), r"zips 2 datasets"),
        (
            lambda: tf.data.Dataset.random(seed=1).take(100),
            r"`take` runs on each worker.*after `with_data_service`",
        ),
        (lambda: _R(1000).skip(10), r"`skip` runs on each worker"),
        (lambda: _R(1000).shard(2, 0), r"`shard` runs on each worker"),
        (
            lambda: tf.data.Dataset.random(seed=1).batch(4),
            r"its source, `Dataset.random` .*cannot be split.*the same seeded "
            r"stream",
        ),
    ],
    ids=["zip", "enumerate", "random_take", "skip", "shard", "random"],
)
def test_distributed_epoch_refuses_pipelines_it_cannot_split(make, match):
    with pytest.raises(ValueError, match=match):
        emg.inputs.with_data_service(make(), "grpc://localhost:1")


def test_graph_mode_zip_is_refused_too():
    with tf.Graph().as_default():
        zipped = tf.data.Dataset.zip((_R(10), _R(10).map(lambda x: x * 2)))
        with pytest.raises(ValueError, match=r"zips 2 datasets"):
            emg.inputs.with_data_service(zipped, "grpc://localhost:1")


def test_one_source_of_pairs_stays_paired(service):
    """The fix the refusal names: one splittable source, the pair made after."""
    pairs = _R(100).map(lambda i: (i, i * 2))
    dataset = emg.inputs.with_data_service(pairs, service, job_name="pairs")
    values = [(int(a), int(b)) for a, b in dataset]
    assert sorted(values) == [(i, 2 * i) for i in range(100)]


def test_parallel_epochs_keeps_zip_pairs(service):
    """parallel_epochs runs the whole pipeline on each worker: zip is safe."""
    zipped = tf.data.Dataset.zip((_R(50), _R(50)))
    dataset = emg.inputs.with_data_service(zipped, service, "parallel_epochs")
    values = [(int(a), int(b)) for a, b in dataset]
    assert len(values) == 100 and all(a == b for a, b in values)


def test_distributed_epoch_accepts_splittable_pipelines(service):
    """Concatenated and sampled sources split fine: each element once."""
    mixed = tf.data.Dataset.sample_from_datasets([_R(50), _R(50, 100)], seed=1)
    both = mixed.concatenate(_R(100, 120)).map(lambda x: x + 1).batch(5)
    dataset = emg.inputs.with_data_service(both.unbatch(), service, job_name="mix")
    assert sorted(_values(dataset)) == list(range(1, 121))


@pytest.mark.parametrize("role", ["--dispatcher", "--worker"])
@pytest.mark.slow
def test_cli_port_in_use_is_named(role):
    import socket

    holder = socket.socket()
    holder.bind(("", 0))
    holder.listen()
    port = holder.getsockname()[1]
    flags = [role, f"--port={port}"]
    if role == "--worker":
        flags.append("--dispatcher_address=localhost:1")
    argv = [sys.executable, "-m", "estimator_multigpu.data_service", *flags]
    with holder:
        result = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2, result.stderr
    assert f"--port {port} is in use by another process" in result.stderr
    assert "Traceback" not in result.stderr


# Calls `CALL` with ADDRESS, prints how long it took and what it raised.
_BOUNDED = """
import sys, time
import tensorflow as tf
import estimator_multigpu as emg
from estimator_multigpu import data_service
address = sys.argv[1]
start = time.monotonic()
try:
    CALL
except (ConnectionError, ValueError) as error:
    print(f"{time.monotonic() - start:.1f} {type(error).__name__} {error}")
"""
_CALLS = {
    "with_data_service": "emg.inputs.with_data_service("
    "tf.data.Dataset.range(3), address, connect_timeout=2)",
    "start_worker": "data_service.start_worker(address, connect_timeout=2)",
}


def _bounded(call, address):
    """Seconds, error type and message of `_CALLS[call]` (a subprocess: a
    call that hangs, holding the interpreter, fails the test in time)."""
    script = _BOUNDED.replace("CALL", _CALLS[call])
    result = subprocess.run(
        [sys.executable, "-c", script, address],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    seconds, error, message = result.stdout.split(" ", 2)
    return float(seconds), error, message


@pytest.mark.slow
def test_start_worker_refuses_another_scheme():
    _, error, message = _bounded("start_worker", "http://h:5050")
    assert error == "ValueError"
    assert message.startswith(
        "`dispatcher_address` must be 'host:port' or 'grpc://host:port', got "
        "'http://h:5050': the service speaks grpc://, not http://: use "
        "'grpc://h:5050' or 'h:5050'."
    )


@pytest.mark.parametrize("call", list(_CALLS), ids=list(_CALLS))
@pytest.mark.slow
def test_no_dispatcher_listening_fails_within_the_timeout(call):
    """TensorFlow would retry for ever; the check gives up after 2 s, naming
    the address and the fix."""
    from estimator_multigpu.launch._plan import free_ports

    address = f"grpc://localhost:{free_ports(1)[0]}"
    seconds, error, message = _bounded(call, address)
    assert error == "ConnectionError"
    assert 2 <= seconds < 30
    argument = "service" if call == "with_data_service" else "dispatcher_address"
    assert re.match(
        rf"`{argument}` '{address}': no tf.data service dispatcher listens there "
        r"\(tried for 2 s: .+\)\. Is the dispatcher started\? Start it first "
        r"\(python -m estimator_multigpu.data_service --dispatcher --port=\d+\)",
        message,
    ), message


@pytest.mark.slow
def test_cli_worker_without_dispatcher_exits_1_after_connect_timeout():
    from estimator_multigpu.launch._plan import free_ports

    port = free_ports(1)[0]
    argv = [sys.executable, "-m", "estimator_multigpu.data_service", "--worker"]
    argv += [f"--dispatcher_address=localhost:{port}", "--connect_timeout=1"]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1, result.stderr[-2000:]
    assert (
        f"error: `dispatcher_address` 'localhost:{port}': no tf.data service "
        "dispatcher listens there (tried for 1 s" in result.stderr
    )
    assert "Is the dispatcher started?" in result.stderr
    assert "Traceback" not in result.stderr
