"""`create_clones`: slim model_deploy's clones (towers built first, the optimizer chosen later)."""

from __future__ import annotations

import collections
from collections.abc import Callable, Sequence
from typing import Any

import tensorflow as tf

from estimator_multigpu import devices as devices_lib
from estimator_multigpu._model_fn import EstimatorSpec, ModeKeys
from estimator_multigpu.towers import (
    _build,
    _diagnostics,
    _loop,
    _merge,
    _optimizer,
    _placement,
)

Clone = collections.namedtuple("Clone", ["outputs", "scope", "device"])


class Clones(list):
    """The clones (`Clone(outputs, scope, device)` each, as model_deploy's),
    and `minimize`, which takes the place of `model_deploy.optimize_clones`
    and the `apply_gradients` after it."""

    def __init__(self, clones, towers, stand_in):
        super().__init__(clones)
        self._towers = towers
        self._stand_in = stand_in
        self._done = False

    def minimize(
        self,
        optimizer: tf.compat.v1.train.Optimizer,
        var_list: Sequence[tf.Variable] | Callable | None = None,
        global_step: tf.Variable | None = None,
    ) -> tuple[tf.Tensor, tf.Operation]:
        """`(total_loss, train_op)`: one update from the clones' gradients.

        Each clone's loss is its LOSSES plus the regularization losses; the
        clones weigh 1/N each, so the regularization counts once and the
        step is the one a single device takes on all clones' batches.

        Args:
          optimizer: a `tf.compat.v1.train.Optimizer` or `emg.TowerOptimizer`.
          var_list: as for `Optimizer.minimize` (or a function returning it).
          global_step: incremented by the update; None: not incremented.

        Raises:
          TypeError, ValueError: for bad arguments, or a second call.
        """
        if self._done:
            raise ValueError(
                "Clones.minimize was called twice; the clones' gradients are "
                "applied once (build a new create_clones for another update)."
            )
        real = _loop.check_optimizer(optimizer)
        _loop.check_global_step(global_step)
        _loop.check_var_list(var_list)
        chosen = _loop.chosen_variables(var_list)
        chosen = None if chosen is None else {id(v) for v in chosen}
        for tower in self._towers:
            for call in tower.context.calls[tower.context.index]:
                call.optimizer, call.global_step = real, global_step
                if chosen is not None:
                    call.grads_and_vars = [
                        (g, v) for g, v in call.grads_and_vars if id(v) in chosen
                    ]
        self._done = True
        towers = self._towers
        updates = _optimizer.apply_tower_gradients(
            towers[0].context.calls, [tower.spec.loss for tower in towers]
        )
        host = _placement.host(self[0].device)
        spec = _merge.merge_specs(towers, ModeKeys.TRAIN, updates, host)
        return spec.loss, spec.train_op


def _tower_model_fn(clone_fn, args, kwargs, stand_in, outputs):
    def model_fn(features, labels, mode):
        del features, labels
        start = len(_loop.update_ops_since(0))
        outputs.append(clone_fn(*args, **kwargs))
        loss = tf.compat.v1.losses.get_total_loss(add_regularization_losses=True)
        train_op = _loop.minimize_after(
            _loop.update_ops_since(start), stand_in, loss, None, None
        )
        return EstimatorSpec(mode, loss=loss, train_op=train_op)

    return model_fn


def create_clones(
    clone_fn: Callable,
    args: Sequence[Any] | None = None,
    kwargs: dict | None = None,
    devices: Sequence[str] | None = None,
) -> Clones:
    """Builds `clone_fn(*args, **kwargs)` once per device, sharing variables.

    The successor of slim's `model_deploy.create_clones(config, clone_fn,
    args)` + `optimize_clones(clones, optimizer, var_list=...)` +
    `optimizer.apply_gradients(...)`: `clones = emg.towers.create_clones(
    clone_fn, args, devices=emg.devices.resolve(num_gpus=n))`, then
    `total_loss, train_op = clones.minimize(optimizer, var_list=...,
    global_step=...)` where the script chose its optimizer. Each clone
    takes its own batch (e.g. `batch_queue.dequeue()` in `clone_fn`), adds
    its losses to the LOSSES collection (`tf.compat.v1.losses.*`,
    `slim.losses.*`); tower 0 creates the variables under single-device
    names; `clones[0].outputs` is what `clone_fn` returned on the first
    device, and the first clone's UPDATE_OPS and summaries are the graph's
    (its UPDATE_OPS run before the update, as on one device).

    Args:
      clone_fn: builds one clone; its losses go to the LOSSES collection.
      args: positional arguments of `clone_fn`, the same for every clone.
      kwargs: keyword arguments of `clone_fn`.
      devices: the devices, one clone each; default `emg.devices.resolve()`.

    Returns:
      The `Clones`: `clones[i].outputs`, and `clones.minimize(...)`.

    Raises:
      TypeError: for a `clone_fn` that is not callable, or bad `args`/`kwargs`.
    """
    if not callable(clone_fn):
        raise TypeError(f"`clone_fn` must be a function; received {clone_fn!r:.200}.")
    if args is not None and not isinstance(args, (list, tuple)):
        raise TypeError(
            f"`args` must be a list or tuple of clone_fn's arguments, e.g. "
            f"[batch_queue]; received {args!r:.200}."
        )
    if kwargs is not None and not isinstance(kwargs, dict):
        raise TypeError(f"`kwargs` must be a dict; received {kwargs!r:.200}.")
    devices = devices_lib.resolve(devices=devices)
    stand_in = _optimizer.TowerOptimizer(
        tf.compat.v1.train.GradientDescentOptimizer(1.0)
    )
    outputs = []
    weight = 1.0 / len(devices)
    towers = _build.build_towers(
        _tower_model_fn(
            clone_fn, tuple(args or ()), dict(kwargs or {}), stand_in, outputs
        ),
        [((), None)] * len(devices),
        devices,
        _build.RunArgs(mode=ModeKeys.TRAIN),
        [weight] * len(devices),
        [1] * len(devices),
        "mean",
        _placement.variable_placer("auto", devices),
    )
    _diagnostics.check_train_ops(towers, ModeKeys.TRAIN)
    scopes = ["" if t == 0 else f"tower_{t}/" for t in range(len(devices))]
    clones = [Clone(o, s, d) for o, s, d in zip(outputs, scopes, devices)]
    return Clones(clones, towers, stand_in)
