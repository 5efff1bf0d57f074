"""The program's flags, defined in a module of their own as TF 1.x code did.

`log_dir` and `logtostderr` are also flags absl.logging defines on import.
"""

import tensorflow as tf  # expect: compat-v1

flags = tf.app.flags
flags.DEFINE_string("log_dir", "./logs", "summaries")  # expect: absl-logging-flag
flags.DEFINE_boolean("logtostderr", False, "the loss")  # expect: absl-logging-flag
flags.DEFINE_integer("steps", 20, "training steps")

FLAGS = flags.FLAGS
