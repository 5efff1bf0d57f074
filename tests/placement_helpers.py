"""Where a step's ops ran: the devices of its trace (`RunMetadata.step_stats`).

Device names in a graph say where ops were asked to run; a session without
such a device soft-places them elsewhere, silently. Only the trace of a run
step tells which device executed each op, so placement tests read it.
"""

import tensorflow as tf

from estimator_multigpu import devices as devices_lib


def full_trace() -> tf.compat.v1.RunOptions:
    """RunOptions whose RunMetadata lists every op run, by device."""
    return tf.compat.v1.RunOptions(trace_level=tf.compat.v1.RunOptions.FULL_TRACE)


# Ops that run where their variable lives (colocated with it), not on the
# tower's device: a tower's reads of the shared variables and the handles
# and updates of its metric variables.
_VARIABLE_OPS = (
    "VarHandleOp",
    "VariableV2",
    "ReadVariableOp",
    "AssignVariableOp",
    "AssignAddVariableOp",
    "AssignSubVariableOp",
    "Assign",  # Reference variables' (disable_v2_behavior) updates.
    "AssignAdd",
    "AssignSub",
)


def devices_that_ran(run_metadata, prefix: str) -> set[str]:
    """Canonical devices (`'/cpu:1'`) that ran an op whose name starts with `prefix`.

    Variable ops are left out (they run on the variable's device), and so are
    the nodes the runtime adds between devices (names ending `/_<n>`).
    """
    return {
        _short(stats.device)
        for stats in run_metadata.step_stats.dev_stats
        if any(_is_tower_op(node, prefix) for node in stats.node_stats)
    }


def _is_tower_op(node, prefix: str) -> bool:
    """Whether a traced node is one of the tower's own computations."""
    # timeline_label reads "name = OpType(inputs)".
    op_type = node.timeline_label.partition(" = ")[2].partition("(")[0]
    added = node.node_name.rpartition("/")[2].startswith("_")
    return (
        node.node_name.startswith(prefix) and not added and op_type not in _VARIABLE_OPS
    )


def _short(device: str) -> str:
    """`'/job:localhost/replica:0/task:0/device:CPU:1'` -> `'/cpu:1'`."""
    spec = tf.DeviceSpec.from_string(device)
    return devices_lib.canonical(f"/{spec.device_type}:{spec.device_index}")


def traced_devices(session, fetches, prefix: str, feed_dict=None) -> set[str]:
    """Runs `fetches` once with a full trace; the devices of `prefix` ops.

    Args:
      session: a `tf.compat.v1.Session` or `MonitoredSession`.
      fetches: what to run, e.g. the train op.
      prefix: an op name prefix, e.g. `'tower_1/'`.
      feed_dict: feeds of the step, if any.
    """
    metadata = tf.compat.v1.RunMetadata()
    session.run(fetches, feed_dict, options=full_trace(), run_metadata=metadata)
    return devices_that_ran(metadata, prefix)


class PlacementRecorder(tf.compat.v1.train.SessionRunHook):
    """Traces the first step of a (monitored) session; `devices[prefix]` after it.

    Args:
      prefixes: op name prefixes, e.g. `('tower_0/', 'tower_1/')`.
    """

    def __init__(self, prefixes=("tower_1/",)):
        self.prefixes = tuple(prefixes)
        self.devices: dict[str, set[str]] = {}

    def before_run(self, run_context):
        if self.devices:
            return None
        return tf.compat.v1.train.SessionRunArgs(None, options=full_trace())

    def after_run(self, run_context, run_values):
        if self.devices:
            return
        metadata = run_values.run_metadata
        self.devices = {p: devices_that_ran(metadata, p) for p in self.prefixes}
