"""The runner's logger: TensorFlow's own (`tf.get_logger()`), as tf.estimator's.

`tf.compat.v1.logging` writes to `tf.get_logger()` and installs no handler on
the root logger, so each line prints once and `set_verbosity` governs it.
Each call looks the function up when it logs, as `tf.compat.v1.logging.info`
written in place would.
"""

import tensorflow as tf


def debug(msg, *args, **kwargs) -> None:
    tf.compat.v1.logging.debug(msg, *args, **kwargs)


def info(msg, *args, **kwargs) -> None:
    tf.compat.v1.logging.info(msg, *args, **kwargs)


def warning(msg, *args, **kwargs) -> None:
    tf.compat.v1.logging.warning(msg, *args, **kwargs)


def error(msg, *args, **kwargs) -> None:
    tf.compat.v1.logging.error(msg, *args, **kwargs)
