"""A trainer that has no TensorFlow import of its own: `tf` comes from the
star imports, and the last one (metrics_v2's) is TF 2's module."""

from layers_v1 import *
from metrics_v2 import *  # expect: compat-v1

flags = tf.app.flags
flags.DEFINE_integer("steps", 3, "training steps")
FLAGS = flags.FLAGS


def main(_):
    x = tf.placeholder(tf.float32, [None, 2])
    y = tf.placeholder(tf.float32, [None, 1])
    loss = squared_error(dense(x, 1, "out"), y)
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    feed = {x: [[1.0, 2.0], [3.0, 4.0]], y: [[1.0], [2.0]]}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(FLAGS.steps):
            _, value = sess.run([train_op, loss], feed)
            print("step %d loss %.4f" % (step, value))
    print("done")


if __name__ == "__main__":
    tf.app.run()
