"""A TF 1.x trainer of the era that also ran on Python 2: it counts its steps
with xrange, writes its statistics with dict.iteritems() after training,
totals its losses with the builtin reduce and pickles them with cPickle.

Python 3 parses each and fails only when the line runs, after the training
(NameError, AttributeError); `emg-migrate --fix` writes range, .items() and
`from functools import reduce`.
Usage: python python2_builtins.py
"""

import cPickle  # port: python2-builtin

import tensorflow as tf  # port: compat-v1


def main():
    with tf.Graph().as_default():
        w = tf.Variable(0.0)
        loss = tf.square(w - 3.0)
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        stat = {"loss": [], "w": []}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for step in xrange(3):  # port: python2-builtin
                _, l, w_ = sess.run([train_op, loss, w])
                stat["loss"].append(l)
                stat["w"].append(w_)
                print("step %d loss %.4f" % (step, l))
    for key, values in stat.iteritems():  # port: python2-builtin
        print("%s %s" % (key, " ".join("%.3f" % v for v in values)))
    print("keys", sorted(stat.iterkeys()))  # port: python2-builtin
    total = reduce(lambda a, b: a + b, stat["loss"])  # port: python2-builtin
    print("total below first", total < 3 * stat["loss"][0])
    print("pickled", sorted(cPickle.loads(cPickle.dumps(stat))) == sorted(stat))


if __name__ == "__main__":
    main()
