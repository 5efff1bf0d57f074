"""Test set-up: split the CPU into 4 logical devices once, before TF starts."""

import os
import subprocess

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import pytest  # noqa: E402
import tensorflow as tf  # noqa: E402

from estimator_multigpu import devices  # noqa: E402

ALL_DEVICES = devices.simulate(4)
DEVICE_COUNTS = [1, 2, 4]


@pytest.fixture(params=DEVICE_COUNTS, ids=[f"{n}dev" for n in DEVICE_COUNTS])
def device_list(request):
    """The first 1, 2 or 4 of the 4 logical CPU devices."""
    return ALL_DEVICES[: request.param]


@pytest.fixture
def strategy():
    """A fresh MirroredStrategy on 2 logical CPUs, without collective ops.

    Every MirroredStrategy numbers its collective ops from the same keys, so
    two of them in one process that all-reduce different shapes collide
    ("Shape mismatch in the collective instance 100"); tests make many. A new
    one per test, since a strategy remembers 'per_replica' input.
    """
    return tf.distribute.MirroredStrategy(
        ALL_DEVICES[:2], cross_device_ops=tf.distribute.ReductionToOneDevice()
    )


@pytest.fixture
def mount_tmpfs(tmp_path):
    """`mount_tmpfs(size)` mounts a tmpfs of `size` (e.g. '1m') at a fresh folder.

    A full disk without filling the real one; needs root (skips otherwise).
    Unmounted lazily afterwards: an event file writer of this process may
    still hold a file open.
    """
    mounted = []

    def mount(size: str):
        path = tmp_path / f"small-disk-{len(mounted)}"
        path.mkdir()
        command = ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)]
        if subprocess.run(command, capture_output=True).returncode:
            pytest.skip("needs permission to mount a tmpfs (root)")
        mounted.append(path)
        return path

    yield mount
    for path in mounted:
        subprocess.run(["umount", "--lazy", str(path)], capture_output=True)
