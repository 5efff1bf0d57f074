"""Distribution, eager runtime and variable internals."""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from estimator_multigpu._tf_internals._access import member, private


def input_workers(extended: Any, options: Any) -> Any:
    """`strategy.extended._input_workers_with_options(options)`, or None.

    Why: the strategy's own map from input pipelines to devices. Public
    alternative: none; None where the strategy lacks it (callers fall back).
    """
    find = getattr(extended, "_input_workers_with_options", None)
    return None if find is None else find(options)


def runtime_initialized() -> bool:
    """Whether TF has created its devices (`context()._initialized`).

    Why: settings read once at device creation must be refused afterwards;
    public APIs that would tell initialise the runtime. Public alternative:
    none.
    """
    context = private("tensorflow.python.eager.context")
    return bool(member(context.context(), "_initialized"))


def eager_mode() -> Any:
    """A context manager that runs ops eagerly, even under a graph's `as_default()`.

    Why: a dataset made eagerly is serialized (`DatasetToGraphV2`) by an
    eager op, while its TF 1.x-style reader is building a graph; `tf.init_scope`
    leaves only function graphs, not a plain default graph. Public
    alternative: none.
    """
    context = private("tensorflow.python.eager.context")
    return context.eager_mode()


def eager_device_name() -> str:
    """The device of the current eager `tf.device` scope (`''` outside one).

    Why: no public API reads the scope without creating a tensor, which would
    be placed by default placement instead. Public alternative: none.
    """
    context = private("tensorflow.python.eager.context")
    return context.context().device_name


def resource_variable(initial_value: Any, **kwargs: Any) -> tf.Variable:
    """`resource_variable_ops.ResourceVariable(initial_value, **kwargs)`.

    Why: a plain eager resource variable that no variable creator scope (a
    `tf.distribute` strategy's mirroring) intercepts. Public alternative:
    `tf.Variable`, which strategies replace.
    """
    ops = private("tensorflow.python.ops.resource_variable_ops")
    return ops.ResourceVariable(initial_value, **kwargs)
