"""The runner's logger: TensorFlow's own (`tf.get_logger()`), as tf.estimator's.

`tf.compat.v1.logging` writes to `tf.get_logger()` and installs no handler on
the root logger, so each line prints once and `set_verbosity` governs it.
"""

import tensorflow as tf

debug = tf.compat.v1.logging.debug
info = tf.compat.v1.logging.info
warning = tf.compat.v1.logging.warning
error = tf.compat.v1.logging.error
