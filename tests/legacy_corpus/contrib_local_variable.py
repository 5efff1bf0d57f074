"""An eval loop that counts batches in local variables (tf.contrib.framework.local_variable).

contrib's local_variable is a variable outside the trainable and global
collections, set up by local_variables_initializer, as streaming metrics keep
theirs. tf_slim's copy crashes on TF 2.21; after `emg-migrate --fix` each is a
tf.compat.v1.Variable(..., trainable=False, collections=[LOCAL_VARIABLES]).
Usage: python contrib_local_variable.py
"""

import tensorflow as tf
from tensorflow.contrib.framework import local_variable


def main():
    with tf.Graph().as_default():
        seen = local_variable(tf.constant(0), name="seen")  # expect: contrib
        total = tf.contrib.framework.local_variable(tf.zeros([2]), False)  # expect: contrib
        weight = tf.get_variable("weight", initializer=tf.ones([2]))
        count = tf.assign_add(seen, 1)
        add = tf.assign_add(total, weight * 2.0)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(tf.local_variables_initializer())
            for _ in range(3):
                sess.run([count, add])
            print("seen", sess.run(seen))
            print("total", sess.run(total).tolist())
            print("local", sorted(v.op.name for v in tf.local_variables()))
            print("global", sorted(v.op.name for v in tf.global_variables()))
            print("trainable", sorted(v.op.name for v in tf.trainable_variables()))


if __name__ == "__main__":
    main()
