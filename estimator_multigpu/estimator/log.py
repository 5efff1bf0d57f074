"""The runner's logger: TensorFlow's own (`tf.get_logger()`), as tf.estimator's.

`tf.compat.v1.logging` writes to `tf.get_logger()` and installs no handler on
the root logger, so each line prints once and `set_verbosity` governs it.
`log.info(...)` resolves to `tf.compat.v1.logging.info` when it is called (a
module `__getattr__`, no wrapper function), so the record names the module
that logged, as tf.estimator's `file:line` did, and a test that replaces
`tf.compat.v1.logging.info` sees the call.
"""

import tensorflow as tf

_NAMES = ("debug", "info", "warning", "error")


def __getattr__(name: str):
    if name in _NAMES:
        return getattr(tf.compat.v1.logging, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
