"""A TF 0.12-era trainer: the names TF 1.0 renamed (runnable after --fix).

tf.mul, tf.pack, tf.select, tf.scalar_summary, tf.histogram_summary,
tf.merge_all_summaries and tf.train.SummaryWriter exist in no TF 1.x or 2.x
module; `emg-migrate --fix` writes their TF 1.x successors.
Usage: python tf0_renamed_names.py LOG_DIR
"""

import sys

import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()


def main(log_dir):
    with tf.Graph().as_default():
        x = tf.constant([[1.0, -2.0], [3.0, -4.0]])
        w = tf.Variable(0.5)
        scaled = tf.mul(x, w)  # expect: tf0-name
        both = tf.pack([x, scaled], axis=0)  # expect: tf0-name
        positive = tf.select(x > 0, t=x, e=tf.zeros_like(x))  # expect: tf0-name
        loss = tf.reduce_sum(tf.square(both)) + tf.reduce_sum(positive)
        tf.scalar_summary("loss", loss)  # expect: tf0-name
        tf.histogram_summary("w", w)  # expect: tf0-name
        merged = tf.merge_all_summaries()  # expect: tf0-name
        train_op = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
        with tf.Session() as sess:
            writer = tf.train.SummaryWriter(log_dir, sess.graph)  # expect: tf0-name
            sess.run(tf.global_variables_initializer())
            for step in range(3):
                _, l, summary = sess.run([train_op, loss, merged])
                writer.add_summary(summary, step)
                print("step %d loss %.4f" % (step, l))
            writer.close()
            print("positive", sess.run(positive).tolist())


if __name__ == "__main__":
    main(sys.argv[1])
