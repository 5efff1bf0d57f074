"""Every name `--fix` writes exists: in estimator_multigpu (`emg.*`, the
rewrites import it) or in TensorFlow (`tf.*`, a rename onto a core name)."""

import pytest
import tensorflow as tf

import estimator_multigpu as emg
from estimator_multigpu.migrate import _rules


def _resolve(dotted):
    root, *parts = dotted.split(".")
    obj = {"emg": emg, "tf": tf}[root]
    for part in parts:
        obj = getattr(obj, part)
    return obj


RENAMES = sorted({r.rename for r in _rules.TABLE.values() if r.rename})
QUEUE_NAMES = sorted(
    {
        f"emg.inputs.queues.{n}"
        for n in _rules.PRODUCERS + _rules.BATCHERS + _rules.READERS
    }
    | {"emg.inputs.queues.read", "emg.inputs.queues.get_next"}
)


@pytest.mark.tf_compat
@pytest.mark.parametrize("dotted", RENAMES + QUEUE_NAMES)
def test_rewrite_target_exists(dotted):
    assert callable(_resolve(dotted)) or isinstance(_resolve(dotted), type)
