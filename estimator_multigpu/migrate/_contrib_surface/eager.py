"""tf.contrib.eager of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "move to core"
ADVICE = "eager is TF 2's default: tf.function, tf.GradientTape, tf.Variable, tf.train.Checkpoint"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "ASYNC": ("none", "", ""),
    "Checkpoint": ("exact", "tf.compat.v1.train.Checkpoint", ""),
    "Checkpointable": ("none", "", ""),
    "DEVICE_PLACEMENT_EXPLICIT": ("none", "", ""),
    "DEVICE_PLACEMENT_SILENT": ("none", "", ""),
    "DEVICE_PLACEMENT_WARN": ("none", "", ""),
    "EagerVariableStore": ("none", "", ""),
    "ExecutionCallback": ("none", "", ""),
    "GradientTape": ("exact", "tf.GradientTape", ""),
    "Iterator": ("none", "", ""),
    "Network": ("none", "", ""),
    "SYNC": ("none", "", ""),
    "Saver": ("none", "", ""),
    "Sequential": ("none", "", ""),
    "TensorSpec": ("exact", "tf.TensorSpec", ""),
    "Variable": (
        "none",
        "tf.compat.v1.Variable",
        "tf.compat.v1.Variable has its name, but it takes (), contrib's "
        "took (initial_value, trainable, collections, validate_shape, "
        "caching_device, name, dtype, variable_def, import_scope, "
        "constraint, distribute_strategy, synchronization, aggregation, "
        "shape)",
    ),
    "add_execution_callback": ("none", "", ""),
    "async_clear_error": ("exact", "tf.experimental.async_clear_error", ""),
    "async_wait": ("none", "", ""),
    "clear_execution_callbacks": ("none", "", ""),
    "connect_to_remote_host": ("exact", "tf.config.experimental_connect_to_host", ""),
    "custom_gradient": ("exact", "tf.custom_gradient", ""),
    "defun": ("none", "", ""),
    "enable_eager_execution": ("exact", "tf.compat.v1.enable_eager_execution", ""),
    "enable_remote_eager_execution": ("none", "", ""),
    "errstate": ("none", "", ""),
    "executing_eagerly": ("exact", "tf.executing_eagerly", ""),
    "execution_mode": ("none", "", ""),
    "function": (
        "none",
        "tf.function",
        "tf.function has its name, but it takes (func, input_signature, "
        "autograph, jit_compile, reduce_retracing, "
        "experimental_implements, experimental_autograph_options, "
        "experimental_attributes, experimental_relax_shapes, "
        "experimental_compile, experimental_follow_type_hints), "
        "contrib's took (func, input_signature, autograph, "
        "experimental_autograph_options, experimental_relax_shapes, "
        "experimental_compile)",
    ),
    "get_optimizer_variables": ("none", "", ""),
    "gradients_function": ("none", "", ""),
    "implicit_gradients": ("none", "", ""),
    "implicit_value_and_gradients": ("none", "", ""),
    "in_eager_mode": ("exact", "tf.executing_eagerly", ""),
    "inf_callback": ("none", "", ""),
    "inf_nan_callback": ("none", "", ""),
    "list_devices": ("none", "", ""),
    "make_template": (
        "none",
        "tf.compat.v1.make_template",
        "tf.compat.v1.make_template has its name, but it takes "
        "(name_, func_, create_scope_now_, unique_name_, "
        "custom_getter_), contrib's took (name_, func_, "
        "create_scope_now_, unique_name_, custom_getter_, "
        "create_graph_function_)",
    ),
    "metrics": ("exact", "tf.compat.v1.metrics", ""),
    "nan_callback": ("none", "", ""),
    "num_gpus": ("none", "", ""),
    "py_func": ("exact", "tf.py_function", ""),
    "restore_network_checkpoint": ("none", "", ""),
    "restore_variables_on_create": ("none", "", ""),
    "run": ("none", "", ""),
    "run_all_tests_in_graph_and_eager_modes": ("none", "", ""),
    "run_test_in_graph_and_eager_modes": ("none", "", ""),
    "save_network_checkpoint": ("none", "", ""),
    "set_execution_mode": ("none", "", ""),
    "set_server_def": ("none", "", ""),
    "seterr": ("none", "", ""),
    "value_and_gradients_function": ("none", "", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.eager.python.datasets": {"Iterator": "Iterator"},
    "tf.contrib.eager.python.metrics": {"": "metrics"},
    "tf.contrib.eager.python.network": {
        "Network": "Network",
        "Sequential": "Sequential",
        "restore_network_checkpoint": "restore_network_checkpoint",
        "save_network_checkpoint": "save_network_checkpoint",
    },
    "tf.contrib.eager.python.saver": {
        "Saver": "Saver",
        "get_optimizer_variables": "get_optimizer_variables",
        "restore_variables_on_create": "restore_variables_on_create",
    },
}
