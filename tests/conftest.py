"""Test set-up: split the CPU into 4 logical devices once, before TF starts."""

import os

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
