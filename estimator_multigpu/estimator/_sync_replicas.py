"""`sync_replicas_optimizer`: synchronous steps over a TF_CONFIG cluster's workers.

A `tf.compat.v1.train.SyncReplicasOptimizer` that lists itself when it
applies gradients (so `train_and_evaluate` adds its session hook), with a
watch that names the training tasks a step waits for and, if asked, ends a
step that waits longer than `step_timeout_secs`.
"""

from __future__ import annotations

import weakref

import tensorflow as tf

from estimator_multigpu.estimator import _cluster, _waits

_TRAINER_JOBS = (_cluster.CHIEF, _cluster.MASTER, _cluster.WORKER)
# Graph -> its sync_replicas_optimizers (not a graph collection: the
# checkpoint's MetaGraph cannot serialise optimizers).
_SYNC_OPTIMIZERS = weakref.WeakKeyDictionary()


def sync_replicas_optimizer(
    optimizer, config, replicas_to_aggregate=None, step_timeout_secs=None
):
    """`optimizer` made synchronous over the workers of `config`'s cluster.

    Wraps it in `tf.compat.v1.train.SyncReplicasOptimizer`, which averages
    the gradients of `replicas_to_aggregate` worker steps (default: every
    training task of the cluster) and then advances the global step once.
    `train_and_evaluate` adds its session hook on every task, and a watch
    that logs every `waits.LOG_EVERY_SECS` (30) seconds while a step waits,
    naming the other training tasks and their addresses (a dead worker blocks
    every step). Outside a cluster (or with one training task) `optimizer`
    is returned unchanged. Call it in the `model_fn`, with the `config` it
    receives; pass the `global_step` to `minimize` / `apply_gradients`.

    Args:
      optimizer: a `tf.compat.v1.train.Optimizer` (e.g. inside a
        `TowerOptimizer`: wrap the plain optimizer first).
      config: the model_fn's `RunConfig`.
      replicas_to_aggregate: gradients averaged per step.
      step_timeout_secs: a training step that waits longer than this fails
        with a RuntimeError naming the tasks it waited for; None: it waits
        (and logs) until they come back.

    Returns:
      The synchronous optimizer, or `optimizer`.

    Raises:
      ValueError: for `replicas_to_aggregate` < 1 or a `step_timeout_secs`
        that is not a positive number.
    """
    replicas = config.num_worker_replicas or 1
    if replicas_to_aggregate is None:
        replicas_to_aggregate = replicas
    if isinstance(replicas_to_aggregate, bool) or replicas_to_aggregate < 1:
        raise ValueError(
            "`replicas_to_aggregate` must be an integer >= 1, got "
            f"{replicas_to_aggregate!r}; leave it None to aggregate one step "
            f"of each of the {replicas} training tasks."
        )
    _check_timeout(step_timeout_secs)
    if not config.cluster_spec or replicas == 1:
        return optimizer
    sync = _SyncReplicas(
        optimizer,
        replicas_to_aggregate=replicas_to_aggregate,
        total_num_replicas=replicas,
    )
    sync.step_timeout_secs = step_timeout_secs
    sync.aggregated_steps = replicas_to_aggregate
    return sync


def _check_timeout(step_timeout_secs) -> None:
    number = isinstance(step_timeout_secs, (int, float))
    if step_timeout_secs is None or (
        number and not isinstance(step_timeout_secs, bool) and step_timeout_secs > 0
    ):
        return
    raise ValueError(
        "`step_timeout_secs` must be a number of seconds > 0 or None; got "
        f"{step_timeout_secs!r}."
    )


class _SyncReplicas(tf.compat.v1.train.SyncReplicasOptimizer):
    """A `SyncReplicasOptimizer` that lists itself when it applies gradients.

    Under `replicate_model_fn` every tower's model_fn call wraps its own
    optimizer, and only one of them applies the towers' summed gradients:
    that one gets the session hook (the others' hooks would refuse to start).
    """

    step_timeout_secs = None  # Set by sync_replicas_optimizer.
    aggregated_steps = None  # replicas_to_aggregate, for the log.

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        update = super().apply_gradients(grads_and_vars, global_step, name)
        graph = tf.compat.v1.get_default_graph()
        _SYNC_OPTIMIZERS.setdefault(graph, []).append(self)
        return update


def sync_hooks(is_chief: bool, config=None) -> list:
    """The session hooks of the graph's `sync_replicas_optimizer`s that apply.

    With `config`, each also gets a `waits.StepWatchHook` that logs while a
    step waits for the other training tasks and ends it after the
    optimizer's `step_timeout_secs`.
    """
    graph = tf.compat.v1.get_default_graph()
    hooks = []
    for optimizer in _SYNC_OPTIMIZERS.get(graph, ()):
        hooks.append(optimizer.make_session_run_hook(is_chief))
        if config is not None:
            what = (
                f"the gradients of {optimizer.aggregated_steps} training "
                "steps (SyncReplicasOptimizer) from the training tasks"
            )
            hooks.append(
                _waits.StepWatchHook(
                    _peers(config), what, timeout_secs=optimizer.step_timeout_secs
                )
            )
    return hooks


def _peers(config) -> dict[str, str]:
    """`task -> address` of the other training tasks of `config`'s cluster."""
    own = f"/job:{config.task_type}/task:{config.task_id}"
    tasks = _waits.tasks_of(config.cluster_spec, _TRAINER_JOBS)
    return {task: address for task, address in tasks.items() if task != own}


def step_timed_out(config) -> RuntimeError:
    """The error of a synchronous step that outlived its `step_timeout_secs`."""
    bounds = sorted(
        {o.step_timeout_secs for o in _SYNC_OPTIMIZERS.get(_last_graph(), ())} - {None}
    )
    bound = f"step_timeout_secs={bounds[0]:g}" if bounds else "its timeout"
    return RuntimeError(
        f"A synchronous training step waited more than {bound} s for the "
        f"gradients of the other training tasks: {_waits.describe(_peers(config))}. "
        "One of them stopped, died or never started: restart it (same program, "
        "its own TF_CONFIG), or raise sync_replicas_optimizer(..., "
        "step_timeout_secs=...)."
    )


def _last_graph():
    """The graph of the latest `sync_replicas_optimizer` that applied gradients."""
    graphs = list(_SYNC_OPTIMIZERS.keys())
    return graphs[-1] if graphs else None
