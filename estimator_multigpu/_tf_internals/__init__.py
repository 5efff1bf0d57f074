"""The one place the package reaches TensorFlow internals; each use says why.

Every `tensorflow.python.*` / `tensorflow.core.*` / `tensorflow_estimator`
import and every underscore member of a TensorFlow object the library needs
is in this subpackage, one entry per use, with the reason ("Why:") and the
public alternative (none, where none exists). Each entry imports its internal
module only when called, so a TensorFlow that drops one breaks that entry
(and its test in `tests/test_tf_internals.py`) with an error naming the
TensorFlow version, not the whole package. Imports only TensorFlow and the
standard library, so every layer may use it.
"""

from estimator_multigpu._tf_internals.control_flow import restore_control_flow_aliases
from estimator_multigpu._tf_internals.data import (
    input_datasets,
    kernel_op,
    multi_device_iterator,
    options_deterministic,
    unary_input,
    variant_tensor,
)
from estimator_multigpu._tf_internals.export import (
    estimator_spec_classes,
    export_output,
    export_utils,
)
from estimator_multigpu._tf_internals.graph import (
    add_control_input,
    graph_collections,
    update_input,
)
from estimator_multigpu._tf_internals.legacy_names import (
    restore_legacy_batch_norm,
    restore_tensor_alias,
    restore_variable_alias,
)
from estimator_multigpu._tf_internals.lookup import lookup_ops
from estimator_multigpu._tf_internals.runtime import (
    eager_device_name,
    eager_mode,
    input_workers,
    resource_variable,
    runtime_initialized,
)
from estimator_multigpu._tf_internals.training import (
    StepCounterHook,
    add_saving_listener,
    cached_file_writer,
    evaluate_once,
    get_or_create_eval_step,
    get_or_create_global_step_read,
    stop_after_n_evals_hook,
)

__all__ = [
    "StepCounterHook",
    "add_control_input",
    "add_saving_listener",
    "cached_file_writer",
    "eager_device_name",
    "eager_mode",
    "estimator_spec_classes",
    "evaluate_once",
    "export_output",
    "export_utils",
    "get_or_create_eval_step",
    "get_or_create_global_step_read",
    "graph_collections",
    "input_datasets",
    "input_workers",
    "kernel_op",
    "lookup_ops",
    "multi_device_iterator",
    "options_deterministic",
    "resource_variable",
    "restore_control_flow_aliases",
    "restore_legacy_batch_norm",
    "restore_tensor_alias",
    "restore_variable_alias",
    "runtime_initialized",
    "stop_after_n_evals_hook",
    "unary_input",
    "update_input",
    "variant_tensor",
]
