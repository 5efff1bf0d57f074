"""A Session trainer that asks Grappler's AutoParallel for its multi-GPU step.

AutoParallel has no successor that --fix writes: each setting is reported,
pointing to towers, and left as it is; after `emg-migrate --fix` the script
still trains (on TF 2.x, one device).
Usage: python grappler_auto_parallel.py
"""

import numpy as np
import tensorflow as tf
from tensorflow.core.protobuf import rewriter_config_pb2


def session_config(num_replicas):
    options = rewriter_config_pb2.AutoParallelOptions(enable=True, num_replicas=num_replicas)  # expect: auto-parallel
    rewrite = rewriter_config_pb2.RewriterConfig(auto_parallel=options)  # expect: auto-parallel, private-tf
    rewrite.auto_parallel.num_replicas = num_replicas  # expect: auto-parallel
    graph_options = tf.compat.v1.GraphOptions(rewrite_options=rewrite)
    return tf.compat.v1.ConfigProto(graph_options=graph_options)


def main():
    tf.compat.v1.disable_eager_execution()
    x = np.arange(16, dtype=np.float32).reshape(8, 2) / 16.0
    y = x.sum(axis=1, keepdims=True)
    w = tf.compat.v1.get_variable("w", [2, 1], initializer=tf.compat.v1.zeros_initializer())
    loss = tf.reduce_mean(tf.square(tf.matmul(tf.constant(x), w) - tf.constant(y)))
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.5).minimize(loss)
    with tf.compat.v1.Session(config=session_config(2)) as session:
        session.run(tf.compat.v1.global_variables_initializer())
        before = session.run(loss)
        for _ in range(20):
            session.run(train_op)
        print("improved", session.run(loss) < before)


if __name__ == "__main__":
    main()
