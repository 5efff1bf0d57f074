"""The one place the package reaches TensorFlow internals; each use says why.

Every `tensorflow.python.*` / `tensorflow.core.*` import and every underscore
member of a TensorFlow object the library needs is here, with the reason and
the public alternative (none, where none exists). Each entry imports its
internal module only when called, so a TensorFlow that drops one breaks that
entry (and its test in `tests/test_tf_internals.py`) with an error naming the
TensorFlow version, not the whole package. Imports only TensorFlow and the
standard library, so every layer may use it.
"""

from __future__ import annotations

import importlib
import re
import types
from collections.abc import Callable
from typing import Any

import tensorflow as tf

SUPPORTED = "TensorFlow 2.15 to 2.21"
_KERNEL = re.compile(r"<(\w+?)Op\b")


def _private(module: str, name: str | None = None, fix: str = "") -> Any:
    """TensorFlow's internal `module` (or its member `name`).

    Raises:
      ImportError: naming this TensorFlow's version, if it lacks either.
    """
    where = f"{module}.{name}" if name else module
    try:
        found = importlib.import_module(module)
        return getattr(found, name) if name else found
    except (ImportError, AttributeError) as error:
        raise ImportError(
            f"TensorFlow {tf.__version__} has no `{where}`, which "
            f"estimator_multigpu.tf_internals reaches ({SUPPORTED} have it). "
            f"Install a supported TensorFlow{fix}, or report the new version."
        ) from error


def _member(obj: Any, name: str) -> Any:
    """`obj.<name>`, an underscore member, with an error naming this TensorFlow."""
    try:
        return getattr(obj, name)
    except AttributeError as error:
        raise AttributeError(
            f"TensorFlow {tf.__version__}: {type(obj).__name__} has no `{name}`, "
            f"which estimator_multigpu.tf_internals reaches ({SUPPORTED} have "
            "it). Install a supported TensorFlow, or report the new version."
        ) from error


# --- Estimator loop (tf.compat.v1 training internals tf.estimator used) -------


def evaluate_once(**kwargs: Any) -> dict:
    """`tensorflow.python.training.evaluation._evaluate_once(**kwargs)`.

    Why: the evaluation loop tf.estimator runs (restore, eval step counter,
    `final_ops` after the input ends). Public alternative: none since
    `tf.contrib.training.evaluate_once` went with TF 2.0.
    """
    evaluation = _private("tensorflow.python.training.evaluation")
    return _member(evaluation, "_evaluate_once")(**kwargs)


def stop_after_n_evals_hook(num_evals: int) -> tf.compat.v1.train.SessionRunHook:
    """`evaluation._StopAfterNEvalsHook(num_evals=...)`.

    Why: stops after `num_evals` runs, counted by the eval step that
    `evaluate_once` creates (tf.estimator's `steps`). Public alternative: none.
    """
    evaluation = _private("tensorflow.python.training.evaluation")
    return _member(evaluation, "_StopAfterNEvalsHook")(num_evals=num_evals)


def get_or_create_eval_step() -> tf.Variable:
    """`evaluation._get_or_create_eval_step()`: the graph's eval step counter.

    Why: a custom `Scaffold.local_init_op` must initialise the counter that
    `evaluate_once` increments. Public alternative: none.
    """
    evaluation = _private("tensorflow.python.training.evaluation")
    return _member(evaluation, "_get_or_create_eval_step")()


def get_or_create_global_step_read() -> tf.Tensor | None:
    """`training_util._get_or_create_global_step_read()`.

    Why: the cached read of the global step that TensorFlow's hooks and
    `_increment_global_step` order themselves after; tf.estimator creates it
    before the model_fn. Public alternative: none
    (`tf.compat.v1.train.get_or_create_global_step` makes the variable only).
    """
    training_util = _private("tensorflow.python.training.training_util")
    return _member(training_util, "_get_or_create_global_step_read")()


def add_saving_listener(saver_hook: Any, listener: Any) -> None:
    """Adds `listener` to a `CheckpointSaverHook` built without it.

    Why: the saver hook may come from the model_fn's `training_chief_hooks`;
    its listeners are fixed at construction (`_listeners`). Public
    alternative: none.
    """
    listeners = _member(saver_hook, "_listeners")
    if listener not in listeners:
        listeners.append(listener)


class StepCounterHook(tf.compat.v1.train.StepCounterHook):
    """`tf.compat.v1.train.StepCounterHook` with its protected protocol named.

    Why: a subclass that adds to each step-rate report must override the
    protected `_log_and_record` and read `_global_step_tensor` and
    `_summary_writer`. Subclasses override `report` and read the properties
    instead. Public alternative: none.
    """

    @property
    def global_step_tensor(self) -> tf.Tensor:
        """The global step the hook fetches (set by `begin`)."""
        return _member(self, "_global_step_tensor")

    @property
    def summary_writer(self) -> tf.compat.v1.summary.FileWriter | None:
        """The writer of `output_dir` (None without one; set by `begin`)."""
        return _member(self, "_summary_writer")

    def _log_and_record(self, elapsed_steps, elapsed_time, global_step):
        super()._log_and_record(elapsed_steps, elapsed_time, global_step)
        self.report(elapsed_steps, elapsed_time, global_step)

    def report(self, elapsed_steps: int, elapsed_time: float, global_step: int):
        """Called after each `global_step/sec` report; subclasses add to it."""
        del elapsed_steps, elapsed_time, global_step


def cached_file_writer(
    logdir: str, make: Callable[[], tf.compat.v1.summary.FileWriter]
) -> tf.compat.v1.summary.FileWriter:
    """`FileWriterCache`'s writer for `logdir`, made by `make()` if none is cached.

    Why: `FileWriterCache.get` cannot name the event file; filling its
    `_cache` (under its `_lock`) is the only way to give the hooks' writer a
    unique name. Public alternative: none.
    """
    cache = tf.compat.v1.summary.FileWriterCache
    lock = _member(cache, "_lock")
    with lock:
        writers = _member(cache, "_cache")
        if logdir not in writers:
            writers[logdir] = make()
        return writers[logdir]


# --- Graph surgery ------------------------------------------------------------


def add_control_input(op: tf.Operation, control: tf.Operation) -> None:
    """`op._add_control_input(control)`: `op` waits for `control` too.

    Why: the towers' update is built after the op the model_fn already holds
    as its train op. Public alternative: none (`tf.control_dependencies`
    works only while an op is created).
    """
    _member(op, "_add_control_input")(control)


def update_input(op: tf.Operation, index: int, tensor: tf.Tensor) -> None:
    """`op._update_input(index, tensor)`: rewires input `index` of `op`.

    Why: the tensor handed to hooks and summaries must stay the same object
    while its value becomes the all-tower mean. Public alternative: none.
    """
    _member(op, "_update_input")(index, tensor)


def graph_collections(graph: tf.Graph) -> dict | None:
    """The graph's own collection store (`graph._collections`), or None.

    Why: towers after the first must add UPDATE_OPS nowhere; the public
    `get_collection_ref` cannot swap the list. Public alternative: none.
    None when a TensorFlow keeps collections otherwise (callers fall back).
    """
    store = getattr(graph, "_collections", None)
    return store if isinstance(store, dict) else None


# --- tf.data ------------------------------------------------------------------


def variant_tensor(dataset: tf.data.Dataset) -> tf.Tensor:
    """The dataset's variant tensor: its node in a graph, or its eager handle.

    Why: `tf.data.Dataset` has no public accessor for the tensor that
    `tf.raw_ops.DatasetToGraphV2` serializes, nor for the graph node that a
    graph-mode dataset is. Public alternative: none.
    """
    return _member(dataset, "_variant_tensor")


def input_datasets(dataset: tf.data.Dataset) -> list[tf.data.Dataset]:
    """The datasets a transformation reads from, in order (none for a source).

    Why: there is no public way to reach the input of a transformation. It is
    needed to time each stage of a pipeline alone, and to walk past a stage
    TensorFlow cannot serialize (`prefetch_to_device` in eager mode).
    """
    return list(_member(dataset, "_inputs")())


def unary_input(dataset: Any) -> Any:
    """The one input of a unary dataset (`_input_dataset`, or the v1 `_dataset`).

    Why: no public API tells whether a dataset is batched; the check walks
    the unary chain. Returns None where neither attribute is present.
    """
    found = getattr(dataset, "_input_dataset", None)
    return found or getattr(dataset, "_dataset", None)


def kernel_op(dataset: tf.data.Dataset) -> str:
    """The op name of an eager dataset's kernel, e.g. `'PrefetchDataset'`.

    Why: only for a stage TensorFlow cannot serialize. Its eager variant has
    no graph node to read the op from; the variant's debug string, which
    names the kernel (`<PrefetchDatasetOp::Dataset>`), is all there is.
    """
    match = _KERNEL.search(repr(variant_tensor(dataset)))
    return match.group(1) if match else "UnknownDataset"


def options_deterministic(serialized: bytes) -> bool | None:
    """`deterministic` of a serialized `tf.data.Options`, or None when unset.

    Why: `tensorflow.core` protos are not under the public `tf.*` names; the
    serialized options of an `OptionsDataset` node (graph attribute
    `serialized_options`) decode only with this message class.
    """
    protos = _private("tensorflow.core.framework.dataset_options_pb2")
    options = protos.Options.FromString(serialized)
    if options.WhichOneof("optional_deterministic") is None:
        return None
    return options.deterministic


def multi_device_iterator() -> type:
    """The `MultiDeviceIterator` class.

    Why: it has no public `tf.*` name in any TF 2.x; it lives in
    `tensorflow.python.data.ops.multi_device_iterator_ops`. Public
    alternative: `tf.distribute` input or `emg.inputs.sharded_input_fn`.
    """
    return _private(
        "tensorflow.python.data.ops.multi_device_iterator_ops",
        "MultiDeviceIterator",
        fix=" (or use emg.inputs.sharded_input_fn)",
    )


# --- Distribution, eager runtime, variables -----------------------------------


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
    context = _private("tensorflow.python.eager.context")
    return bool(_member(context.context(), "_initialized"))


def eager_device_name() -> str:
    """The device of the current eager `tf.device` scope (`''` outside one).

    Why: no public API reads the scope without creating a tensor, which would
    be placed by default placement instead. Public alternative: none.
    """
    context = _private("tensorflow.python.eager.context")
    return context.context().device_name


def resource_variable(initial_value: Any, **kwargs: Any) -> tf.Variable:
    """`resource_variable_ops.ResourceVariable(initial_value, **kwargs)`.

    Why: a plain eager resource variable that no variable creator scope (a
    `tf.distribute` strategy's mirroring) intercepts. Public alternative:
    `tf.Variable`, which strategies replace.
    """
    ops = _private("tensorflow.python.ops.resource_variable_ops")
    return ops.ResourceVariable(initial_value, **kwargs)


# --- SavedModel export (TensorFlow's, which tf.estimator re-exported) ---------


def export_output() -> types.ModuleType:
    """`tensorflow.python.saved_model.model_utils.export_output`.

    Why: the `ExportOutput` classes `tf.estimator.export` re-exported; TF
    2.16+ has no public name for them. Public alternative: none.
    """
    return _private("tensorflow.python.saved_model.model_utils.export_output")


def export_utils() -> types.ModuleType:
    """`tensorflow.python.saved_model.model_utils.export_utils`.

    Why: the signature building, export-dir naming and default names of
    tf.estimator's SavedModel export. Public alternative: none.
    """
    return _private("tensorflow.python.saved_model.model_utils.export_utils")
