"""tf.data service on localhost: servers from the CLI, a worker killed mid-epoch."""

import subprocess
import sys

import pytest
import tensorflow as tf

import estimator_multigpu as emg
from estimator_multigpu.launch._plan import free_ports

_CLI = [sys.executable, "-m", "estimator_multigpu.data_service"]


def _start(*flags):
    """A server process started by the CLI, once it has printed its banner."""
    proc = subprocess.Popen(
        [*_CLI, *flags],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    banner = proc.stdout.readline()
    assert banner, f"{flags} exited with {proc.wait()}"
    return proc, banner


@pytest.fixture
def servers(tmp_path):
    """A fault-tolerant dispatcher and two workers on fixed ports."""
    procs = []
    dispatcher, banner = _start("--dispatcher", "--port=0", f"--work_dir={tmp_path}")
    procs.append(dispatcher)
    target = banner.split()[-1]
    ports = free_ports(2)
    workers = []
    for port in ports:
        workers.append(
            _start("--worker", f"--dispatcher_address={target}", f"--port={port}")[0]
        )
    procs.extend(workers)
    yield target, workers, ports
    for proc in {*procs, *workers}:  # Restarted workers too.
        proc.kill()
        proc.wait()


@pytest.mark.slow
def test_worker_killed_mid_epoch_loses_but_never_repeats(servers, tmp_path):
    """distributed_epoch is at-most-once: a killed worker's buffered examples
    are lost, none is produced twice; the epoch ends once a worker serves at
    the lost worker's address again (the client waits for it)."""
    target, workers, ports = servers
    source = tf.data.Dataset.range(5000)
    dataset = emg.inputs.with_data_service(source, target, job_name="fault")
    seen = []
    for index, value in enumerate(dataset):
        seen.append(int(value))
        if index == 200:
            workers[0].kill()
            workers[0].wait()
            workers[0] = _start(
                "--worker", f"--dispatcher_address={target}", f"--port={ports[0]}"
            )[0]
    assert len(seen) == len(set(seen))
    assert set(seen) <= set(range(5000))
    assert len(seen) > 4000
    assert any(tmp_path.iterdir())  # The dispatcher's journal.


def test_dispatcher_without_work_dir_says_what_a_restart_does():
    proc = subprocess.Popen(
        [*_CLI, "--dispatcher", "--port=0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout.readline().startswith("dispatcher listening on")
    proc.kill()
    _, err = proc.communicate(timeout=30)
    assert (
        "note: no --work_dir: this dispatcher keeps its jobs in memory only. If "
        "it restarts, consumers reading a job fail with NotFoundError ('Unknown "
        "iteration client id', 'Iteration id ... not found')" in err
    )
    assert "Start it with --work_dir=DIR (fault-tolerant mode" in err


def _read_across_dispatcher_restart(tmp_path, work_dir_flags):
    """Reads range(3000) through the service; the dispatcher is killed after
    100 elements and restarted on the same port with `work_dir_flags`."""
    port = free_ports(1)[0]
    flags = ["--dispatcher", f"--port={port}", *work_dir_flags]
    dispatcher = _start(*flags)[0]
    worker = _start("--worker", f"--dispatcher_address=localhost:{port}")[0]
    dataset = emg.inputs.with_data_service(
        tf.data.Dataset.range(3000), f"grpc://localhost:{port}", job_name="restart"
    )
    seen = []
    try:
        for index, value in enumerate(dataset):
            seen.append(int(value))
            if index == 100:
                dispatcher.kill()
                dispatcher.wait()
                dispatcher = _start(*flags)[0]
    finally:
        for proc in (dispatcher, worker):
            proc.kill()
            proc.wait()
    return seen


@pytest.mark.slow
def test_dispatcher_restarted_with_its_work_dir_resumes_the_epoch(tmp_path):
    """Documented: the consumer waits for the dispatcher, which resumes the job
    from its journal; the epoch ends with no element twice."""
    seen = _read_across_dispatcher_restart(tmp_path, [f"--work_dir={tmp_path}"])
    assert len(seen) == len(set(seen)) and len(seen) > 2000


@pytest.mark.slow
def test_dispatcher_restarted_without_work_dir_fails_the_consumer(tmp_path):
    """Documented: a dispatcher without a journal forgets the job. TensorFlow
    words it two ways, depending on whether the consumer or the worker asks
    the new dispatcher first."""
    match = (
        r"Unknown iteration client id .* not configured to be fault tolerant"
        r"|Failed to get split: Iteration id \d+ not found"
    )
    with pytest.raises(tf.errors.NotFoundError, match=match):
        _read_across_dispatcher_restart(tmp_path, [])
