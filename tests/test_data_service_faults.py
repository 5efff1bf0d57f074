"""tf.data service on localhost: servers from the CLI, a worker killed mid-epoch."""

import subprocess
import sys

import pytest
import tensorflow as tf

import estimator_multigpu as emg
from estimator_multigpu.launch.plan import free_ports

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
